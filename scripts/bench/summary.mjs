// The targets the results are held to, and the summary printed at the end of a run.
import { printScale, scaleTargets } from './scale-queries.mjs';
import { opts, rounds, pairs, ratio, median } from './context.mjs';

export function targets(results) {
  const t = [];
  const add = (name, value, limit, met) => t.push({ name, value, limit, met });
  const engines = [['mysql', results], ['sqlite', results.sqlite ?? {}]];
  for (const [engine, r] of engines) {
    if (r.median) {
      add(`${engine}: mix throughput / baseline (median ratio)`, r.median.rps, '>= 0.9', r.median.rps >= 0.9);
      add(`${engine}: mix p99 / baseline (median ratio)`, r.median.p99, '<= 1.3', r.median.p99 <= 1.3);
    }
    // The cheapest kind is held to the framework's own overhead; every other kind to 0.9.
    for (const [name, k] of Object.entries(r.kinds ?? {})) {
      if (name === 'point') {
        add(`${engine}: point lookups throughput / baseline`, k.ratio.rps, '>= 0.85', k.ratio.rps >= 0.85);
        add(`${engine}: point lookups p99 / baseline`, k.ratio.p99, '<= 1.3', k.ratio.p99 <= 1.3);
        add(`${engine}: point lookups server CPU per request / baseline`, k.ratio.serverCpu, '<= 1.25', k.ratio.serverCpu <= 1.25);
      } else {
        add(`${engine}: ${name} throughput / baseline`, k.ratio.rps, '>= 0.9', k.ratio.rps >= 0.9);
      }
    }
  }
  if (results.scaleQueries) scaleTargets(results.scaleQueries, add);
  if (results.scale.p50Ratio1MTo10k !== undefined) add('indexed p50 at 1M / at 10k', results.scale.p50Ratio1MTo10k, '<= 1.5', results.scale.p50Ratio1MTo10k <= 1.5);
  if (results.rss.serviceUnderMixMb !== undefined) add('service peak RSS under the mix (MB)', results.rss.serviceUnderMixMb, '< 200', results.rss.serviceUnderMixMb < 200);
  if (results.startup.length) {
    const worst = Math.max(...results.startup.map((s) => s.readyMs));
    add('start to /ready, worst of all starts (ms)', worst, '< 1500', worst < 1500);
  }
  if (results.flood) add('query p99 during registration flood / idle', results.flood.p99Ratio, '<= 2', results.flood.p99Ratio <= 2);
  return t;
}

export function printSummary(results) {
  console.log('\nround  service req/s  p50   p99  | baseline req/s  p50   p99  | ratio req/s  p50    p99');
  for (const r of results.rounds) {
    const f = (x) => String(x).padStart(6);
    console.log(`${String(r.round).padStart(5)}  ${f(r.service.rps)}  ${f(r.service.p50)} ${f(r.service.p99)} | ${f(r.baseline.rps)}  ${f(r.baseline.p50)} ${f(r.baseline.p99)} | ${f(r.ratio.rps)} ${f(r.ratio.p50)} ${f(r.ratio.p99)}`);
  }
  if (results.median) console.log(`median ratios: req/s ${results.median.rps}, p50 ${results.median.p50}, p99 ${results.median.p99}`);
  for (const [engine, kinds] of [['MySQL', results.kinds], ['SQLite', results.sqlite?.kinds]]) {
    if (!kinds) continue;
    console.log(`\n${engine}, each kind alone (medians of ${pairs} pairs; CPU = the server process, ms per request${engine === 'MySQL' ? ', mysqld apart' : ', database included'}):`);
    console.log('kind'.padEnd(20), 'service req/s'.padStart(13), 'p99'.padStart(7), 'CPU'.padStart(7), '| baseline req/s'.padStart(16), 'p99'.padStart(7), 'CPU'.padStart(7), '| req/s'.padStart(8), 'p99'.padStart(6), 'CPU'.padStart(6));
    for (const [name, k] of Object.entries(kinds)) {
      const f = (x, w) => String(x).padStart(w);
      console.log(name.padEnd(20), f(k.service.rps, 13), f(k.service.p99, 7), f(k.service.serverCpuMs, 7), '|', f(k.baseline.rps, 14), f(k.baseline.p99, 7), f(k.baseline.serverCpuMs, 7), '|', f(k.ratio.rps, 6), f(k.ratio.p99, 6), f(k.ratio.serverCpu, 6));
    }
  }
  if (results.instructions) {
    console.log(`\nInstructions per request under callgrind (user space, every thread; ${results.instructions.windows} x ${results.instructions.requests} requests of each kind, after a warm-up):`);
    console.log('kind'.padEnd(20), 'engine'.padEnd(7), 'service'.padStart(10), 'baseline'.padStart(10), 'ratio'.padStart(7));
    for (const engine of ['mysql', 'sqlite']) {
      for (const [name, k] of Object.entries(results.instructions[engine])) console.log(name.padEnd(20), engine.padEnd(7), String(k.service).padStart(10), String(k.baseline).padStart(10), String(k.ratio).padStart(7));
    }
  }
  if (results.sideBySide) {
    console.log(`\nEach kind with both servers loaded at once (medians of ${pairs} rounds; CPU = the server process, ms per request):`);
    console.log('kind'.padEnd(20), 'engine'.padEnd(7), 'service CPU'.padStart(12), 'baseline CPU'.padStart(13), 'CPU ratio'.padStart(10), 'req/s ratio'.padStart(12));
    for (const [engine, kinds] of Object.entries(results.sideBySide)) {
      for (const [name, k] of Object.entries(kinds)) console.log(name.padEnd(20), engine.padEnd(7), String(k.service.serverCpuMs).padStart(12), String(k.baseline.serverCpuMs).padStart(13), String(k.ratio.serverCpu).padStart(10), String(k.ratio.rps).padStart(12));
    }
  }
  if (results.sqlite?.median) console.log(`SQLite mix median ratios: req/s ${results.sqlite.median.rps}, p99 ${results.sqlite.median.p99}`);
  if (results.cpuMsPerRequest) {
    const c = results.cpuMsPerRequest;
    console.log(`CPU ms per request (median): service ${JSON.stringify(c.service)}, baseline ${JSON.stringify(c.baseline)}; baseline/service total ${c.baselineOverService}`);
  }
  if (results.rss.serviceUnderMixMb !== undefined) console.log(`peak RSS: service ${results.rss.serviceUnderMixMb} MB under the mix${results.rss.serviceWithFloodMb ? `, ${results.rss.serviceWithFloodMb} MB after the flood (its hashing process ${results.rss.hasherWithFloodMb} MB)` : ''}; baseline ${results.rss.baselineUnderMixMb} MB`);
  if (results.startup.length) console.log(`start to /ready: ${results.startup.map((s) => `${s.readyMs} ms (${s.where}; CPU ${s.cpuMs} ms, read from disk ${s.readMb} MB)`).join(', ')}`);
  if (results.scaleQueries) printScale(results.scaleQueries);
  if (results.scale['1M']) console.log(`indexed p50: ${['10k', '100k', '1M'].map((k) => `${k} ${results.scale[k].p50} ms`).join(', ')}`);
  if (results.flood) console.log(`flood: query p99 ${results.flood.idle.p99} ms idle, ${results.flood.duringFlood.p99} ms during the flood (medians of ${results.flood.windows.length} windows; median ratio ${results.flood.p99Ratio})`);
  console.log('\ntargets:');
  for (const t of results.targets) console.log(`  ${t.met ? 'MET    ' : 'NOT MET'} ${t.name}: ${t.value} (${t.limit})`);
  console.log(`\nwritten: ${opts.results} and .svg (${results.durationS} s)`);
}
