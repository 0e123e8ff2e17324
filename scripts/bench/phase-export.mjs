// `export` (per engine): every contact of the largest table (1M rows) exported as CSV by a
// service started and settled on it, one export after a warm-up one: rows per second, the
// time to the first byte, and how far the service's resident memory rose above where it
// stood before the export (sampled every 50 ms from /proc, the process tree summed).
import fs from 'node:fs';
import http from 'node:http';
import { settled, stop, treeOf } from './processes.mjs';
import { prepare } from './seed.mjs';
import { largest, log, tokens, startService } from './context.mjs';

/** Resident memory (VmRSS) of `pid` and its children now, in MB. */
function rssMb(pid) {
  return treeOf(pid).reduce((sum, p) => {
    try {
      return sum + Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    } catch {
      return sum;
    }
  }, 0);
}

/** One export, read as fast as the client can: its rows, seconds, first byte and peak RSS. */
function exportOnce(port, pid) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstByteMs;
    let lines = 0;
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
    const path = '/json/reply/SoggettoRecapitoQueryExport.csv';
    http.get({ host: '127.0.0.1', port, path, headers: { authorization: `Bearer ${tokens.admin}` }, agent: false }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`export answered ${res.statusCode}`));
      res.on('data', (chunk) => {
        firstByteMs ??= performance.now() - started;
        for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
      });
      res.on('end', () => {
        clearInterval(sampler);
        resolve({ rows: lines - 1, seconds: (performance.now() - started) / 1000, firstByteMs, peakRssMb: Math.max(peak, rssMb(pid)) });
      });
      res.on('error', reject);
    }).on('error', reject);
  });
}

export async function exportPhase(engine, results) {
  const db = await prepare(engine, largest);
  const service = await startService(db, `export-${engine}`);
  results.startup.push({ where: `export, ${engine}`, readyMs: service.readyMs });
  try {
    await settled(service.child.pid);
    // A first export warms the page cache, the statements and the JIT; the second is timed.
    await exportOnce(service.port, service.child.pid);
    await settled(service.child.pid);
    const before = rssMb(service.child.pid);
    const run = await exportOnce(service.port, service.child.pid);
    if (run.rows !== largest.soggettoRecapito) throw new Error(`export gave ${run.rows} rows of ${largest.soggettoRecapito}`);
    const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
    (results.export ??= {})[engine] = {
      rows: run.rows,
      rowsPerSecond: Math.round(run.rows / run.seconds),
      firstByteMs: round(run.firstByteMs),
      rssGrowthMb: round(run.peakRssMb - before),
    };
    log(`export ${engine}: ${JSON.stringify(results.export[engine])}`);
  } finally {
    await stop(service.child);
  }
}
