// `--only sidebyside`: both servers loaded at once with each kind, so both see the machine
// as it is at that moment and their CPU per request compares without its drift.
import { mixSequence } from './mix.mjs';
import { connections, pairs, kindSeconds, log, ratio, median } from './context.mjs';
import { measure, reportBad, kindNames } from './rounds.mjs';

/**
 * Each kind with both sides loaded at once: `pairs` rounds of `kindSeconds`, half the
 * connections on each side, the same requests on both. Alternating rounds give each side
 * the machine alone, but on this kind of VM the machine's speed moves every process's CPU
 * per request by up to half within seconds, and a pair's two rounds see different machines.
 * Loaded together, the two servers share the
 * cores and whatever the machine does in that window: their CPU per request compares the
 * work each does for a request. Neither gets a core of its own, so req/s here is not the
 * closed-loop figure the targets are set on.
 */
export async function sideBySideRounds(sides, kinds, label) {
  const out_ = {};
  const names = kindNames(kinds);
  const half = Math.max(1, Math.round(connections / 2));
  // The same seed on both sides: the same requests in the same order.
  const both = (name, seed, secs) => Promise.all(['service', 'baseline'].map((side) =>
    measure(sides[side], mixSequence(kinds, seed, [name]), secs, { server: sides[side].child.pid }, half)));
  for (const name of names) {
    await both(name, 1, 2);
    const list = [];
    for (let i = 1; i <= pairs; i++) {
      const [a, b] = await both(name, 300 + i, kindSeconds);
      reportBad(`${name} service`, a);
      reportBad(`${name} baseline`, b);
      list.push({
        service: { rps: a.rps, cpuMs: a.cpuMsPerRequest.server },
        baseline: { rps: b.rps, cpuMs: b.cpuMsPerRequest.server },
        ratio: { rps: ratio(a.rps, b.rps), serverCpu: ratio(a.cpuMsPerRequest.server, b.cpuMsPerRequest.server) },
      });
    }
    const side = (k) => ({ rps: median(list.map((p) => p[k].rps)), serverCpuMs: median(list.map((p) => p[k].cpuMs)) });
    out_[name] = {
      service: side('service'), baseline: side('baseline'),
      ratio: { rps: median(list.map((p) => p.ratio.rps)), serverCpu: median(list.map((p) => p.ratio.serverCpu)) },
      rounds: list,
    };
    const k = out_[name];
    log(`${label} side by side ${name}: service ${k.service.rps} req/s CPU ${k.service.serverCpuMs} ms | baseline ${k.baseline.rps} req/s CPU ${k.baseline.serverCpuMs} ms | ratios rps ${k.ratio.rps} cpu ${k.ratio.serverCpu} (${list.map((p) => p.ratio.serverCpu).join(' ')})`);
  }
  return out_;
}
