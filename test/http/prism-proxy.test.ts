// The contract suite through a third-party validating proxy built from the routes document
// (generated/openapi-routes.json, every route the server answers; @stoplight/prism-cli in proxy mode with --errors: it refuses requests the contract does
// not allow and reports answers that break it). Every answer the service gives through it
// must pass: 0 response violations, every positive case green. Prism answers some negative
// cases itself before they reach the service (it refuses the invalid request the case sends
// on purpose), and it cannot relay HEAD answers; those are its limits, listed here and in
// the README, and figures go to test-output/prism.json.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { seedDemo } from '../../src/cli/demo-data.js';
import { contractCases } from '../../src/contract-check/cases.js';
import { runContractSuite } from '../../src/contract-check/run-suite.js';
import { startServer, type TestServer } from '../support/server.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const admin = { userName: 'prism.admin', password: 'prism-admin-password' };

/**
 * Prism's own answer to a request the contract does not allow, or to a route or method it
 * does not know: an application/problem+json body (the service never sends one), and for a
 * method no operation serves, a 405 without Allow. Its hang on malformed JSON ends in the
 * suite's timeout.
 */
const refusedByProxy = /stoplight\.io\/prism\/errors#|application\/problem\+json|Allow is ""|timeout/;
/** Prism parses every relayed body as JSON, the empty body of a HEAD answer included. */
const headLimit = /HEAD answers 200 without a body/;

const freePort = () => new Promise<number>((resolve) => {
  const srv = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = srv.address() as net.AddressInfo;
    srv.close(() => resolve(port));
  });
});

describe('contract suite through the Prism validating proxy', function () {
  this.timeout(180_000);
  let s: TestServer;
  let prism: ChildProcess;
  let prismUrl = '';
  const log: string[] = [];

  before(async () => {
    s = await startServer({ dialect: 'sqlite', env: { ADMIN_USERNAME: admin.userName, ADMIN_PASSWORD: admin.password } });
    await seedDemo(s.db);
    const port = await freePort();
    prismUrl = `http://127.0.0.1:${port}`;
    prism = spawn(path.join(root, 'node_modules/.bin/prism'), ['proxy', path.join(root, 'generated/openapi-routes.json'), s.baseUrl, '--errors', '-h', '127.0.0.1', '-p', String(port)], { cwd: root });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Prism did not start:\n${log.join('')}`)), 60_000);
      const read = (d: Buffer) => {
        log.push(String(d));
        if (/Prism is listening/.test(String(d))) { clearTimeout(timer); resolve(); }
      };
      prism.stdout!.on('data', read);
      prism.stderr!.on('data', read);
    });
  });
  after(async () => {
    prism?.kill();
    await s?.close();
  });

  it('every positive case passes and no answer of the service breaks the contract', async () => {
    const report = await runContractSuite({ baseUrl: prismUrl, admin, timeoutMs: 3000 });
    const kindOf = new Map(contractCases.map((c) => [c.name, c.kind]));
    const failed = report.results.filter((r) => r.outcome === 'fail');
    const limits = failed.filter((r) => headLimit.test(r.name) || (kindOf.get(r.name) === 'negative' && r.notes.some((n) => refusedByProxy.test(n))));
    const unexplained = failed.filter((r) => !limits.includes(r)).map((r) => `${r.name}: ${r.notes.join(' | ')}`);
    // Response violations are what Prism logs about the service's answers.
    const violations = log.join('').split('\n').filter((l) => /violation/i.test(l) && !/request/i.test(l));
    fs.mkdirSync(path.join(root, 'test-output'), { recursive: true });
    fs.writeFileSync(path.join(root, 'test-output/prism.json'), JSON.stringify({
      cases: report.results.length,
      passed: report.results.filter((r) => r.outcome === 'pass').length,
      proxyLimits: limits.map((r) => r.name),
      unexplained,
      responseViolations: violations,
    }, null, 2));
    expect(unexplained).to.deep.equal([]);
    expect(violations).to.deep.equal([]);
    const positives = report.results.filter((r) => kindOf.get(r.name) === 'positive' && !headLimit.test(r.name));
    expect(positives.filter((r) => r.outcome !== 'pass').map((r) => r.name)).to.deep.equal([]);
    expect(positives.length).to.be.greaterThan(15);
  });
});
