// Start-up fails closed, configuration errors name the variable, and SIGTERM drains.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { connect, disconnect } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { contractOf, loadContract } from '../../src/http/contract.js';
import type { HandlerMap } from '../../src/http/operation.js';
import { createTestDb } from '../support/db.js';

const main = path.resolve('dist/src/server/main.js');

function spawnMain(env: Record<string, string>): { child: ChildProcess; stdout: () => string; stderr: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [main], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

async function waitFor<T>(probe: () => T | undefined, ms: number): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('start-up', () => {
  it('refuses to build an app when an operation has no handler', async () => {
    const t = await createTestDb('sqlite');
    try {
      const deps = { config: loadConfig({}), db: t.db, clock: () => new Date(), logger: pino({ level: 'silent' }) };
      const auth = { verifyAccessToken: () => { throw new Error('unused'); } };
      let caught: unknown;
      // tsc refuses a map without every handler; start-up must too, for code that got past it.
      try { await createApp(deps, await loadContract(), { handlers: {} as HandlerMap, authenticator: auth }); } catch (e) { caught = e; }
      expect(String(caught)).to.match(/No handler for operation\(s\): .*Register/);
    } finally {
      await t.drop();
    }
  });

  it('refuses an operation that declares no access policy', async () => {
    const doc = { openapi: '3.1.0', info: { title: 'x', version: '1' }, paths: { '/x': { get: { operationId: 'X', responses: {} } } } };
    let caught: unknown;
    try { await contractOf(doc); } catch (e) { caught = e; }
    expect(String(caught)).to.match(/X: declare exactly one of x-public: true or x-roles/);
  });

  it('stops with one line naming the variable and its rule on a bad configuration, no stack trace', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-config-'));
    for (const [env, rule] of [
      [{ PORT: 'eighty' }, 'PORT: must be an integer'],
      [{ ADMIN_USERNAME: 'no spaces allowed!', ADMIN_PASSWORD: 'correct-horse-1' }, 'ADMIN_USERNAME: '],
      [{ ADMIN_USERNAME: 'admin', ADMIN_PASSWORD: 'short' }, 'ADMIN_PASSWORD: must be between 8 and 256 characters'],
      [{ REFRESH_TOKEN_ROTATION: 'never' }, 'REFRESH_TOKEN_ROTATION: must be rotate or reuse'],
    ] as const) {
      const p = spawnMain({ ...env, SQLITE_FILE: path.join(dir, 'db.sqlite'), PORT: 'PORT' in env ? env.PORT : '0', HOST: '127.0.0.1' });
      expect(await p.exit, rule).to.equal(1);
      const lines = p.stderr().trim().split('\n');
      expect(lines, p.stderr()).to.have.length(1);
      expect(lines[0]).to.include(rule).and.not.match(/\bat /);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('on SIGTERM finishes the in-flight request, refuses new ones and exits 0', async function () {
    this.timeout(60_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-drain-'));
    // A production-cost hash keeps the registration in flight long enough to signal mid-way.
    const p = spawnMain({ PORT: '0', HOST: '127.0.0.1', SQLITE_FILE: path.join(dir, 'db.sqlite'), SCRYPT_LOG_N: '16', RATE_LIMIT_REGISTER_PER_MIN: '0' });
    try {
      const port = await waitFor(() => {
        const line = p.stdout().split('\n').find((l) => l.includes('"listening"'));
        return line ? (JSON.parse(line) as { port: number }).port : undefined;
      }, 20_000);
      const url = `http://127.0.0.1:${port}`;
      const inFlight = fetch(`${url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userName: 'drained', password: 'correct horse battery' }) });
      await new Promise((r) => setTimeout(r, 60));
      p.child.kill('SIGTERM');
      const res = await inFlight;
      expect(res.status).to.equal(200);
      expect(((await res.json()) as { userId: string }).userId).to.be.a('string');
      expect(await p.exit).to.equal(0);
      let refused = false;
      try { await fetch(`${url}/health`); } catch { refused = true; }
      expect(refused).to.equal(true);
      expect(p.stdout()).to.include('"draining"');
    } finally {
      p.child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** One request on a connection of its own, so that the primary hands each to the next worker. */
function fresh(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent: false, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

type LogLine = Record<string, unknown> & { msg?: string; time: number; worker?: number; role?: string; reqId?: string };
const logLines = (stdout: string): LogLine[] => stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as LogLine);
const sampleOf = (text: string, series: string) => Number(text.split('\n').find((l) => l.startsWith(`${series} `))?.split(' ')[1] ?? NaN);

describe('start-up with WORKERS=2 (design.md §10)', () => {
  it('serves from both workers with one token secret and one Register limit, and runs the schedules once, in the primary', async function () {
    this.timeout(120_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-workers-'));
    const p = spawnMain({
      WORKERS: '2', PORT: '0', HOST: '127.0.0.1', SQLITE_FILE: path.join(dir, 'db.sqlite'), SCRYPT_LOG_N: '4', DEFAULT_ROLES: 'ApiUser',
      RATE_LIMIT_REGISTER_PER_MIN: '3', TRUST_PROXY: 'true', PURGE_INTERVAL_S: '1', MAINTENANCE_INTERVAL_S: '1', BACKUP_INTERVAL_S: '1',
    });
    try {
      const up = await waitFor(() => logLines(p.stdout()).find((l) => l.msg === 'every worker listening'), 90_000);
      const port = up['port'] as number;
      const client = { 'x-forwarded-for': '203.0.113.7' };
      const registers = [];
      for (let i = 0; i < 6; i++) {
        registers.push(await fresh(port, 'POST', '/register', { ...client, 'x-request-id': `limit-${i}` }, JSON.stringify({ userName: `worker-user-${i}`, password: 'correct horse battery', autoLogin: true })));
      }
      expect(registers.map((r) => r.status)).to.deep.equal([200, 200, 200, 429, 429, 429]);
      const token = (JSON.parse(registers[0]!.text) as { bearerToken: string }).bearerToken;
      const reads = [];
      for (let i = 0; i < 4; i++) reads.push(await fresh(port, 'GET', '/impianti/1/files', { authorization: `Bearer ${token}`, 'x-request-id': `token-${i}` }));
      // Verified by whichever worker answers: 404 (no such Impianto), never 401.
      expect(reads.map((r) => r.status)).to.deep.equal([404, 404, 404, 404]);
      await new Promise((r) => setTimeout(r, 3000));
      const metrics = await fresh(port, 'GET', '/metrics');
      const scraped = Date.now();
      const lines = logLines(p.stdout());
      const answeredBy = (prefix: string) => new Set(lines.filter((l) => l.reqId?.startsWith(prefix)).map((l) => l.worker));
      expect([...answeredBy('limit-')].sort(), 'workers that answered one client\'s registrations').to.deep.equal([1, 2]);
      expect([...answeredBy('token-')].sort(), 'workers that verified the token').to.deep.equal([1, 2]);

      const turns = lines.filter((l) => l.msg === 'database maintenance' && l['trigger'] === 'schedule');
      const backups = lines.filter((l) => l.msg === 'backup taken');
      const purges = lines.filter((l) => l.msg === 'purged refresh tokens and sessions');
      expect([...turns, ...backups, ...purges].every((l) => l.role === 'primary' && l.worker === undefined)).to.equal(true);
      const m = sampleOf(metrics.text, 'db_maintenance_turns_total{trigger="schedule"}');
      expect(turns.length - m).to.be.within(0, 1);
      expect(backups.length - sampleOf(metrics.text, 'backup_successes_total')).to.be.within(0, 1);
      // Once a second in the window where both workers were up, not once per worker.
      const windowS = (scraped - up.time) / 1000;
      expect(turns.filter((l) => l.time >= up.time).length).to.be.within(1, windowS + 1);
      expect(purges.filter((l) => l.time >= up.time).length).to.be.within(1, windowS + 1);
      // Both workers' requests are in the one /metrics, whichever worker answered it.
      expect(sampleOf(metrics.text, 'http_requests_total{operation="Register",method="POST",status="200"}')).to.equal(3);
      expect(sampleOf(metrics.text, 'http_requests_total{operation="Register",method="POST",status="429"}')).to.equal(3);

      p.child.kill('SIGTERM');
      expect(await p.exit).to.equal(0);
      const stopped = logLines(p.stdout()).filter((l) => l.msg === 'stopped');
      expect(stopped.map((l) => l.role ?? `worker ${l.worker}`).sort()).to.deep.equal(['primary', 'worker 1', 'worker 2']);
    } finally {
      p.child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops the whole service with the error of a worker that cannot start, instead of starting it again', async function () {
    this.timeout(120_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-workers-'));
    const missing = path.join(dir, 'no-such-private-key.pem');
    const p = spawnMain({
      WORKERS: '2', PORT: '0', HOST: '127.0.0.1', SQLITE_FILE: path.join(dir, 'db.sqlite'),
      JWT_ALGORITHM: 'RS256', JWT_PRIVATE_KEY_FILE: missing, JWT_PUBLIC_KEY_FILE: missing,
    });
    try {
      expect(await p.exit).to.equal(1);
      const failures = p.stderr().split('\n').filter((l) => l.startsWith('impianti-api failed to start: '));
      expect(failures, p.stderr()).to.have.length(1);
      expect(failures[0]).to.include(missing).and.include('ENOENT');
      expect(logLines(p.stdout()).filter((l) => l.msg === 'listening' || l.msg === 'worker died; starting another')).to.deep.equal([]);
    } finally {
      p.child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops with the migration\'s error in the primary, before any worker starts', async function () {
    this.timeout(60_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-workers-'));
    const file = path.join(dir, 'db.sqlite');
    const t = connect({ sqliteFile: file });
    // A database migrated by a newer build: a migration this one does not know.
    await migrate(t);
    await t.knex('knex_migrations').insert({ name: '999-from-a-newer-build', batch: 9, migration_time: new Date() });
    await disconnect(t);
    const p = spawnMain({ WORKERS: '2', PORT: '0', HOST: '127.0.0.1', SQLITE_FILE: file });
    try {
      expect(await p.exit).to.equal(1);
      const failures = p.stderr().split('\n').filter((l) => l.startsWith('impianti-api failed to start: '));
      expect(failures, p.stderr()).to.have.length(1);
      expect(p.stderr()).to.include('999-from-a-newer-build');
      expect(logLines(p.stdout()).filter((l) => l.worker !== undefined)).to.deep.equal([]);
    } finally {
      p.child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
