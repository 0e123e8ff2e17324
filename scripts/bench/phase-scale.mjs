// `scale`: the query shapes of scale-queries.mjs at every table size, on one engine, each
// against a service started for that database and timed once it has settled.
import { settled, stop } from './processes.mjs';
import { timeShapes } from './scale-queries.mjs';
import { prepare } from './seed.mjs';
import { opts, sizes, log, tokens, startService } from './context.mjs';

export async function scalePhase(engine, results) {
  for (const size of sizes) {
    const db = await prepare(engine, size);
    const service = await startService(db, `scale-${engine}-${size.label}`);
    results.startup.push({ where: `scale ${size.label}, ${engine}`, readyMs: service.readyMs });
    try {
      await settled(service.child.pid);
      const shapes = await timeShapes(service.port, tokens.admin, size.soggettoRecapito, opts.quick ? { samples: 3 } : {});
      ((results.scale ??= {})[engine] ??= {})[size.label] = shapes;
      log(`scale ${engine} ${size.label}: ${Object.keys(shapes).length} shapes timed`);
    } finally {
      await stop(service.child);
    }
  }
}
