// Timed rounds: one closed-loop round with the CPU of each process per request, the A B B A
// pair that both phases of alternating rounds use, and the agreement check of both servers.
import { isDeepStrictEqual } from 'node:util';
import { closedLoop, joinRounds } from './load.mjs';
import { mixSequence } from './mix.mjs';
import { cpuSeconds } from './processes.mjs';
import { opts, connections, log, tokens } from './context.mjs';

/** Both servers must give the same answers, or the comparison means nothing. */
export async function checkSameAnswers(kinds, servicePort, baselinePort) {
  const next = mixSequence(kinds, 4242);
  const fetchJson = async (port, r) => {
    const res = await fetch(`http://127.0.0.1:${port}${r.path}`, {
      method: r.method,
      headers: { Authorization: `Bearer ${tokens[r.role]}`, ...(r.body ? { 'Content-Type': 'application/json' } : {}) },
      body: r.body ? JSON.stringify(r.body) : undefined,
    });
    return { status: res.status, body: await res.json() };
  };
  const checked = {};
  for (let i = 0; i < 20 * Object.keys(kinds).length; i++) {
    const r = next();
    const [a, b] = await Promise.all([fetchJson(servicePort, r), fetchJson(baselinePort, r)]);
    if (a.status !== 200 || !isDeepStrictEqual(a, b)) {
      throw new Error(`service and baseline disagree on ${r.name} ${JSON.stringify(r.body ?? r.path)}:\n${JSON.stringify(a).slice(0, 600)}\n${JSON.stringify(b).slice(0, 600)}`);
    }
    checked[r.name] = (checked[r.name] ?? 0) + (a.body.results?.length ?? a.body.contents?.length ?? 0);
  }
  log('service and baseline agree on', Object.entries(checked).map(([k, n]) => `${k} (${n} rows)`).join(', '));
}

/**
 * One closed-loop round against `side`, with the CPU each process of `pids` spent per
 * request: where the machine's two cores went. `side.warm`, when a phase sets it, runs
 * first, outside the round.
 */
export async function measure(side, next, secs, pids, conns = connections) {
  side.warm?.();
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
  const r = await closedLoop({ url: `http://127.0.0.1:${side.port}`, next, tokens, connections: conns, seconds: secs });
  const requests = r.rps * secs;
  r.cpuMsPerRequest = Object.fromEntries(
    Object.entries(pids).filter(([, pid]) => pid !== undefined).map(([k, pid]) => [k, Math.round(((cpuSeconds(pid) - before[k]) * 1e6) / requests) / 1000]),
  );
  return r;
}

/**
 * One pair: each side runs twice, half of `secs` each time, in the order A B B A, where A
 * is `first`; each side's two halves are joined into one round (req/s over both, CPU per
 * request over both, percentiles over every answer). Both sides get the first half's
 * requests (`seeds[0]`), then both the second's. Why A B B A and not A B: on this VM a
 * round run right after the other side's is slower, whichever side it is, and the
 * machine's speed drifts within seconds; A B B A puts each side once in each place and
 * cancels a drift that is steady over the pair.
 */
export async function pairRounds(sides, first, makeNext, seeds, secs, mysqld) {
  const second = first === 'service' ? 'baseline' : 'service';
  const halves = { service: [], baseline: [] };
  for (const [side, seed] of [[first, seeds[0]], [second, seeds[0]], [second, seeds[1]], [first, seeds[1]]]) {
    halves[side].push(await measure(sides[side], makeNext(seed), secs / 2, pidsOf(sides[side], mysqld)));
  }
  const join = ([x, y]) => {
    const r = joinRounds(x, y);
    const nx = x.raw.latencies.length;
    const ny = y.raw.latencies.length;
    r.cpuMsPerRequest = Object.fromEntries(Object.keys(x.cpuMsPerRequest).map((k) => [k, Math.round(((x.cpuMsPerRequest[k] * nx + y.cpuMsPerRequest[k] * ny) / (nx + ny)) * 1000) / 1000]));
    return r;
  };
  return { service: join(halves.service), baseline: join(halves.baseline) };
}

/** Service first in odd pairs, baseline first in even ones. */
export const firstOf = (i) => (i % 2 === 1 ? 'service' : 'baseline');

export const pidsOf = (side, mysqld) => ({ server: side.child.pid, ...(mysqld ? { mysqld } : {}), loadGenerator: process.pid });

export function reportBad(label, r) {
  const bad = Object.entries(r.statuses).filter(([st]) => st !== '200');
  if (bad.length > 0 || r.errors > 0) log(`  ${label}: non-200 ${JSON.stringify(Object.fromEntries(bad))}, errors ${r.errors}`);
}

/** The kinds a per-kind phase times: `--kinds`, or every kind of the mix. */
export const kindNames = (kinds) => (opts.kinds ? opts.kinds.split(',') : Object.keys(kinds));
