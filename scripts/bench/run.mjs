// `make bench`: the service against a hand-written baseline on the same data and mix,
// plus start-up time, memory, scaling with table size and a registration flood.
// Writes scripts/bench/results.json and results.svg; prints a summary.
//
//   node scripts/bench/run.mjs [--rounds 5] [--seconds 10] [--connections 16] [--warmup 10]
//                              [--pairs 9] [--kind-seconds 4] [--flood-windows 5]
//                              [--only mix,kinds,sqlite,scale,flood,load,instructions,sidebyside]
//                              [--quick] [--profile] [--profile-kind point] [--engine mysql|sqlite]
//                              [--kinds point,files] [--flood-rate N] [--service-env K=V,...]
//                              [--instruction-requests 1000] [--load-rows 1000000,10000000] [--help]
// `load` (phase-load.mjs) times `npm run load` against each engine's own bulk loader.
// `kinds` times each kind of the mix alone (rounds of that kind only, the two sides
// alternating); `sqlite` runs the mix and every kind again with both servers on a 1M-row
// SQLite file. `--only instructions` (not in the default run: about 30 minutes) counts,
// under callgrind, the instructions each server executes per request of each kind on both
// engines (instructions.mjs): the same count however fast the machine runs.
// `--only sidebyside` (not in the default run either: about 11 minutes) loads both servers
// at once with each kind, on both engines, so that both run on the machine as it is at
// that moment: their CPU per request compared without the machine's drift. --profile
// runs one round (of the mix, or of --profile-kind alone) against each side under
// --cpu-prof, on --engine, and prints the CPU each layer (socket writes, node, knex, our
// code...) costs per request on each; the .cpuprofile files stay in scripts/bench/out/,
// for Chrome DevTools.
// MYSQL_URL (default mysql://root@127.0.0.1:3306/test) names the server; the bench uses
// its own databases impianti_bench (1M rows), impianti_bench_100k and impianti_bench_10k.
// `load` alone does not use it: it starts a private MariaDB of its own.
import fs from 'node:fs';
import os from 'node:os';
import { renderChart } from './chart.mjs';
import { mixKinds } from './mix.mjs';
import { seedDatabase } from './seed.mjs';
import { out, opts, rounds, seconds, warmup, connections, pairs, kindSeconds, floodWindows, only, serverUrl, main, scaleSizes, log, deployedNodeFlags, mysqlFacts, serviceEnv, appRoot, setAppRoot, snapshotBuild } from './context.mjs';
import { instructionBench } from './phase-instructions.mjs';
import { loadPhase } from './phase-load.mjs';
import { mixBench } from './phase-mix.mjs';
import { scale, scaleQueries } from './phase-scale.mjs';
import { sqliteBench } from './phase-sqlite.mjs';
import { printSummary, targets } from './summary.mjs';

/**
 * The phases after seeding, in order: each runs when its `--only` name (or one it serves)
 * is asked for. A new phase is a file phase-<name>.mjs and one entry here.
 */
const phases = [
  { when: () => ['mix', 'kinds', 'flood', 'sidebyside'].some((p) => only.has(p)), run: (urls, results) => mixBench(urls['1M'], results) },
  { when: () => only.has('sqlite') || only.has('sidebyside'), run: (urls, results) => sqliteBench(results) },
  { when: () => only.has('instructions'), run: (urls, results) => instructionBench(urls['1M'], results) },
  { when: () => only.has('scale'), run: (urls, results) => scale(urls, results).then(() => scaleQueries(urls, results)) },
];

async function mainRun() {
  const started = Date.now();
  setAppRoot(process.env.BENCH_APP_DIR ? new URL(`file://${process.env.BENCH_APP_DIR.replace(/\/?$/, '/')}`) : snapshotBuild());
  // Loading needs none of the seeded databases nor MYSQL_URL's server: it makes its own
  // files, and its own MariaDB server.
  if (only.has('load')) await loadPhase({ appRoot, out, log, sizes: opts['load-rows'].split(',').map(Number), resultsFile: new URL('results-load.json', import.meta.url).pathname });
  if (only.size === 1 && only.has('load')) return;
  const results = {
    date: new Date().toISOString(),
    serviceEnv: { ...serviceEnv('(url)'), JWT_SECRET: '(bench secret)' },
    serviceNodeFlags: deployedNodeFlags,
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version, mysql: await mysqlFacts() },
    config: { rounds, seconds, connections, warmup, pairs, kindSeconds, floodWindows, sizes: main, mix: Object.keys(mixKinds(main)) },
    seed: {},
    rounds: [],
    median: undefined,
    rss: {},
    startup: [],
    scale: {},
    flood: undefined,
  };
  const urls = {};
  for (const size of scaleSizes) {
    if (size.label !== '1M' && !only.has('scale')) continue;
    const { url, stats } = await seedDatabase(serverUrl, size.database, size, { root: appRoot, log: (m) => log(`seed ${size.database}: ${m}`) });
    urls[size.label] = url;
    results.seed[size.database] = stats;
  }
  if (opts.profile) {
    await (opts.engine === 'sqlite' ? sqliteBench(results) : mixBench(urls['1M'], results));
    printProfiles(results);
    return;
  }
  for (const phase of phases) if (phase.when()) await phase.run(urls, results);
  results.targets = targets(results);
  results.durationS = Math.round((Date.now() - started) / 1000);
  fs.writeFileSync(opts.results, JSON.stringify(results, null, 2) + '\n');
  fs.writeFileSync(opts.results.replace(/\.json$/, '.svg'), renderChart(results));
  printSummary(results);
}

if (opts.help) {
  // The usage is this file's opening comment.
  const usage = fs.readFileSync(new URL(import.meta.url), 'utf8').split('\n');
  console.log(usage.slice(0, usage.findIndex((l) => !l.startsWith('//'))).map((l) => l.slice(3)).join('\n'));
  process.exit(0);
}

mainRun().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

function printProfiles(results) {
  const summaryFile = new URL('profile.json', out);
  fs.writeFileSync(summaryFile, JSON.stringify(results.profile, null, 2) + '\n');
  console.log(`profiles: ${results.profile.service.file}, ${results.profile.baseline.file}; summaries in ${summaryFile.pathname}`);
  const layers = [...new Set(Object.values(results.profile).flatMap((p) => Object.keys(p.perRequestUs)))];
  console.log('\nMain-thread µs per request by layer, measured round only (wall clock: running or preempted):');
  console.log('layer'.padEnd(32), 'service'.padStart(8), 'baseline'.padStart(9));
  for (const l of layers) console.log(l.padEnd(32), String(results.profile.service.perRequestUs[l] ?? 0).padStart(8), String(results.profile.baseline.perRequestUs[l] ?? 0).padStart(9));
  const sum = (side) => Object.values(results.profile[side].perRequestUs).reduce((a, b) => a + b, 0);
  console.log('total'.padEnd(32), String(sum('service')).padStart(8), String(sum('baseline')).padStart(9));
}
