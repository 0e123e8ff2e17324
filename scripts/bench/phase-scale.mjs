// `--only scale`: the indexed kinds at 10k, 100k and 1M rows, and the query shapes of
// scale-queries.mjs on both engines at each size.
import mysql from 'mysql2/promise';
import { closedLoop } from './load.mjs';
import { indexedKind, mixSequence } from './mix.mjs';
import { settled, startRecord, stop } from './processes.mjs';
import { connectionOf, seedSqlite } from './seed.mjs';
import { timeShapes } from './scale-queries.mjs';
import { out, opts, seconds, warmup, scaleSizes, log, ratio, median, tokens, startService, appRoot } from './context.mjs';

/**
 * p50 of one indexed lookup, one request at a time, at each table size: a service per
 * database (started one after the other, each start timed once the one before has
 * settled), then windows alternating between them, so that other work on the machine falls
 * on all three alike.
 */
export async function scale(urls, results) {
  const services = [];
  for (const size of scaleSizes) {
    const service = await startService(urls[size.label], `service-${size.label}`);
    results.startup.push(startRecord(`scale ${size.label}`, service));
    // The next start is timed alone, not beside this one's background work.
    await settled(service.child.pid);
    services.push({ size, service, url: `http://127.0.0.1:${service.port}`, kinds: indexedKind(size), windows: [] });
  }
  try {
    for (const s of services) await closedLoop({ url: s.url, next: mixSequence(s.kinds, 1), tokens, connections: 1, seconds: Math.max(2, Math.round(warmup / 2)) });
    const windows = opts.quick ? 1 : 3;
    for (let i = 0; i < windows; i++) {
      for (const s of services) s.windows.push(await closedLoop({ url: s.url, next: mixSequence(s.kinds, 10 + i), tokens, connections: 1, seconds: Math.max(3, Math.round(seconds / 3)) }));
    }
    for (const s of services) {
      const w = s.windows;
      results.scale[s.size.label] = { rows: s.size.soggettoRecapito, p50: median(w.map((r) => r.p50)), p99: median(w.map((r) => r.p99)), rps: median(w.map((r) => r.rps)), windows: w.map((r) => ({ p50: r.p50, p99: r.p99, rps: r.rps })) };
      log(`scale ${s.size.label}: p50 ${results.scale[s.size.label].p50} ms (windows ${w.map((r) => r.p50).join(', ')}), ready in ${s.service.readyMs} ms`);
    }
  } finally {
    for (const s of services) await stop(s.service.child);
  }
  results.scale.p50Ratio1MTo10k = ratio(results.scale['1M'].p50, results.scale['10k'].p50);
}

/** Each search shape of scale-queries.mjs at every size, on MySQL and on SQLite. */
export async function scaleQueries(urls, results) {
  results.scaleQueries = { mysql: {}, sqlite: {} };
  for (const size of scaleSizes) {
    const conn = await mysql.createConnection({ ...connectionOf(urls[size.label]) });
    await conn.query('ANALYZE TABLE soggetto_recapito');
    await conn.end();
    const file = new URL(`scale-${size.label}.sqlite`, out).pathname;
    await seedSqlite(file, size, { root: appRoot, log: (m) => log(`seed sqlite ${size.label}: ${m}`) });
    for (const [engine, env] of [['mysql', {}], ['sqlite', { DATABASE_URL: '', SQLITE_FILE: file }]]) {
      const service = await startService(engine === 'mysql' ? urls[size.label] : '', `scale-queries-${engine}-${size.label}`, env);
      try {
        // The validators a service compiles a second after /ready share its main thread: a shape
        // timed meanwhile measures them too (SQLite's no-filter estimate at 1M: 5.4-6.7 ms, 1.2-1.4 once settled).
        await settled(service.child.pid);
        results.scaleQueries[engine][size.label] = await timeShapes(`http://127.0.0.1:${service.port}`, tokens.admin, size.soggettoRecapito, { samples: opts.quick ? 5 : 15 });
        log(`scale queries ${engine} ${size.label}: done`);
      } finally {
        await stop(service.child);
      }
    }
  }
}
