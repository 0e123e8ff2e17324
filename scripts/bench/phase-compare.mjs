// `compare`: the service against the baseline on one engine, on the largest tables: the `in`
// kind alone and the whole mix, in pairs (pairs.mjs), and the service's peak memory.
import { isDeepStrictEqual } from 'node:util';
import { mixKinds, mixSequence } from './mix.mjs';
import { peakRssMb, readThrough, stop, treeOf } from './processes.mjs';
import { pairSeries } from './pairs.mjs';
import { prepare } from './seed.mjs';
import { largest, log, tokens, startService, startBaseline } from './context.mjs';

/** Both servers must give the same answers, or the comparison means nothing. */
async function checkSameAnswers(kinds, a, b) {
  const next = mixSequence(kinds, 4242);
  const fetchJson = async (port, r) => {
    const res = await fetch(`http://127.0.0.1:${port}${r.path}`, {
      method: r.method,
      headers: { Authorization: `Bearer ${tokens[r.role]}`, ...(r.body ? { 'Content-Type': 'application/json' } : {}) },
      body: r.body ? JSON.stringify(r.body) : undefined,
    });
    return { status: res.status, body: await res.json() };
  };
  for (let i = 0; i < 20 * Object.keys(kinds).length; i++) {
    const r = next();
    const [x, y] = await Promise.all([fetchJson(a.port, r), fetchJson(b.port, r)]);
    if (x.status !== 200 || !isDeepStrictEqual(x, y)) {
      throw new Error(`service and baseline disagree on ${r.name} ${JSON.stringify(r.body ?? r.path)}:\n${JSON.stringify(x).slice(0, 600)}\n${JSON.stringify(y).slice(0, 600)}`);
    }
  }
}

/**
 * On SQLite the file is read into the page cache before every round: this machine pages out
 * file pages idle for a minute, and the side that follows a pause would read them back.
 */
export const warmFile = (db) => (db.engine === 'sqlite' ? () => readThrough(db.file) : undefined);

export async function comparePhase(engine, results) {
  const db = await prepare(engine, largest);
  const kinds = mixKinds(largest);
  const service = await startService(db, `service-${engine}`);
  const baseline = await startBaseline(db, `baseline-${engine}`);
  results.startup.push({ where: `compare, ${engine}`, readyMs: service.readyMs });
  try {
    await checkSameAnswers(kinds, service, baseline);
    const sides = { a: { ...service, warm: warmFile(db) }, b: { ...baseline, warm: warmFile(db) } };
    const compare = {};
    for (const [kind, names] of [['in', ['in']], ['mix', Object.keys(kinds)]]) {
      compare[kind] = await pairSeries(sides, kinds, names, `${engine} ${kind}, service / baseline`);
    }
    compare.peakRssMb = Math.max(...treeOf(service.child.pid).map(peakRssMb));
    (results.compare ??= {})[engine] = compare;
    log(`${engine}: in ${compare.in.rps.median}, mix ${compare.mix.rps.median} x the baseline's req/s; peak RSS ${compare.peakRssMb} MB`);
  } finally {
    await stop(baseline.child);
    await stop(service.child);
  }
}
