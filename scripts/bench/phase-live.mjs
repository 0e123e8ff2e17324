// `live` (per engine): live answers (design.md §7, "Live answers") on the largest tables.
// 1,000 event streams over 100 distinct requests, then 10,000: the time from a write's
// commit to each stream's event (p50, p99), the executions one write causes (/metrics'
// live_reruns_total), and, with no writes, the service's CPU and its resident memory.
// A write is an UPDATE of one contact, so the seeded row counts stay as `prepare` expects.
import http from 'node:http';
import mysql from 'mysql2/promise';
import { cpuSeconds, peakRssMb, settled, stop, treeOf } from './processes.mjs';
import { connectionOf, prepare } from './seed.mjs';
import { appRoot, largest, log, opts, round3, startService, tokens } from './context.mjs';
import { percentile } from './load.mjs';

const intervalMs = 500;
const requests = 100;
// The service's heartbeat period (src/handlers/live-answers.ts): idle CPU is read over two
// whole periods, so every window holds the same heartbeat rounds, whenever it starts.
const heartbeatMs = 15_000;

/** A connection that writes the bench database as an operator would: the service's fold() registered on SQLite. */
async function writerOf(db) {
  if (db.engine === 'mysql') {
    const conn = await mysql.createConnection(connectionOf(db.url));
    return { write: (v, id) => conn.query('UPDATE soggetto_recapito SET codice_esterno = ? WHERE id = ?', [v, id]), close: () => conn.end() };
  }
  const { default: Database } = await import('better-sqlite3');
  const { fold, foldFunction } = await import(new URL('dist/src/db/fold.js', appRoot()).href);
  const conn = new Database(db.file);
  conn.pragma('busy_timeout = 5000');
  conn.function(foldFunction, { deterministic: true }, (v) => (typeof v === 'string' ? fold(v) : v));
  const update = conn.prepare('UPDATE soggetto_recapito SET codice_esterno = ? WHERE id = ?');
  return { write: async (v, id) => update.run(v, id), close: async () => conn.close() };
}

/** One event stream on a connection of its own: the arrival time of each event. */
function subscribe(port, path) {
  const arrivals = [];
  const req = http.request({ host: '127.0.0.1', port, path, agent: false, headers: { accept: 'text/event-stream', authorization: `Bearer ${tokens.admin}` } }, (res) => {
    res.setEncoding('utf8');
    let buffer = '';
    res.on('data', (chunk) => {
      buffer += chunk;
      let at;
      while ((at = buffer.indexOf('\n\n')) >= 0) {
        if (buffer.slice(0, at).includes('\ndata: ') || buffer.startsWith('data: ') || buffer.startsWith('id: ')) arrivals.push(performance.now());
        buffer = buffer.slice(at + 2);
      }
    });
    res.on('error', () => undefined);
  });
  req.on('error', () => undefined);
  req.end();
  return { arrivals, close: () => req.destroy() };
}

async function until(done, ms, what) {
  for (const end = Date.now() + ms; !done(); await new Promise((r) => setTimeout(r, 20))) if (Date.now() > end) throw new Error(`live: timed out waiting for ${what}`);
}

async function reruns(port) {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return Number(/^live_reruns_total (\d+)/m.exec(text)?.[1] ?? NaN);
}

/** `n` writes a second or so apart; each stream's delay from each commit to its next event, in ms. */
async function delays(streams, writer, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const before = streams.map((s) => s.arrivals.length);
    await writer.write(`live-${Date.now()}-${i}`, 1);
    const committed = performance.now();
    await until(() => streams.every((s, k) => s.arrivals.length > before[k]), 10_000, 'every stream\'s event');
    for (const [k, s] of streams.entries()) out.push(s.arrivals[before[k]] - committed);
    // A pause of its own length each time, so the writes fall anywhere in the interval, not
    // always just after the read that brought the last event.
    await new Promise((r) => setTimeout(r, 1000 + ((i * 7919) % intervalMs)));
  }
  return out;
}

export async function livePhase(engine, results) {
  const db = await prepare(engine, largest);
  const service = await startService(db, `live-${engine}`, { LIVE_INTERVAL_MS: String(intervalMs), LIVE_MAX_SUBSCRIPTIONS: '20000' });
  const writer = await writerOf(db);
  const streams = [];
  // In batches, as clients arrive: each stream's first answer is a read of its own, and ten
  // thousand at once would wait longer for a read connection than the pool lets them.
  const open = async (count) => {
    for (let opened = 0; opened < count; opened += 100) {
      const batch = [];
      for (let i = 0; i < Math.min(100, count - opened); i++) batch.push(subscribe(service.port, `/json/reply/SoggettoRecapitoQuery?SoggettoIdIn=${(streams.length + batch.length) % requests + 1}&Take=10`));
      streams.push(...batch);
      await until(() => batch.every((s) => s.arrivals.length > 0), 60_000, 'a batch\'s first events');
    }
  };
  try {
    const figures = { intervalMs };
    // --quick: a tenth of the streams, to see the phase run end to end.
    for (const total of opts.quick ? [100, 1000] : [1000, 10_000]) {
      await open(total - streams.length);
      await settled(service.child.pid);
      // The collections that follow opening thousands of streams belong to the opening, not to the idle.
      await new Promise((r) => setTimeout(r, 10_000));
      const pids = treeOf(service.child.pid);
      const cpuBefore = pids.reduce((a, p) => a + cpuSeconds(p), 0);
      await new Promise((r) => setTimeout(r, 2 * heartbeatMs));
      const idleCpu = (pids.reduce((a, p) => a + cpuSeconds(p), 0) - cpuBefore) / ((2 * heartbeatMs) / 1000);
      const runsBefore = await reruns(service.port);
      // Each write lands at its own point of the interval, and a stream's delay is mostly that
      // point: 24 writes at 1,000 streams, where the p99 has a target, make it the interval's
      // p99 rather than its worst of a few.
      const writes = total === 1000 ? 24 : 8;
      const ms = await delays(streams, writer, writes);
      const runsPerWrite = ((await reruns(service.port)) - runsBefore) / writes;
      figures[total] = {
        subscriptions: total,
        requests,
        writeToEventMs: { p50: round3(percentile(ms, 50)), p99: round3(percentile(ms, 99)), max: round3(Math.max(...ms)) },
        rerunsPerWrite: runsPerWrite,
        idleCpuShareOfACore: round3(idleCpu),
        peakRssMb: Math.max(...treeOf(service.child.pid).map(peakRssMb)),
      };
      log(`live ${engine}, ${total} streams: write to event p50 ${figures[total].writeToEventMs.p50} ms, p99 ${figures[total].writeToEventMs.p99} ms; ${runsPerWrite} executions a write; idle CPU ${figures[total].idleCpuShareOfACore} of a core; peak RSS ${figures[total].peakRssMb} MB`);
    }
    (results.live ??= {})[engine] = figures;
  } finally {
    for (const s of streams) s.close();
    await writer.close();
    await stop(service.child);
  }
}
