// `--only flood`: query latency while registrations at production scrypt cost flood the
// service, against the same paced load idle.
import mysql from 'mysql2/promise';
import { closedLoop, paced } from './load.mjs';
import { mixSequence } from './mix.mjs';
import { childPids, cpuSeconds, peakRssMb } from './processes.mjs';
import { opts, seconds, warmup, connections, floodWindows, serverUrl, main, log, ratio, median, tokens, serviceEnv } from './context.mjs';
import { connectionOf } from './seed.mjs';

/**
 * Query latency at a quarter of the service's capacity, idle and during a flood of
 * registrations, alternating idle/flood windows like the A/B rounds (other work on the
 * machine moves a single window's p99 a lot); `--flood-windows` pairs of them; the ratio
 * is the median over the pairs.
 */
export async function flood(service, kinds, results) {
  const url = `http://127.0.0.1:${service.port}`;
  const rate = Number(opts['flood-rate']) || Math.max(20, Math.round((await mixCapacity(url, kinds, results)) / 4));
  log(`flood: query mix paced at ${rate} req/s, ${floodWindows} x (${seconds} s idle, ${seconds} s during a flood of registrations from 32 connections)`);
  const tag = Date.now().toString(36);
  let n = 0;
  const windows = [];
  const registrations = [];
  for (let i = 0; i < floodWindows; i++) {
    const idle = await paced({ url, next: mixSequence(kinds, 7 + i), tokens, rate, seconds });
    const floodRun = closedLoop({
      url,
      tokens,
      connections: 32,
      seconds: seconds + 2,
      next: () => ({ name: 'register', method: 'POST', path: '/register', role: 'admin', body: { userName: `flood${tag}x${n++}`, password: 'correct horse battery staple' } }),
    });
    // The flood's first second fills the hash queue; the window starts once it is steady.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const during = await paced({ url, next: mixSequence(kinds, 7 + i), tokens, rate, seconds });
    const r = await floodRun;
    registrations.push({ rps: r.rps, p50: r.p50, p99: r.p99, statuses: r.statuses });
    windows.push({ idle, duringFlood: during, p99Ratio: ratio(during.p99, idle.p99) });
    log(`flood ${i + 1}: query p99 idle ${idle.p99} ms, during flood ${during.p99} ms (x${ratio(during.p99, idle.p99)}); registrations ${r.rps}/s ${JSON.stringify(r.statuses)}`);
    // Let the queue of hashes drain before the next idle window.
    await waitIdle(service.child.pid);
  }
  results.flood = {
    rate,
    hashConcurrency: serviceEnv('').HASH_CONCURRENCY,
    windows,
    registrations,
    idle: { p50: median(windows.map((w) => w.idle.p50)), p99: median(windows.map((w) => w.idle.p99)) },
    duringFlood: { p50: median(windows.map((w) => w.duringFlood.p50)), p99: median(windows.map((w) => w.duringFlood.p99)) },
    p99Ratio: median(windows.map((w) => w.p99Ratio)),
  };
  results.rss.serviceWithFloodMb = peakRssMb(service.child.pid);
  // The service hashes in a child process (design.md §5): its memory counts too.
  results.rss.hasherWithFloodMb = childPids(service.child.pid).reduce((mb, pid) => mb + peakRssMb(pid), 0);
  await cleanFloodUsers();
}

/**
 * The service's req/s on the mix: the median of the mix rounds, or, when the flood runs
 * without them (`--only flood`), one closed-loop round of the mix after a warm-up, so the
 * flood's pace is the same quarter of capacity either way.
 */
export async function mixCapacity(url, kinds, results) {
  if (results.rounds.length) return median(results.rounds.map((r) => r.service.rps));
  await closedLoop({ url, next: mixSequence(kinds, 1), tokens, connections, seconds: warmup });
  const r = await closedLoop({ url, next: mixSequence(kinds, 2), tokens, connections, seconds });
  log(`flood: service capacity on the mix ${r.rps} req/s`);
  return r.rps;
}

/**
 * Resolves once the service is idle again: the flood's clients are gone, but the hashes
 * they queued (up to 31 x 0.3 s) still run after them, in the service's hashing process.
 * Idle = the service and its children use under 10% of a core for 1 s.
 */
export async function waitIdle(pid) {
  const cpu = () => [pid, ...childPids(pid)].reduce((s, p) => s + cpuSeconds(p), 0);
  for (let i = 0; i < 60; i++) {
    const before = cpu();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (cpu() - before < 0.1) return;
  }
}

export async function cleanFloodUsers() {
  const conn = await mysql.createConnection({ ...connectionOf(serverUrl), database: main.database });
  await conn.query("DELETE FROM app_user WHERE user_name LIKE 'flood%'");
  await conn.end();
}
