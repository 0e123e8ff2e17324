// `--only kinds`: each kind of the mix alone, in alternating pairs, on one engine.
import { mixSequence } from './mix.mjs';
import { pairs, kindSeconds, log, ratio, median } from './context.mjs';
import { measure, pairRounds, firstOf, pidsOf, reportBad, kindNames } from './rounds.mjs';

/**
 * Each kind alone: `pairs` pairs of rounds of that kind only (pairRounds, each side
 * first in every other pair), so a kind the database answers cheaply shows what the
 * framework costs. Per kind: req/s, p99 and
 * the server's CPU per request of each side (medians), and their ratios (medians of the pairs).
 */
export async function kindRounds(sides, kinds, mysqld, label) {
  const out_ = {};
  const names = kindNames(kinds);
  for (const name of names) {
    const only_ = (seed) => mixSequence(kinds, seed, [name]);
    await measure(sides.service, only_(1), 2, pidsOf(sides.service, mysqld));
    await measure(sides.baseline, only_(1), 2, pidsOf(sides.baseline, mysqld));
    const list = [];
    for (let i = 1; i <= pairs; i++) {
      const { service: a, baseline: b } = await pairRounds(sides, firstOf(i), only_, [200 + i, 250 + i], kindSeconds, mysqld);
      reportBad(`${name} service`, a);
      reportBad(`${name} baseline`, b);
      list.push({
        service: { rps: a.rps, p50: a.p50, p99: a.p99, cpuMs: a.cpuMsPerRequest },
        baseline: { rps: b.rps, p50: b.p50, p99: b.p99, cpuMs: b.cpuMsPerRequest },
        ratio: { rps: ratio(a.rps, b.rps), p99: ratio(a.p99, b.p99), serverCpu: ratio(a.cpuMsPerRequest.server, b.cpuMsPerRequest.server) },
      });
    }
    const side = (k) => ({
      rps: median(list.map((p) => p[k].rps)), p99: median(list.map((p) => p[k].p99)), serverCpuMs: median(list.map((p) => p[k].cpuMs.server)),
      ...(mysqld ? { mysqldCpuMs: median(list.map((p) => p[k].cpuMs.mysqld)) } : {}),
    });
    out_[name] = {
      service: side('service'), baseline: side('baseline'),
      ratio: { rps: median(list.map((p) => p.ratio.rps)), p99: median(list.map((p) => p.ratio.p99)), serverCpu: median(list.map((p) => p.ratio.serverCpu)) },
      pairs: list,
    };
    const k = out_[name];
    log(`${label} ${name}: service ${k.service.rps} req/s p99 ${k.service.p99} ms CPU ${k.service.serverCpuMs} ms | baseline ${k.baseline.rps} req/s p99 ${k.baseline.p99} ms CPU ${k.baseline.serverCpuMs} ms | ratios rps ${k.ratio.rps} (${list.map((p) => p.ratio.rps).join(' ')}) p99 ${k.ratio.p99} cpu ${k.ratio.serverCpu}`);
  }
  return out_;
}
