// `--only mix`: the whole mix against both servers on MySQL in alternating pairs, and the
// MySQL phases that reuse the two running servers (kinds, sidebyside, flood, --profile).
import mysql from 'mysql2/promise';
import { mixKinds, mixSequence } from './mix.mjs';
import { mysqldPid, peakRssMb, startRecord, stop } from './processes.mjs';
import { opts, rounds, seconds, warmup, only, serverUrl, main, log, ratio, median, startService, startBaseline } from './context.mjs';
import { flood } from './phase-flood.mjs';
import { kindRounds } from './phase-kinds.mjs';
import { profileSides, profiled, profileNext } from './phase-profile.mjs';
import { sideBySideRounds } from './phase-sidebyside.mjs';
import { checkSameAnswers, measure, pairRounds, firstOf, pidsOf, reportBad } from './rounds.mjs';
import { connectionOf } from './seed.mjs';

/** The whole mix in alternating pairs (pairRounds): the figures the mix's targets are held to. */
export async function mixRounds(sides, kinds, mysqld, label) {
  const rounds_ = [];
  log(`${label}: warm-up ${warmup} s each`);
  await measure(sides.service, mixSequence(kinds, 1), warmup, pidsOf(sides.service, mysqld));
  await measure(sides.baseline, mixSequence(kinds, 1), warmup, pidsOf(sides.baseline, mysqld));
  for (let i = 1; i <= rounds; i++) {
    const { service: a, baseline: b } = await pairRounds(sides, firstOf(i), (seed) => mixSequence(kinds, seed), [100 + i, 150 + i], seconds, mysqld);
    const pair = { round: i, service: a, baseline: b, ratio: { rps: ratio(a.rps, b.rps), p50: ratio(a.p50, b.p50), p99: ratio(a.p99, b.p99) } };
    rounds_.push(pair);
    log(`${label} round ${i}: service ${a.rps} req/s p50 ${a.p50} p99 ${a.p99} | baseline ${b.rps} req/s p50 ${b.p50} p99 ${b.p99} | ratios rps ${pair.ratio.rps} p99 ${pair.ratio.p99}`);
    log(`  CPU ms per request: service ${JSON.stringify(a.cpuMsPerRequest)} | baseline ${JSON.stringify(b.cpuMsPerRequest)}`);
    reportBad('service', a);
    reportBad('baseline', b);
  }
  // CPU time per request, median over the rounds: steadier than req/s when other work
  // shares the machine, and what req/s would follow on a machine of its own.
  const cpuOf = (side) => {
    const keys = Object.keys(rounds_[0][side].cpuMsPerRequest);
    return Object.fromEntries(keys.map((k) => [k, median(rounds_.map((r) => r[side].cpuMsPerRequest[k]))]));
  };
  const total = (c) => Object.values(c).reduce((x, y) => x + y, 0);
  const cpuMsPerRequest = { service: cpuOf('service'), baseline: cpuOf('baseline') };
  cpuMsPerRequest.baselineOverService = ratio(total(cpuMsPerRequest.baseline), total(cpuMsPerRequest.service));
  return {
    rounds: rounds_,
    median: { rps: median(rounds_.map((r) => r.ratio.rps)), p50: median(rounds_.map((r) => r.ratio.p50)), p99: median(rounds_.map((r) => r.ratio.p99)) },
    cpuMsPerRequest,
  };
}

export async function mixBench(mainUrl, results) {
  const kinds = mixKinds(main);
  const service = await startService(mainUrl, 'service', {}, profiled('service'));
  results.startup.push(startRecord('mix (1M rows)', service));
  log(`service ready in ${service.readyMs} ms (pid ${service.child.pid})`);
  const baseline = await startBaseline({ DATABASE_URL: mainUrl }, profiled('baseline'));
  log(`baseline ready in ${baseline.readyMs} ms`);
  const sides = { service, baseline };
  await checkSameAnswers(kinds, service.port, baseline.port);

  const conn = await mysql.createConnection({ ...connectionOf(serverUrl), database: undefined });
  const mysqld = await mysqldPid(conn);
  await conn.end();
  if (opts.profile) return profileSides(sides, profileNext(kinds), mysqld, results);
  if (only.has('mix')) {
    Object.assign(results, await mixRounds(sides, kinds, mysqld, 'mysql mix'));
    results.rss.serviceUnderMixMb = peakRssMb(service.child.pid);
    results.rss.baselineUnderMixMb = peakRssMb(baseline.child.pid);
  }
  if (only.has('kinds')) results.kinds = await kindRounds(sides, kinds, mysqld, 'mysql');
  if (only.has('sidebyside')) (results.sideBySide ??= {}).mysql = await sideBySideRounds(sides, kinds, 'mysql');
  await stop(baseline.child);
  if (only.has('flood')) await flood(service, kinds, results);
  await stop(service.child);
}
