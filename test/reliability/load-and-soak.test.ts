// Load (issue 7): 60 s of mixed traffic at 64 connections with zero errors and zero
// 5xx, which also measures capacity; then a 5-minute soak at half that rate, during which
// resident memory grows less than 10% and neither file descriptors nor database
// connections leak. autocannon drives the built service on a private MariaDB.
import fs from 'node:fs';
import { expect } from 'chai';
import autocannon from 'autocannon';
import { record, round } from './support/figures.js';
import { startTarget, type ReliabilityTarget } from './support/reliability-target.js';
import { mixedRequests, sleep, type Req } from './support/traffic.js';

const loadSeconds = Number(process.env['LOAD_SECONDS'] ?? 60);
const soakSeconds = Number(process.env['SOAK_SECONDS'] ?? 300);
/** Connections a node may hold to its database: its reads' pool and Knex's pool for writes, 10 each (design.md §8). */
const poolMax = 20;

/** Queries and files dominate, as in real use; one sign-in and one registration in twelve. */
function mix(t: ReliabilityTarget): autocannon.Request[] {
  const [queryPost, queryGet, files, csv, jsonp, health, signIn, register] = mixedRequests(t.adminToken, t.impiantoIds);
  const order = [queryPost, queryGet, files, csv, jsonp, health, queryPost, files, signIn!, queryGet, files, register!];
  return order.map((next) => ({
    // A fresh request each time: the files path rotates and every registration is new.
    setupRequest: (req: autocannon.Request) => {
      const r: Req = next!();
      return { ...req, method: r.method, path: r.path, headers: r.headers, ...(r.body === undefined ? {} : { body: r.body }) };
    },
    // JSONP answers failures with 200: a responseStatus inside counts as an error.
    onResponse: (status: number, body: string) => {
      if (status === 200 && body.startsWith('/**/') && body.includes('"responseStatus"')) jsonpErrors++;
    },
  }));
}

let jsonpErrors = 0;

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

describe('reliability: load and soak', function () {
  this.timeout((loadSeconds + soakSeconds + 240) * 1000);
  let t: ReliabilityTarget;
  let capacity = 0;
  before(async () => {
    t = await startTarget('load', { SCRYPT_LOG_N: '8' });
  });
  after(async () => t?.close());

  it(`serves ${loadSeconds} s of mixed traffic at 64 connections with zero errors and zero 5xx`, async () => {
    await run({ url: t.service.url, connections: 16, duration: 5, requests: mix(t) });
    jsonpErrors = 0;
    const r = await run({ url: t.service.url, connections: 64, duration: loadSeconds, requests: mix(t), timeout: 10 });
    capacity = r.requests.average;
    record('load', `${loadSeconds} s of mixed traffic at 64 connections (autocannon)`, {
      'requests': r.requests.total,
      'requests/s (mean)': round(r.requests.average),
      'latency p50 / p99 / max (ms)': `${r.latency.p50} / ${r.latency.p99} / ${r.latency.max}`,
      'errors / timeouts': `${r.errors} / ${r.timeouts}`,
      'non-2xx / 5xx': `${r.non2xx} / ${r['5xx']}`,
      'JSONP answers carrying an error': jsonpErrors,
    });
    expect([r.errors, r.timeouts, r.non2xx, r['5xx'], jsonpErrors]).to.deep.equal([0, 0, 0, 0, 0]);
    expect(r.requests.total).to.be.greaterThan(0);
  });

  it(`soaks ${soakSeconds} s at half capacity: RSS grows less than 10%, no descriptor or connection leak`, async () => {
    // If the load test could not measure capacity, take a short measurement of our own.
    if (!(capacity > 0)) capacity = (await run({ url: t.service.url, connections: 64, duration: 10, requests: mix(t) })).requests.average;
    const rate = Math.max(1, Math.floor(capacity / 2));
    await sleep(3000);
    const quiet = () => t.service.openFds() - t.service.connectionsTo(t.mariadb.port);
    const fdsBefore = quiet();
    const samples: Array<{ at: number; rssKb: number; fds: number; db: number }> = [];
    const started = performance.now();
    const sampler = setInterval(() => {
      samples.push({ at: (performance.now() - started) / 1000, rssKb: t.service.rssKb(), fds: t.service.openFds(), db: t.service.connectionsTo(t.mariadb.port) });
    }, 2000);
    jsonpErrors = 0;
    let r: autocannon.Result;
    try {
      r = await run({ url: t.service.url, connections: 32, overallRate: rate, duration: soakSeconds, requests: mix(t), timeout: 10 });
    } finally {
      clearInterval(sampler);
    }
    await sleep(3000);
    const fdsAfter = quiet();
    fs.writeFileSync('test-output/reliability-soak-samples.json', JSON.stringify(samples));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    // Baseline after a warm-up minute (heap grown to its working size); end: the last minute.
    // Under this mix RSS is a sawtooth of about ±25% (the heap between collections, the
    // transient buffers of CSV answers and of scrypt): the mean of a window moves by 10%
    // with where its samples fall on the teeth. What a leak raises is the floor, the memory
    // still held after each collection, so the growth compared is floor to floor (the lowest
    // sample of each window, 30 samples each); the means are reported beside it.
    const warm = samples.filter((s) => s.at >= Math.min(30, soakSeconds / 5) && s.at < Math.min(90, soakSeconds / 2)).map((s) => s.rssKb);
    const last = samples.filter((s) => s.at >= soakSeconds - Math.min(60, soakSeconds / 3)).map((s) => s.rssKb);
    const growth = Math.min(...last) / Math.min(...warm) - 1;
    const maxDb = Math.max(...samples.map((s) => s.db));
    record('soak', `${soakSeconds} s soak at half capacity (${rate} req/s over 32 connections)`, {
      'requests': r.requests.total,
      'requests/s (mean)': round(r.requests.average),
      'latency p50 / p99 / max (ms)': `${r.latency.p50} / ${r.latency.p99} / ${r.latency.max}`,
      'errors / timeouts / non-2xx / 5xx': `${r.errors} / ${r.timeouts} / ${r.non2xx} / ${r['5xx']}`,
      'RSS warm / end / max (MiB)': `${round(mean(warm) / 1024)} / ${round(mean(last) / 1024)} / ${round(Math.max(...samples.map((s) => s.rssKb)) / 1024)}`,
      'RSS floor warm / end (MiB)': `${round(Math.min(...warm) / 1024)} / ${round(Math.min(...last) / 1024)}`,
      'RSS growth (floor to floor)': `${round(growth * 100, 2)}%`,
      'RSS growth (mean to mean)': `${round((mean(last) / mean(warm) - 1) * 100, 2)}%`,
      'file descriptors before / after (without database sockets)': `${fdsBefore} / ${fdsAfter}`,
      'database connections max (pool max)': `${maxDb} (${poolMax})`,
    });
    expect([r.errors, r.timeouts, r.non2xx, r['5xx'], jsonpErrors]).to.deep.equal([0, 0, 0, 0, 0]);
    expect(growth).to.be.below(0.1);
    expect(fdsAfter - fdsBefore).to.be.at.most(2);
    expect(maxDb).to.be.at.most(poolMax);
    expect(t.service.alive()).to.equal(true);
  });
});
