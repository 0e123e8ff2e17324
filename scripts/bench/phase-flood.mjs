// `--only flood` (not in the default run): query latency on MySQL while registrations at
// production scrypt cost flood the service, against the same paced load idle. Windows idle
// and during a flood alternate, since other work on the machine moves one window's p99 a lot.
import mysql from 'mysql2/promise';
import { closedLoop, paced } from './load.mjs';
import { mixKinds, mixSequence } from './mix.mjs';
import { cpuSeconds, stop, treeOf } from './processes.mjs';
import { connectionOf, prepare } from './seed.mjs';
import { pairs, seconds, warmup, connections, largest, log, median, round3, startService } from './context.mjs';

/** Resolves once the service's tree uses under a tenth of a core for a second: the queued hashes are done. */
async function waitIdle(pid) {
  const cpu = () => treeOf(pid).reduce((s, p) => s + cpuSeconds(p), 0);
  for (let i = 0; i < 60; i++) {
    const before = cpu();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (cpu() - before < 0.1) return;
  }
}

export async function floodPhase(results) {
  const db = await prepare('mysql', largest);
  const kinds = mixKinds(largest);
  // With the per-client limit (10 a minute) one client would mostly get 429s, never scrypt.
  const service = await startService(db, 'service-flood', { RATE_LIMIT_REGISTER_PER_MIN: '0' });
  const port = service.port;
  try {
    await closedLoop({ port, next: mixSequence(kinds, 1), connections, seconds: warmup });
    const capacity = await closedLoop({ port, next: mixSequence(kinds, 2), connections, seconds });
    const rate = Math.max(20, Math.round(capacity.latencies.length / capacity.seconds / 4));
    log(`flood: the mix paced at ${rate} req/s (a quarter of capacity), ${pairs} x (${seconds} s idle, ${seconds} s during a flood from 32 connections)`);
    const windows = [];
    let n = 0;
    for (let i = 0; i < pairs; i++) {
      const idle = await paced({ port, next: mixSequence(kinds, 7 + i), rate, seconds });
      const register = () => ({ method: 'POST', path: '/register', role: 'admin', body: { userName: `flood${Date.now().toString(36)}x${n++}`, password: 'correct horse battery staple' } });
      const flood = closedLoop({ port, next: register, connections: 32, seconds: seconds + 2 });
      // The flood's first second fills the hash queue; the window starts once it is steady.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const during = await paced({ port, next: mixSequence(kinds, 7 + i), rate, seconds });
      const registrations = await flood;
      windows.push({ idle, during, p99Ratio: round3(during.p99 / idle.p99), registrations: registrations.statuses });
      log(`flood ${i + 1}: query p99 ${idle.p99} ms idle, ${during.p99} ms during the flood; registrations ${JSON.stringify(registrations.statuses)}`);
      await waitIdle(service.child.pid);
    }
    results.flood = { rate, windows, idleP99: median(windows.map((w) => w.idle.p99)), duringP99: median(windows.map((w) => w.during.p99)), p99Ratio: round3(median(windows.map((w) => w.p99Ratio))) };
  } finally {
    await stop(service.child);
    const conn = await mysql.createConnection(connectionOf(db.url));
    await conn.query("DELETE FROM app_user WHERE user_name LIKE 'flood%'");
    await conn.end();
  }
}
