// Start-up fails closed, configuration errors name the variable, and SIGTERM drains.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { contractOf, loadContract } from '../../src/http/contract.js';
import type { HandlerMap } from '../../src/http/operation.js';
import { createTestDb } from '../support/db.js';

const main = path.resolve('dist/src/main.js');

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
