// The contract suite (npm run test:contract) against this service on every dialect, and
// proof that it fails when a deployment strays: a proxy in front of the real server
// breaks two answers in ways only the response validator can see.
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { formatReport } from '../../src/contract-check/report.js';
import { runContractSuite } from '../../src/contract-check/run-suite.js';
import { seedDemo } from '../../src/cli/demo-data.js';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestServer } from '../support/server.js';

const admin = { userName: 'contract.admin', password: 'contract-admin-password' };
const cli = new URL('../../src/contract-check/cli.js', import.meta.url).pathname;
const runCli = promisify(execFile);

forEachDialect('contract suite', (dialect) => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ dialect, env: { ADMIN_USERNAME: admin.userName, ADMIN_PASSWORD: admin.password } });
    await seedDemo(s.db);
  });
  after(() => s.close());

  it('passes every case with admin credentials, with no violation and every operation covered', async () => {
    const report = await runContractSuite({ baseUrl: s.baseUrl, admin });
    expect(report.failed, formatReport(report)).to.equal(0);
    expect(report.skipped, formatReport(report)).to.equal(0);
    expect(report.violations).to.equal(0);
    expect(report.uncovered).to.deep.equal([]);
    expect(report.ok).to.equal(true);
    expect(report.passed).to.be.greaterThan(60);
  });

  it('skips and reports only the admin cases without admin credentials', async () => {
    const report = await runContractSuite({ baseUrl: s.baseUrl });
    expect(report.failed, formatReport(report)).to.equal(0);
    const skipped = report.results.filter((r) => r.outcome === 'skip');
    expect(skipped.length).to.be.greaterThan(20);
    for (const r of skipped) expect(r.notes).to.deep.equal(['needs admin credentials (--admin-user, --admin-password-env)']);
    expect(formatReport(report)).to.match(new RegExp(`${report.results.length} cases: ${report.passed} passed, 0 failed, ${skipped.length} skipped`));
    expect(report.ok).to.equal(true);
  });
});

describe('contract suite against a deployment that strays', () => {
  let s: TestServer;
  let proxy: http.Server;
  let proxyUrl: string;
  before(async () => {
    s = await startServer({ dialect: 'sqlite', env: { ADMIN_USERNAME: admin.userName, ADMIN_PASSWORD: admin.password } });
    await seedDemo(s.db);
    proxy = http.createServer((req, res) => void forward(s.baseUrl, req, res));
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  after(async () => {
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
    await s.close();
  });

  it('fails exactly the cases whose answers break the contract, naming the violation', async () => {
    const report = await runContractSuite({ baseUrl: proxyUrl, admin });
    const failed = report.results.filter((r) => r.outcome === 'fail');
    expect(failed.map((r) => r.name)).to.deep.equal(['Health: 200 {"status":"ok"} as JSON', 'Logout: 401 with WWW-Authenticate without a token']);
    expect(failed[0]!.notes).to.deep.equal(['contract: GET /health -> 200: body must NOT have additional properties (uptime)']);
    expect(failed[1]!.notes).to.deep.equal(['contract: POST /auth/logout -> 401: header WWW-Authenticate is missing']);
    expect(report.violations).to.equal(2);
    expect(report.ok).to.equal(false);
  });

  it('exits 1 from the command line and prints the failures and totals', async () => {
    const err = await runCli('node', [cli, '--base-url', proxyUrl]).then(() => undefined, (e: { code: number; stdout: string }) => e);
    expect(err?.code).to.equal(1);
    expect(err!.stdout).to.include('FAIL  Health: 200 {"status":"ok"} as JSON');
    expect(err!.stdout).to.match(/\d+ cases: \d+ passed, 2 failed, \d+ skipped; 2 contract violations/);
    expect(err!.stdout).to.include('RESULT: the deployment does NOT conform to the contract');
  });

  it('exits 0 against the real server and 2 on bad arguments', async () => {
    const ok = await runCli('node', [cli, '--base-url', s.baseUrl, '--admin-user', admin.userName, '--admin-password-env', 'CONTRACT_ADMIN_PASSWORD'], {
      env: { ...process.env, CONTRACT_ADMIN_PASSWORD: admin.password },
    });
    expect(ok.stdout).to.include('0 failed, 0 skipped; 0 contract violations');
    const usage = await runCli('node', [cli, '--admin-user', 'x']).then(() => undefined, (e: { code: number; stderr: string }) => e);
    expect(usage?.code).to.equal(2);
    expect(usage!.stderr).to.include('--base-url');
  });
});

/** Relays to the real server, then breaks two answers the way a drifting deployment might. */
async function forward(target: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k))) as Record<string, string>;
  const upstream = await fetch(target + req.url, { method: req.method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined });
  let text = await upstream.text();
  const out = Object.fromEntries([...upstream.headers].filter(([k]) => !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(k)));
  if (req.method === 'GET' && req.url === '/health' && upstream.status === 200) text = JSON.stringify({ ...JSON.parse(text), uptime: 12 });
  if (req.url === '/auth/logout' && upstream.status === 401) delete out['www-authenticate'];
  res.writeHead(upstream.status, out).end(req.method === 'HEAD' ? undefined : text);
}
