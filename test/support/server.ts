// Runs the real app on 127.0.0.1 with a fresh database of the given dialect, and gives
// tests a small HTTP client. Scrypt runs at a cheap cost and rate limits are off unless
// a test's env says otherwise. Every answer the client sees is also checked against
// the routes document (generated/openapi-routes.json), so each suite doubles as a contract test.
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { RequestHandler } from 'express';
import { createApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Dialect } from '../../src/db/dialect.js';
import { createModules, type Modules } from '../../src/handlers/index.js';
import { startSchedules } from '../../src/server/lifecycle.js';
import { loadContract, type Contract } from '../../src/http/contract.js';
import { createResponseValidator, type ResponseValidator } from '../../src/contract-check/response-validator.js';
import type { Database } from '../../src/db/database.js';
import { createTestDb, type Knex } from './db.js';

export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** Parsed JSON when the body is JSON, else undefined. */
  readonly body: any;
}

export interface RequestOptions {
  readonly json?: unknown;
  readonly form?: Record<string, string> | string;
  /** Sent as-is (with headers['content-type'] if given). */
  readonly body?: string | Buffer;
  readonly headers?: Record<string, string>;
  readonly token?: string;
}

export interface TestServer {
  readonly baseUrl: string;
  readonly db: Database;
  /** Its Knex (`db.knex`), for the tests' own SQL. */
  readonly knex: Knex;
  readonly dialect: Dialect;
  /** Where the test database is, as DATABASE_URL / SQLITE_FILE would say: for CLIs and engine clients. */
  readonly databaseUrl: string | undefined;
  readonly sqliteFile: string | undefined;
  readonly config: Config;
  readonly modules: Modules;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  tokenFor(roles: readonly string[]): Promise<string>;
  /** The JSON log lines written so far. */
  logs(): string[];
  close(): Promise<void>;
}

export const testEnv: Readonly<Record<string, string>> = {
  JWT_SECRET: 'test-secret-that-is-at-least-32-bytes-long!',
  SCRYPT_LOG_N: '4',
  RATE_LIMIT_REGISTER_PER_MIN: '0',
  RATE_LIMIT_LOGIN_FAILURES_PER_MIN: '0',
  LOG_LEVEL: 'info',
};

let contract: Contract | undefined;
let validateResponse: ResponseValidator | undefined;
let principals = 0;

/** `contract`: another contract to serve than generated/openapi-routes.json (a spec edited by a test). */
export async function startServer(options: { dialect: Dialect; env?: Record<string, string>; clock?: () => Date; contract?: Contract; middleware?: RequestHandler[] }): Promise<TestServer> {
  const testDb = await createTestDb(options.dialect);
  const config = loadConfig({ ...testEnv, ...options.env });
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(...String(chunk).split('\n').filter(Boolean)); done(); } });
  const logger = pino({ level: config.logLevel }, sink);
  const deps = { config, db: testDb.db, clock: options.clock ?? (() => new Date()), logger };
  const modules = createModules(deps);
  await modules.start();
  const schedules = startSchedules(deps);
  const app = await createApp(deps, options.contract ?? (contract ??= await loadContract()), { ...modules, metrics: { ...modules.metrics, ...schedules.figures } }, { middleware: options.middleware });
  const server: Server = await new Promise((resolve) => { const s = createServer(app).listen(0, '127.0.0.1', () => resolve(s)); });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl,
    db: testDb.db,
    knex: testDb.knex,
    dialect: options.dialect,
    databaseUrl: testDb.databaseUrl,
    sqliteFile: testDb.sqliteFile,
    config,
    modules,
    async request(method, path, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      let body: string | Buffer | undefined = o.body;
      if (o.json !== undefined) {
        body = JSON.stringify(o.json);
        headers['content-type'] ??= 'application/json';
      } else if (o.form !== undefined) {
        body = typeof o.form === 'string' ? o.form : new URLSearchParams(o.form).toString();
        headers['content-type'] ??= 'application/x-www-form-urlencoded';
      }
      if (o.token !== undefined) headers['authorization'] = `Bearer ${o.token}`;
      const res = await fetch(baseUrl + path, { method, headers, body: body as RequestInit['body'] });
      const text = await res.text();
      let parsed: unknown;
      if ((res.headers.get('content-type') ?? '').includes('json') && text) {
        try { parsed = JSON.parse(text); } catch { parsed = undefined; }
      }
      const verdict = (validateResponse ??= createResponseValidator())({ method, path, status: res.status, headers: res.headers, text });
      if (verdict.violations.length > 0) {
        throw new Error(`${method} ${path} answered ${res.status}, which breaks the contract${verdict.operationId ? ` of ${verdict.operationId}` : ''}:\n  ${verdict.violations.join('\n  ')}\nbody: ${text.slice(0, 500)}`);
      }
      return { status: res.status, headers: res.headers, text, body: parsed };
    },
    async tokenFor(roles) {
      const n = ++principals;
      return modules.accounts.issueAccessToken({ userId: String(900000 + n), sessionId: `test-session-${n}`, userName: `tester${n}`, roles });
    },
    logs: () => [...lines],
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await schedules.stop();
      await modules.close();
      await testDb.drop();
    },
  };
}
