// `workers`: the service with WORKERS=2 against WORKERS=1 on one engine, on the largest
// tables, the load generator on the same two cores: the `in` kind and the mix in pairs
// (pairs.mjs), the peak memory of each process of the service, and the CPU each used.
import { mixKinds } from './mix.mjs';
import { peakRssMb, settled, stop, treeOf } from './processes.mjs';
import { pairSeries } from './pairs.mjs';
import { prepare } from './seed.mjs';
import { largest, log, round3, startService } from './context.mjs';
import { warmFile } from './phase-compare.mjs';

/** Each process of a service's tree: its peak RSS, and the CPU seconds it used in the pairs. */
function processesOf(service, cpuSeconds) {
  return treeOf(service.child.pid).map((pid) => ({ pid, peakRssMb: peakRssMb(pid), cpuSeconds: round3(cpuSeconds.reduce((s, byPid) => s + (byPid[pid] ?? 0), 0)) }));
}

export async function workersPhase(engine, results) {
  const db = await prepare(engine, largest);
  const kinds = mixKinds(largest);
  // Each start is timed alone: the second once the first has settled.
  const two = await startService(db, `workers2-${engine}`, { WORKERS: '2' });
  await settled(two.child.pid);
  const one = await startService(db, `workers1-${engine}`, { WORKERS: '1' });
  results.startup.push({ where: `WORKERS=2, ${engine}`, readyMs: two.readyMs }, { where: `WORKERS=1, ${engine}`, readyMs: one.readyMs });
  try {
    await settled(one.child.pid);
    const sides = { a: { ...two, warm: warmFile(db) }, b: { ...one, warm: warmFile(db) } };
    const workers = {};
    for (const [kind, names] of [['in', ['in']], ['mix', Object.keys(kinds)]]) {
      workers[kind] = await pairSeries(sides, kinds, names, `${engine} ${kind}, WORKERS=2 / 1`);
    }
    workers.processes = processesOf(two, [workers.in.cpuSecondsByPidA, workers.mix.cpuSecondsByPidA]);
    workers.peakRssMb = Math.max(...workers.processes.map((p) => p.peakRssMb), ...treeOf(one.child.pid).map(peakRssMb));
    (results.workers ??= {})[engine] = workers;
    log(`${engine}: WORKERS=2 / 1: in ${workers.in.rps.median}, mix ${workers.mix.rps.median}; processes ${JSON.stringify(workers.processes)}`);
  } finally {
    await stop(one.child);
    await stop(two.child);
  }
}
