// `compare`: the service against the floor of its own libraries (floor.mjs) and the floor
// against the bare baseline (baseline.mjs), on one engine, on the largest tables: the `in`
// kind alone and the whole mix, the three sides in the same pairs (pairs.mjs), and the
// service's peak memory.
import { isDeepStrictEqual } from 'node:util';
import { mixKinds, mixSequence } from './mix.mjs';
import { peakRssMb, readThrough, stop, treeOf } from './processes.mjs';
import { ratio, series } from './pairs.mjs';
import { prepare } from './seed.mjs';
import { largest, log, tokens, startService, startFloor, startBaseline } from './context.mjs';

/** Each side must give the other's answers, or the comparison means nothing. */
async function checkSameAnswers(kinds, sides) {
  const next = mixSequence(kinds, 4242);
  const fetchJson = async (port, r) => {
    const res = await fetch(`http://127.0.0.1:${port}${r.path}`, {
      method: r.method,
      headers: { Authorization: `Bearer ${tokens[r.role]}`, ...(r.body ? { 'Content-Type': 'application/json' } : {}) },
      body: r.body ? JSON.stringify(r.body) : undefined,
    });
    return { status: res.status, body: await res.json() };
  };
  const names = Object.keys(sides);
  for (let i = 0; i < 20 * Object.keys(kinds).length; i++) {
    const r = next();
    const answers = await Promise.all(names.map((n) => fetchJson(sides[n].port, r)));
    for (let k = 1; k < names.length; k++) {
      const [x, y] = [answers[k - 1], answers[k]];
      if (x.status !== 200 || !isDeepStrictEqual(x, y)) {
        throw new Error(`${names[k - 1]} and ${names[k]} disagree on ${r.name} ${JSON.stringify(r.body ?? r.path)}:\n${JSON.stringify(x).slice(0, 600)}\n${JSON.stringify(y).slice(0, 600)}`);
      }
    }
  }
}

/**
 * On SQLite the file is read into the page cache before every round: this machine pages out
 * file pages idle for a minute, and the side that follows a pause would read them back.
 */
export const warmFile = (db) => (db.engine === 'sqlite' ? () => readThrough(db.file) : undefined);

/**
 * The figures of one kind: each side's medians; `serviceFloor` and `floorBare`, the ratios
 * the targets read and what the libraries cost; `rps` and `cpu`, service / bare.
 */
function comparison(s) {
  return { sides: s.sides, serviceFloor: ratio(s, 'service', 'floor'), floorBare: ratio(s, 'floor', 'bare'), ...ratio(s, 'service', 'bare'), pairs: s.pairs };
}

export async function comparePhase(engine, results) {
  const db = await prepare(engine, largest);
  const kinds = mixKinds(largest);
  const service = await startService(db, `service-${engine}`);
  const floor = await startFloor(db, `floor-${engine}`);
  const bare = await startBaseline(db, `baseline-${engine}`);
  results.startup.push({ where: `compare, ${engine}`, readyMs: service.readyMs });
  try {
    const started = { service, floor, bare };
    // Floor between the two: the service is checked against the floor, the floor against the bare side.
    await checkSameAnswers(kinds, started);
    const sides = Object.fromEntries(Object.entries(started).map(([n, s]) => [n, { ...s, warm: warmFile(db) }]));
    const compare = {};
    for (const [kind, names] of [['in', ['in']], ['mix', Object.keys(kinds)]]) {
      compare[kind] = comparison(await series(sides, kinds, names, `${engine} ${kind}, service / floor / bare`));
    }
    compare.peakRssMb = Math.max(...treeOf(service.child.pid).map(peakRssMb));
    compare.floorPeakRssMb = peakRssMb(floor.child.pid);
    compare.barePeakRssMb = peakRssMb(bare.child.pid);
    (results.compare ??= {})[engine] = compare;
    const line = (k) => `${k}: service / floor ${compare[k].serviceFloor.rps.median} req/s, ${compare[k].serviceFloor.cpu.median} CPU; floor / bare ${compare[k].floorBare.rps.median}, ${compare[k].floorBare.cpu.median}`;
    log(`${engine}: ${line('in')}; ${line('mix')}; peak RSS ${compare.peakRssMb} MB`);
  } finally {
    await stop(bare.child);
    await stop(floor.child);
    await stop(service.child);
  }
}
