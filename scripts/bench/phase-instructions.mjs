// `--only instructions`: instructions per request of each kind under callgrind, on both
// engines (instructions.mjs): a count that does not depend on the machine's speed.
import fs from 'node:fs';
import { closedLoop } from './load.mjs';
import { mixKinds, mixSequence } from './mix.mjs';
import { stop } from './processes.mjs';
import { seedSqlite } from './seed.mjs';
import { callgrindWrapper, checkValgrind, countWindows } from './instructions.mjs';
import { out, opts, sqliteFile, main, log, ratio, startService, startBaseline, appRoot, tokens } from './context.mjs';
import { kindNames } from './rounds.mjs';

/**
 * Instructions per request of each kind on each engine (instructions.mjs): both servers under
 * callgrind, started afresh for each kind, warmed as the closed-loop rounds warm them (the
 * mix, then the kind), then three windows of `--instruction-requests` requests of the kind
 * counted. The two sides run at once: a count does not depend on what else runs.
 */
export async function instructionBench(mainUrl, results) {
  log(`instructions: ${await checkValgrind()}`);
  results.seed.sqlite = await seedSqlite(sqliteFile, main, { root: appRoot, log: (m) => log(`seed sqlite: ${m}`) });
  const kinds = mixKinds(main);
  const names = kindNames(kinds);
  const counted = Number(opts['instruction-requests']);
  // Seconds of the mix, then of the kind, before counting three windows of the kind
  // (instructions.mjs). Under callgrind a cheap request takes some 50 times as long, and
  // with less warm-up the count still held V8's compiling (a `point` request counted
  // 1.7-2.0 M instructions after 1,300 requests, 0.6 M after 10,000).
  const warm = { mixSeconds: 30, kindSeconds: 20 };
  // Four connections, fewer than the pool's ten: under callgrind a request that waited for a
  // pooled connection behind 15 others outlived the pool's acquire timeout (a 503).
  const loadConnections = 4;
  // callgrind_control finds a process by USER and HOST; the servers run with HOST=127.0.0.1.
  const controlEnv = { ...process.env, HOST: '127.0.0.1' };
  const windows = 3;
  const instructions = { requests: counted, windows, connections: loadConnections, warmup: warm, mysql: {}, sqlite: {} };
  const file = (side) => new URL(`callgrind-${side}.out`, out).pathname;
  for (const engine of ['mysql', 'sqlite']) {
    for (const name of names) {
      // A dump is <file>.<n>, numbered from 1 in each process: none may be left from the last kind.
      for (const f of fs.readdirSync(out)) if (/^callgrind-\w+\.out/.test(f)) fs.rmSync(new URL(f, out));
      const launch = (side) => ({ wrapper: callgrindWrapper(file(side)), readyWithinMs: 180_000 });
      const service = engine === 'mysql'
        ? await startService(mainUrl, 'callgrind-service', {}, [], launch('service'))
        : await startService('', 'callgrind-service', { SQLITE_FILE: sqliteFile }, [], launch('service'));
      const baseline = await startBaseline(engine === 'mysql' ? { DATABASE_URL: mainUrl } : { SQLITE_FILE: sqliteFile }, [], launch('baseline'));
      const sides = { service, baseline };
      const count = async (side) => {
        const load = (next, length) => closedLoop({ url: `http://127.0.0.1:${sides[side].port}`, next, tokens, connections: loadConnections, ...length });
        await load(mixSequence(kinds, 1), { seconds: warm.mixSeconds });
        await load(mixSequence(kinds, 2, [name]), { seconds: warm.kindSeconds });
        let seed = 3;
        const counts = await countWindows(sides[side], controlEnv, file(side), async () => {
          const r = await load(mixSequence(kinds, seed++, [name]), { amount: counted });
          if (r.statuses['200'] !== counted) throw new Error(`${engine} ${name} ${side} under callgrind: ${JSON.stringify(r.statuses)}, errors ${r.errors}`);
          return counted;
        }, windows);
        await stop(sides[side].child);
        return counts;
      };
      const [a, b] = await Promise.all([count('service'), count('baseline')]);
      instructions[engine][name] = { service: a.perRequest, baseline: b.perRequest, ratio: ratio(a.perRequest, b.perRequest), windows: { service: a.windows, baseline: b.windows } };
      log(`instructions ${engine} ${name}: service ${a.perRequest} a request (windows ${a.windows.join(', ')}), baseline ${b.perRequest} (${b.windows.join(', ')}), ratio ${ratio(a.perRequest, b.perRequest)}`);
    }
  }
  results.instructions = instructions;
}
