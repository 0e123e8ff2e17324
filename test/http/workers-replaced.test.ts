// WORKERS=2 (design.md §10, "Secrets" and "Lifecycle"): the worker the primary starts in
// place of one killed with SIGKILL accepts the access token a dead worker issued, as the
// survivor does. No JWT_SECRET is set, so each process would otherwise draw its own.
import fs from 'node:fs';
import http from 'node:http';
import { expect } from 'chai';
import type { ServiceProcess } from '../reliability/support/service-process.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { admin, logOf, startTwoWorkers, waitFor } from '../support/two-workers.js';
import { forEachDialect } from '../support/dialects.js';




/** The primary's workers by cluster id: node:cluster gives each its id in NODE_UNIQUE_ID. */
function workersOf(primary: number): Map<number, number> {
  const byId = new Map<number, number>();
  for (const d of fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const ppid = Number(fs.readFileSync(`/proc/${d}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]);
      const id = /(?:^|\0)NODE_UNIQUE_ID=(\d+)/.exec(fs.readFileSync(`/proc/${d}/environ`, 'utf8'))?.[1];
      if (ppid === primary && id !== undefined) byId.set(Number(id), Number(d));
    } catch { /* gone meanwhile */ }
  }
  return byId;
}

/** One request on a connection of its own, so that the primary hands each to the next worker. */
function fresh(url: string, method: string, reqPath: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: Number(u.port), method, path: reqPath, agent: false, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

forEachDialect('WORKERS=2: a replaced worker', (dialect) => {
  let t: TestDb;
  let service: ServiceProcess | undefined;
  before(async () => {
    t = await createTestDb(dialect);
    await t.knex('impianto').insert({ id: 1, nome: 'Impianto 1' });
  });
  after(async () => {
    await service?.stop();
    await t.drop();
  });

  it('accepts the token of the worker it replaces, as the other worker does: every answer 200', async function () {
    this.timeout(120_000);
    service = await startTwoWorkers(t, `workers-replaced-${dialect}`, { JWT_SECRET: '' });
    const s = service;

    const signIn = await fresh(s.url, 'POST', '/auth/credentials', { 'x-request-id': 'sign-in' }, JSON.stringify(admin));
    expect(signIn.status, signIn.text).to.equal(200);
    const token = (JSON.parse(signIn.text) as { bearerToken: string }).bearerToken;
    // The worker that issued the token is the one killed: only other processes verify it after.
    const issuer = await waitFor(() => logOf(s).find((l) => l.msg === 'request' && l.reqId === 'sign-in')?.worker, 'the sign-in\'s log line');
    const first = workersOf(s.pid);
    expect([...first.keys()].sort(), 'the workers at start').to.have.length(2).and.include(issuer);
    const victim = first.get(issuer)!;
    process.kill(victim, 'SIGKILL');

    const died = await waitFor(() => logOf(s).find((l) => l.msg === 'worker died; starting another'), 'the primary to see the death');
    expect([died.worker, died['pid'], died['signal']]).to.deep.equal([issuer, victim, 'SIGKILL']);
    await waitFor(() => (logOf(s).filter((l) => l.msg === 'listening').length === 3 ? true : undefined), 'the replacement to listen');
    const live = workersOf(s.pid);
    expect([...live.values()]).to.have.length(2).and.not.include(victim);
    const replacement = [...live.keys()].filter((id) => !first.has(id));
    expect(replacement, 'the new worker').to.have.length(1);

    const answers: Array<{ status: number; text: string }> = [];
    const answeredBy = () => new Set(logOf(s).filter((l) => l.msg === 'request' && l.reqId?.startsWith('after-')).map((l) => l.worker));
    for (let i = 0; i < 12 && answeredBy().size < 2; i++) {
      answers.push(await fresh(s.url, 'GET', '/impianti/1/files', { authorization: `Bearer ${token}`, 'x-request-id': `after-${i}` }));
      await waitFor(() => (logOf(s).some((l) => l.msg === 'request' && l.reqId === `after-${i}`) ? true : undefined), `request after-${i}'s log line`);
    }
    expect(answers.map((a) => a.status), answers.map((a) => a.text).join('\n')).to.deep.equal(answers.map(() => 200));
    expect([...answeredBy()].sort(), 'the workers that verified the token').to.deep.equal([...live.keys()].sort());
    expect([...answeredBy()], 'the replacement among them').to.include(replacement[0]);
  });
});
