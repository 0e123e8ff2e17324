// GET /metrics: Prometheus text with per-operation request counts, latency histograms
// and the database pool, and no label taken from a raw path.
import { expect } from 'chai';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestServer } from '../support/server.js';

/** The value of one sample line, e.g. `http_requests_total{operation="Health",method="GET",status="200"}`. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const body = line.slice(name.length + 1, line.indexOf('}'));
    const got = Object.fromEntries([...body.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

forEachDialect('metrics', (dialect) => {
  let s: TestServer;
  before(async () => { s = await startServer({ dialect }); });
  after(() => s.close());

  it('serves the Prometheus text format', async () => {
    const r = await s.request('GET', '/metrics');
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    expect(r.text).to.include('# TYPE http_requests_total counter');
    expect(r.text).to.include('# TYPE http_request_duration_seconds histogram');
    expect(r.text).to.include('process_resident_memory_bytes');
  });

  it('counts requests per operation and status', async () => {
    const before = sample((await s.request('GET', '/metrics')).text, 'http_requests_total', { operation: 'Health', status: '200' }) ?? 0;
    await s.request('GET', '/health');
    await s.request('GET', '/health');
    await s.request('GET', '/impianti/1/files'); // 401: no token
    const text = (await s.request('GET', '/metrics')).text;
    expect(sample(text, 'http_requests_total', { operation: 'Health', method: 'GET', status: '200' })).to.equal(before + 2);
    expect(sample(text, 'http_requests_total', { operation: 'GetImpiantoFilesRequest', status: '401' })).to.be.at.least(1);
    expect(sample(text, 'http_request_duration_seconds_count', { operation: 'Health', status: '200' })).to.equal(before + 2);
  });

  it('gives unknown paths one label value, never the path', async () => {
    // Letters only: digits could turn up in any sample's value.
    await s.request('GET', '/no-such-route-qzx');
    const text = (await s.request('GET', '/metrics')).text;
    expect(text).not.to.include('no-such-route');
    expect(sample(text, 'http_requests_total', { operation: 'none', status: '404' })).to.be.at.least(1);
  });

  it('reports the database pool', async () => {
    await s.request('GET', '/ready');
    const text = (await s.request('GET', '/metrics')).text;
    expect(sample(text, 'db_pool_connections_max', {}) ?? Number(/^db_pool_connections_max (\d+)/m.exec(text)?.[1])).to.be.greaterThan(0);
    expect(text).to.match(/^db_pool_connections_used \d+/m);
    expect(text).to.match(/^db_pool_pending_acquires \d+/m);
  });

  it('counts the reads each database served, what the purge removed and the maintenance turns (no replicas here: every read on the primary)', async () => {
    const before = sample((await s.request('GET', '/metrics')).text, 'db_reads_total', { target: 'primary' }) ?? 0;
    const token = await s.tokenFor(['Admin', 'ApiUser']);
    await s.request('GET', '/impianti/1/files', { token });
    await s.request('GET', '/json/reply/SoggettoRecapitoQuery', { token });
    const text = (await s.request('GET', '/metrics')).text;
    expect(sample(text, 'db_reads_total', { target: 'primary' })).to.equal(before + 2);
    expect(text).to.include('# TYPE db_replica_healthy gauge');
    expect(sample(text, 'auth_purged_rows_total', { table: 'refresh_token' })).to.equal(0);
    expect(sample(text, 'auth_purged_rows_total', { table: 'auth_session' })).to.equal(0);
    expect(sample(text, 'db_maintenance_turns_total', { trigger: 'purge' })).to.equal(0);
    expect(sample(text, 'db_maintenance_turns_total', { trigger: 'schedule' })).to.equal(0);
  });
});
