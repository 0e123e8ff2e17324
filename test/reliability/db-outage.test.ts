// MariaDB stopped during load (issue 7): while the database is down every request that
// needs it answers 503 ServiceUnavailable (with Retry-After) within 1 s, the process stays
// up and keeps answering /health, and once the database is back it serves again within
// 5 s, without a restart. The database is a private server that this test stops.
import fs from 'node:fs';
import { expect } from 'chai';
import { percentile, record, round } from './support/figures.js';
import { startTarget, type ReliabilityTarget } from './support/reliability-target.js';
import { loops, mixedRequests, sleep, type Sample } from './support/traffic.js';

describe('reliability: MariaDB stopped during load', function () {
  this.timeout(180_000);
  let t: ReliabilityTarget;
  before(async () => {
    t = await startTarget('db-outage', { SCRYPT_LOG_N: '10' });
  });
  after(async () => t?.close());

  it('answers 503 within 1 s while the database is down and serves again within 5 s of its return', async () => {
    const pid = t.service.pid;
    let stop = false;
    // 32 clients, each pausing 100 ms between answers: up to ~300 requests/s offered.
    const running = loops(t.service.url, mixedRequests(t.adminToken, t.impiantoIds), 32, () => stop, undefined, 100);
    await sleep(3000);
    const killed = performance.now();
    await t.mariadb.stop();
    const down = performance.now();
    await sleep(6000);
    const restarting = performance.now();
    await t.mariadb.start();
    const up = performance.now();
    await sleep(7000);
    stop = true;
    const samples = await running;

    fs.writeFileSync('test-output/reliability-db-outage-samples.json', JSON.stringify({ killed, down, restarting, up, samples }));
    const needsDb = (s: Sample) => s.name !== 'health';
    const outage = samples.filter((s) => s.start >= down && s.end <= restarting);
    const outageDb = outage.filter(needsDb);
    const unexpected = samples.filter((s) => s.error !== undefined || (s.status !== undefined && s.status >= 500 && s.status !== 503) || (s.status === 503 && s.errorCode !== 'ServiceUnavailable' && s.errorCode !== 'QueryTimeout'));
    const firstOk = (name: string) => samples.filter((s) => s.name === name && s.start >= up && s.status! < 400).sort((a, b) => a.end - b.end)[0];
    const recovery = Math.max(...['query-post', 'query-get', 'files', 'sign-in', 'register'].map((n) => (firstOk(n)?.end ?? Infinity) - up));
    const lateFailures = samples.filter((s) => s.start >= up + 5000 && !(s.status! < 400));
    const latencies503 = outageDb.map((s) => s.end - s.start);

    record('dbOutage', 'MariaDB stopped during load (32 clients, 100 ms between requests)', {
      'requests sent': samples.length,
      'requests during the outage needing the database': outageDb.length,
      'of which 503 ServiceUnavailable': outageDb.filter((s) => s.status === 503 && s.errorCode === 'ServiceUnavailable').length,
      '503 latency p50 / p99 / max (ms)': `${round(percentile(latencies503, 50))} / ${round(percentile(latencies503, 99))} / ${round(Math.max(...latencies503))}`,
      '/health during the outage': `${outage.filter((s) => s.name === 'health' && s.status === 200).length} of ${outage.filter((s) => s.name === 'health').length} answered 200, p50 ${round(percentile(outage.filter((s) => s.name === 'health').map((s) => s.end - s.start), 50))} ms`,
      'database shutdown took (ms)': round(down - killed),
      'database restart took (ms)': round(up - restarting),
      'recovery after the database accepted connections (ms)': round(recovery),
      'transport errors / 500s': samples.filter((s) => s.error).length + ' / ' + samples.filter((s) => s.status === 500).length,
      'service restarted': t.service.pid !== pid || !t.service.alive(),
    });

    expect(unexpected.slice(0, 5), 'transport errors, 500s, or 503s of another code').to.deep.equal([]);
    expect(outageDb.length).to.be.greaterThan(100);
    expect(outageDb.filter((s) => !(s.status === 503 && s.errorCode === 'ServiceUnavailable')).slice(0, 5)).to.deep.equal([]);
    expect(Math.max(...latencies503)).to.be.below(1000);
    expect(outage.filter((s) => s.name === 'health' && s.status !== 200)).to.deep.equal([]);
    expect(t.service.alive()).to.equal(true);
    expect(recovery).to.be.below(5000);
    expect(lateFailures.slice(0, 5)).to.deep.equal([]);
  });
});
