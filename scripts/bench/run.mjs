// `make bench`: the service against the floor of its own libraries and that floor against a
// bare baseline, and WORKERS=2 against 1, on the same data, requests and machine, on MySQL
// and SQLite; the cost of query shapes at 10k, 100k and 1M rows; an export of 1M rows as
// CSV; and the CPU of a 304 against the same GET answered 200. Writes scripts/bench/results.json and prints one table (README.md here).
//
//   node scripts/bench/run.mjs [--only compare,workers,scale,export,etag,live|flood|load] [--engines mysql,sqlite]
//                              [--pairs 5] [--seconds 6] [--warmup 5] [--connections 16]
//                              [--service-env K=V,...] [--load-rows 1000000,10000000]
//                              [--results file] [--quick] [--summary] [--help]
//
// --quick: every phase end to end on tables a hundred times smaller, 2 short pairs, results in
// out/results-quick.json. --summary: prints the table of the results file, runs nothing.
// `flood` and `load` run only when named. MYSQL_URL (default mysql://root@127.0.0.1:3306/test)
// names the MySQL server; the bench makes its own databases there (impianti_bench_*).
import fs from 'node:fs';
import os from 'node:os';
import { opts, only, engines, pairs, seconds, warmup, connections, resultsFile, sizes, out, log, appRoot } from './context.mjs';
import { comparePhase } from './phase-compare.mjs';
import { exportPhase } from './phase-export.mjs';
import { etagPhase } from './phase-etag.mjs';
import { floodPhase } from './phase-flood.mjs';
import { loadPhase } from './phase-load.mjs';
import { scalePhase } from './phase-scale.mjs';
import { livePhase } from './phase-live.mjs';
import { workersPhase } from './phase-workers.mjs';
import { printSummary, targets } from './summary.mjs';

/** The phases in the order they run, each when `--only` names it. */
const phases = {
  compare: (results) => forEachEngine((e) => comparePhase(e, results)),
  workers: (results) => forEachEngine((e) => workersPhase(e, results)),
  scale: (results) => forEachEngine((e) => scalePhase(e, results)),
  export: (results) => forEachEngine((e) => exportPhase(e, results)),
  etag: (results) => forEachEngine((e) => etagPhase(e, results)),
  live: (results) => forEachEngine((e) => livePhase(e, results)),
  flood: (results) => floodPhase(results),
  load: () => loadPhase({
    appRoot: appRoot(), out, log,
    sizes: opts['load-rows'].split(',').map((n) => Number(n) / (opts.quick ? 100 : 1)),
    resultsFile: new URL(opts.quick ? 'out/results-load-quick.json' : 'results-load.json', import.meta.url).pathname,
  }),
};

async function forEachEngine(run) {
  for (const engine of engines) await run(engine);
}

async function main() {
  if (opts.summary) return printSummary(JSON.parse(fs.readFileSync(resultsFile, 'utf8')));
  const started = Date.now();
  const results = {
    date: new Date().toISOString(),
    machine: { cpus: os.availableParallelism(), cpuModel: os.cpus()[0]?.model, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    config: { pairs, seconds, warmup, connections, quick: opts.quick, sizes, serviceEnv: opts['service-env'] },
    startup: [],
  };
  for (const [name, run] of Object.entries(phases)) {
    if (!only.has(name)) continue;
    log(`phase ${name}`);
    await run(results);
  }
  if (only.size === 1 && only.has('load')) return;
  results.durationS = Math.round((Date.now() - started) / 1000);
  // The machine's 1-minute load average as the run ends: other work that shared it.
  results.machine.loadAverage = os.loadavg()[0];
  results.targets = targets(results);
  fs.writeFileSync(resultsFile, JSON.stringify(results, null, 2) + '\n');
  printSummary(results);
  console.log(`written: ${resultsFile} (${results.durationS} s)`);
}

if (opts.help) {
  const usage = fs.readFileSync(new URL(import.meta.url), 'utf8').split('\n');
  console.log(usage.slice(0, usage.findIndex((l) => !l.startsWith('//'))).map((l) => l.slice(3)).join('\n'));
} else {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
