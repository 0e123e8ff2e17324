// Two servers compared in pairs of closed-loop rounds: throughput, latency and the CPU each
// server's processes used per request, as ratios of side `a` to side `b`, one per pair.
import { closedLoop, percentile } from './load.mjs';
import { mixSequence } from './mix.mjs';
import { cpuSeconds, treeOf } from './processes.mjs';
import { pairs, seconds, warmup, connections, log, median, round3, spread } from './context.mjs';

/**
 * One closed-loop round against `side` ({ child, port, warm? }): its answers and the CPU
 * seconds each process of its tree used meanwhile.
 */
async function measure(side, next, secs) {
  side.warm?.();
  const pids = treeOf(side.child.pid);
  const before = pids.map(cpuSeconds);
  const r = await closedLoop({ port: side.port, next, connections, seconds: secs });
  r.cpuByPid = Object.fromEntries(pids.map((pid, i) => [pid, cpuSeconds(pid) - before[i]]));
  return r;
}

/** Two rounds of one side as one. */
function join(x, y) {
  const cpuByPid = { ...x.cpuByPid };
  for (const [pid, s] of Object.entries(y.cpuByPid)) cpuByPid[pid] = (cpuByPid[pid] ?? 0) + s;
  const statuses = { ...x.statuses };
  for (const [st, n] of Object.entries(y.statuses)) statuses[st] = (statuses[st] ?? 0) + n;
  return { latencies: x.latencies.concat(y.latencies), seconds: x.seconds + y.seconds, statuses, errors: x.errors + y.errors, cpuByPid };
}

/** req/s, p50, p99 and CPU ms per request of a (joined) round. */
function figures(r) {
  const requests = r.latencies.length;
  const cpu = Object.values(r.cpuByPid).reduce((a, b) => a + b, 0);
  return { rps: Math.round(requests / r.seconds), p50: percentile(r.latencies, 50), p99: percentile(r.latencies, 99), cpuMsPerRequest: round3((cpu * 1000) / requests) };
}

/**
 * A pair runs A B B A, each side for half of `seconds` each time; each side's halves are
 * joined. Each side runs once right after the other and once after itself, and a drift of
 * the machine's speed that is steady over the pair cancels. The side that opens alternates.
 */
async function pair(sides, makeNext, i) {
  const [first, second] = i % 2 ? ['a', 'b'] : ['b', 'a'];
  const halves = { a: [], b: [] };
  for (const [side, seed] of [[first, 100 + i], [second, 100 + i], [second, 200 + i], [first, 200 + i]]) {
    halves[side].push(await measure(sides[side], makeNext(seed), seconds / 2));
  }
  return { a: join(...halves.a), b: join(...halves.b) };
}

/**
 * `pairs` pairs of `names` (a kind of the mix, or all of them) after a warm-up of each side:
 * each side's median figures, each pair's ratios a / b, their median and spread, and the CPU
 * seconds each process of side `a` used over all pairs.
 */
export async function pairSeries(sides, kinds, names, label) {
  const makeNext = (seed) => mixSequence(kinds, seed, names);
  for (const side of ['a', 'b']) await measure(sides[side], makeNext(1), warmup);
  const list = [];
  const cpuByPidA = {};
  for (let i = 1; i <= pairs; i++) {
    const r = await pair(sides, makeNext, i);
    for (const side of ['a', 'b']) {
      const bad = Object.entries(r[side].statuses).filter(([st]) => st !== '200');
      if (bad.length || r[side].errors) log(`${label} ${side}: non-200 answers ${JSON.stringify(Object.fromEntries(bad))}, errors ${r[side].errors}`);
    }
    for (const [pid, s] of Object.entries(r.a.cpuByPid)) cpuByPidA[pid] = round3((cpuByPidA[pid] ?? 0) + s);
    list.push({ a: figures(r.a), b: figures(r.b) });
    const p = list.at(-1);
    log(`${label} pair ${i}: ${p.a.rps} / ${p.b.rps} req/s, CPU ${p.a.cpuMsPerRequest} / ${p.b.cpuMsPerRequest} ms per request`);
  }
  const side = (k) => Object.fromEntries(['rps', 'p50', 'p99', 'cpuMsPerRequest'].map((f) => [f, median(list.map((p) => p[k][f]))]));
  return {
    a: side('a'),
    b: side('b'),
    rps: spread(list.map((p) => p.a.rps / p.b.rps)),
    cpu: spread(list.map((p) => p.a.cpuMsPerRequest / p.b.cpuMsPerRequest)),
    cpuSecondsByPidA: cpuByPidA,
    pairs: list,
  };
}
