// `--only sqlite`: the mix and every kind again, both servers on one 1M-row SQLite file.
import { mixKinds } from './mix.mjs';
import { peakRssMb, readThrough, startRecord, stop } from './processes.mjs';
import { seedSqlite } from './seed.mjs';
import { opts, sqliteFile, only, main, log, startService, startBaseline, appRoot } from './context.mjs';
import { kindRounds } from './phase-kinds.mjs';
import { mixRounds } from './phase-mix.mjs';
import { profileSides, profiled, profileNext } from './phase-profile.mjs';
import { sideBySideRounds } from './phase-sidebyside.mjs';
import { checkSameAnswers } from './rounds.mjs';

/** The embedded default: both servers on one 1M-row SQLite file, the database inside each process. */
export async function sqliteBench(results) {
  results.seed.sqlite = await seedSqlite(sqliteFile, main, { root: appRoot, log: (m) => log(`seed sqlite: ${m}`) });
  const kinds = mixKinds(main);
  const service = await startService('', 'service-sqlite', { SQLITE_FILE: sqliteFile }, profiled('service'));
  results.startup.push(startRecord('sqlite (1M rows)', service));
  const baseline = await startBaseline({ SQLITE_FILE: sqliteFile }, profiled('baseline'));
  log(`sqlite: service ready in ${service.readyMs} ms, baseline in ${baseline.readyMs} ms`);
  // The file is read into the page cache before every round (readThrough): the pages the
  // machine paged out while a round ran elsewhere are not read back by the side that follows.
  const warm = () => readThrough(sqliteFile);
  const sides = { service: { ...service, warm }, baseline: { ...baseline, warm } };
  await checkSameAnswers(kinds, service.port, baseline.port);
  if (opts.profile) return profileSides(sides, profileNext(kinds), undefined, results);
  if (only.has('sqlite')) {
    const sqlite = { ...(await mixRounds(sides, kinds, undefined, 'sqlite mix')), kinds: await kindRounds(sides, kinds, undefined, 'sqlite') };
    sqlite.rss = { serviceMb: peakRssMb(service.child.pid), baselineMb: peakRssMb(baseline.child.pid) };
    results.sqlite = sqlite;
  }
  if (only.has('sidebyside')) (results.sideBySide ??= {}).sqlite = await sideBySideRounds(sides, kinds, 'sqlite');
  await stop(baseline.child);
  await stop(service.child);
}
