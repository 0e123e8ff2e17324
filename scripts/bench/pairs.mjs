// Servers compared in pairs of closed-loop rounds: throughput, latency and the CPU each
// server's processes used per request, and their ratios between two sides, one per pair.
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
 * A pair runs the sides in one order and then in its mirror (A B B A for two, A B C C B A for
 * three), each for half of `seconds` each time; each side's halves are joined. Every side's
 * two rounds sit at the same mean time in the pair, so a drift of the machine's speed that is
 * steady over the pair cancels from every ratio. The order rotates from pair to pair, so the
 * sides take turns opening the pair and running right after themselves.
 */
async function pair(sides, makeNext, i) {
  const names = Object.keys(sides);
  const order = names.map((_, k) => names[(k + i - 1) % names.length]);
  const halves = Object.fromEntries(names.map((n) => [n, []]));
  for (const [name, seed] of [...order.map((n) => [n, 100 + i]), ...order.toReversed().map((n) => [n, 200 + i])]) {
    halves[name].push(await measure(sides[name], makeNext(seed), seconds / 2));
  }
  return Object.fromEntries(names.map((n) => [n, join(...halves[n])]));
}

/** A ratio x / y over the pairs of a series: req/s and CPU per request, each a median and its spread. */
export const ratio = (series, x, y) => ({
  rps: spread(series.pairs.map((p) => p[x].rps / p[y].rps)),
  cpu: spread(series.pairs.map((p) => p[x].cpuMsPerRequest / p[y].cpuMsPerRequest)),
});

/**
 * `pairs` pairs of `names` (a kind of the mix, or all of them) against `sides` ({ name: side }),
 * after a warm-up of each side: each side's median figures, each pair's figures, and the CPU
 * seconds each process of each side used over all pairs.
 */
export async function series(sides, kinds, names, label) {
  const makeNext = (seed) => mixSequence(kinds, seed, names);
  const sideNames = Object.keys(sides);
  for (const name of sideNames) await measure(sides[name], makeNext(1), warmup);
  const list = [];
  const cpuSecondsByPid = Object.fromEntries(sideNames.map((n) => [n, {}]));
  for (let i = 1; i <= pairs; i++) {
    const r = await pair(sides, makeNext, i);
    for (const name of sideNames) {
      const bad = Object.entries(r[name].statuses).filter(([st]) => st !== '200');
      if (bad.length || r[name].errors) log(`${label} ${name}: non-200 answers ${JSON.stringify(Object.fromEntries(bad))}, errors ${r[name].errors}`);
      for (const [pid, s] of Object.entries(r[name].cpuByPid)) cpuSecondsByPid[name][pid] = round3((cpuSecondsByPid[name][pid] ?? 0) + s);
    }
    list.push(Object.fromEntries(sideNames.map((n) => [n, figures(r[n])])));
    const p = list.at(-1);
    log(`${label} pair ${i}: ${sideNames.map((n) => p[n].rps).join(' / ')} req/s, CPU ${sideNames.map((n) => p[n].cpuMsPerRequest).join(' / ')} ms per request`);
  }
  const side = (n) => Object.fromEntries(['rps', 'p50', 'p99', 'cpuMsPerRequest'].map((f) => [f, round3(median(list.map((p) => p[n][f])))]));
  return { sides: Object.fromEntries(sideNames.map((n) => [n, side(n)])), cpuSecondsByPid, pairs: list };
}

/** A series of two sides `a` and `b`: each side's median figures, the ratios a / b, and the CPU seconds of each process of `a`. */
export async function pairSeries(sides, kinds, names, label) {
  const s = await series(sides, kinds, names, label);
  return { ...s.sides, ...ratio(s, 'a', 'b'), cpuSecondsByPidA: s.cpuSecondsByPid.a, pairs: s.pairs };
}
