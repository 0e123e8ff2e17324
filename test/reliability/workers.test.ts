// WORKERS=2 under load, on SQLite and on a private MariaDB (design.md §10): 90 % queries and
// 10 % registrations and sign-ins; every acknowledged write in the database, no 5xx, one
// Register limit whichever worker answers, the schedules once for the machine; then SIGKILL
// of one worker (replaced, the other keeps answering) and SIGTERM of the primary (every
// worker drains, nothing half-written). LOAD_SECONDS shortens the load (default 30).
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { expect } from 'chai';
import { seedDemo } from '../../src/cli/demo-data.js';
import { connect, disconnect } from '../../src/db/connect.js';
import { mariadbEngine, sqliteEngine, type CrashEngine } from './support/crash-engines.js';
import { record, round } from './support/figures.js';
import { adminUser } from './support/reliability-target.js';
import { startService, type ServiceProcess } from './support/service-process.js';
import { sleep, type Req, type Sample } from './support/traffic.js';

const loadSeconds = Number(process.env['LOAD_SECONDS'] ?? 30);
const registerLimit = 5;

type LogLine = Record<string, unknown> & { msg?: string; time: number; worker?: number; role?: string; reqId?: string };
const logOf = (s: ServiceProcess): LogLine[] =>
  fs.readFileSync(s.logFile, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as LogLine);

async function waitForLog(s: ServiceProcess, found: (lines: LogLine[]) => boolean, ms = 60_000): Promise<void> {
  for (const until = Date.now() + ms; !found(logOf(s)); await sleep(100)) if (Date.now() > until) throw new Error('the log line never came');
}

/** The primary's workers: its children that run the service (the hashers are the workers' children). */
function workerPids(primary: number): number[] {
  return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).flatMap((d) => {
    try {
      const ppid = Number(fs.readFileSync(`/proc/${d}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]);
      return ppid === primary && fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('main.js') ? [Number(d)] : [];
    } catch {
      return [];
    }
  });
}
const rssMiB = (pid: number) => round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024);

/** 18 queries, one registration (a client address of its own) and one sign-in in every 20 requests. */
function mix(adminToken: string, impiantoIds: readonly number[]): Array<() => Req> {
  const auth = { authorization: `Bearer ${adminToken}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const tag = crypto.randomBytes(3).toString('hex');
  let n = 0;
  const queries: Array<() => Req> = [
    () => ({ name: 'query-post', method: 'POST', path: '/json/reply/CaratteristicaGruppoQuery', headers: json, body: JSON.stringify({ descrizioneContains: 'a', include: 'Total', take: 20 }) }),
    () => ({ name: 'query-get', method: 'GET', path: '/json/reply/SoggettoRecapitoQuery?RecapitoStartsWith=info&OrderBy=-Id&Take=10', headers: auth }),
    () => ({ name: 'files', method: 'GET', path: `/impianti/${impiantoIds[n++ % impiantoIds.length]}/files`, headers: auth }),
  ];
  const client = () => ({ 'content-type': 'application/json', 'x-forwarded-for': `10.${n % 250}.${(n >> 8) % 250}.${crypto.randomInt(1, 250)}` });
  const writes: Array<() => Req> = [
    () => ({ name: 'register', method: 'POST', path: '/register', headers: client(), body: JSON.stringify({ userName: `wk-${tag}-${n++}`, password: 'load-password', autoLogin: true }) }),
    () => ({ name: 'sign-in', method: 'POST', path: '/auth/credentials', headers: client(), body: JSON.stringify(adminUser) }),
  ];
  return [...Array.from({ length: 18 }, (_, i) => queries[i % queries.length]!), ...writes];
}

/**
 * One client's registrations, each on a connection of its own, all within one clock minute
 * (the limit's window); a probe that straddles two minutes is made again from a new address.
 */
async function probeRegisterLimit(url: string): Promise<number[]> {
  for (let attempt = 0; ; attempt++) {
    if (Date.now() % 60_000 > 30_000) await sleep(60_200 - (Date.now() % 60_000));
    const minute = Math.floor(Date.now() / 60_000);
    const statuses: number[] = [];
    for (let i = 0; i < registerLimit + 3; i++) {
      const headers = { 'x-forwarded-for': `198.51.100.${attempt + 1}`, 'x-request-id': `limit-${attempt}-${i}` };
      statuses.push(await fresh(url, '/register', headers, JSON.stringify({ userName: `limited-${crypto.randomBytes(4).toString('hex')}`, password: 'load-password' })));
    }
    if (Math.floor(Date.now() / 60_000) === minute || attempt === 2) return statuses;
  }
}

/** One request on a connection of its own: the primary hands each new connection to the next worker. */
function fresh(url: string, reqPath: string, headers: Record<string, string>, body: string): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: Number(u.port), method: 'POST', path: reqPath, agent: false, headers: { ...headers, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const fiveHundreds = <S extends Sample>(samples: readonly S[]) => samples.filter((s) => s.status !== undefined && s.status >= 500);
const transportErrors = <S extends Sample>(samples: readonly S[]) => samples.filter((s) => s.error !== undefined);

for (const engineName of ['sqlite', 'mariadb'] as const) {
  describe(`reliability: WORKERS=2 under load [${engineName}]`, function () {
    this.timeout(600_000);
    let engine: CrashEngine;
    let service: ServiceProcess;
    let adminToken: string;
    let impiantoIds: number[];
    const acked = { users: new Set<string>(), sessions: new Set<string>() };
    before(async () => {
      engine = engineName === 'sqlite' ? await sqliteEngine() : await mariadbEngine();
      const db = connect({ databaseUrl: engine.env['DATABASE_URL'], sqliteFile: engine.env['SQLITE_FILE'] });
      await seedDemo(db);
      impiantoIds = ((await db.knex('impianto_file').distinct('impianto_id')) as Array<{ impianto_id: number }>).map((r) => Number(r.impianto_id));
      await disconnect(db);
      service = await startService({
        ...engine.env, WORKERS: '2', ADMIN_USERNAME: adminUser.userName, ADMIN_PASSWORD: adminUser.password, ACCESS_TOKEN_TTL: '1h',
        DEFAULT_ROLES: 'ApiUser', SCRYPT_LOG_N: '10', RATE_LIMIT_REGISTER_PER_MIN: String(registerLimit), TRUST_PROXY: 'true',
        PURGE_INTERVAL_S: '1', MAINTENANCE_INTERVAL_S: '1', LOG_LEVEL: 'info',
      }, path.resolve(`test-output/reliability-workers-${engineName}.log`), { readyMs: 120_000 });
      await waitForLog(service, (lines) => lines.some((l) => l.msg === 'every worker listening'), 120_000);
      const signIn = await fetch(`${service.url}/auth/credentials`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(adminUser) });
      adminToken = ((await signIn.json()) as { bearerToken: string }).bearerToken;
      // Each worker's pool opens its connections on demand: on a busy machine the first
      // requests can outwait the 2 s acquire timeout (503, design.md §3), worker or not.
      let warm = false;
      setTimeout(() => (warm = true), 3000);
      await loadWithLedger(service.url, mix(adminToken, impiantoIds), 8, () => warm, () => undefined);
    });
    after(async () => {
      await service?.stop();
      await engine?.close();
    });

    /** Records what the writes acknowledged, for the check against the database. */
    const ledger = (s: Sample, body: Record<string, string> | undefined) => {
      if (s.status !== 200 || !body) return;
      if (s.name === 'register') acked.users.add(body['userName']!.toLowerCase());
      if (body['sessionId']) acked.sessions.add(body['sessionId']);
    };

    it(`${loadSeconds} s of 90 % queries and 10 % writes: every acknowledged write stored, no 5xx, one Register limit, the schedules once`, async () => {
      let stop = false;
      const started = Date.now();
      const running = loadWithLedger(service.url, mix(adminToken, impiantoIds), 16, () => stop, ledger);
      await sleep(Math.min(10_000, (loadSeconds * 1000) / 3));
      const limited = await probeRegisterLimit(service.url);
      await sleep(Math.max(0, started + loadSeconds * 1000 - Date.now()));
      const asked = Date.now();
      const metrics = await (await fetch(`${service.url}/metrics`)).text();
      const scraped = Date.now();
      stop = true;
      const samples = await running;
      const rss = [service.pid, ...workerPids(service.pid)].map(rssMiB);

      const lines = logOf(service);
      const requestLines = lines.filter((l) => l.msg === 'request');
      const turns = lines.filter((l) => l.msg === 'database maintenance' && l['trigger'] === 'schedule');
      const turnsInWindow = turns.filter((l) => l.time >= started && l.time <= scraped).length;
      const turnsCounted = Number(/^db_maintenance_turns_total\{trigger="schedule"\} (\d+)/m.exec(metrics)?.[1]);
      const lost = await engine.reading(async (q) => {
        const users = new Set((await q('SELECT user_name_key AS k FROM app_user')).map((r) => String(r['k'])));
        const sessions = new Set((await q('SELECT id FROM auth_session')).map((r) => String(r['id'])));
        return [...acked.users].filter((u) => !users.has(u)).length + [...acked.sessions].filter((s) => !sessions.has(s)).length;
      });
      const writes = samples.filter((s) => s.name === 'register' || s.name === 'sign-in').length;
      record(`workers-load-${engineName}`, `WORKERS=2, ${loadSeconds} s of 90 % queries, 10 % registrations and sign-ins (${engineName}, 16 client loops)`, {
        'requests': samples.length,
        'requests/s': round(samples.length / loadSeconds),
        'writes (registrations + sign-ins)': `${writes} (${round((100 * writes) / samples.length)} %)`,
        'acknowledged writes (users + sessions)': acked.users.size + acked.sessions.size,
        'of which missing from the database': lost,
        '5xx / transport errors': `${fiveHundreds(samples).length} / ${transportErrors(samples).length}`,
        'requests answered by worker 1 / worker 2': `${requestLines.filter((l) => l.worker === 1).length} / ${requestLines.filter((l) => l.worker === 2).length}`,
        [`one client's ${registerLimit + 3} registrations`]: limited.join(' '),
        'maintenance turns logged in the window / window (s)': `${turnsInWindow} / ${round((scraped - started) / 1000)}`,
        'RSS primary / worker / worker (MiB)': rss.join(' / '),
      });

      expect(fiveHundreds(samples).slice(0, 5)).to.deep.equal([]);
      expect(transportErrors(samples).slice(0, 5)).to.deep.equal([]);
      expect(acked.users.size).to.be.greaterThan(0);
      expect(lost).to.equal(0);
      expect(writes / samples.length).to.be.within(0.08, 0.12);
      expect(requestLines.filter((l) => l.worker === 1).length).to.be.greaterThan(0);
      expect(requestLines.filter((l) => l.worker === 2).length).to.be.greaterThan(0);
      expect(limited).to.deep.equal([...Array<number>(registerLimit).fill(200), 429, 429, 429]);
      const limitWorkers = new Set(requestLines.filter((l) => l.reqId?.startsWith('limit-')).map((l) => l.worker));
      expect([...limitWorkers].sort(), 'workers that answered the limited client').to.deep.equal([1, 2]);
      expect(turns.every((l) => l.role === 'primary' && l.worker === undefined)).to.equal(true);
      expect(turnsInWindow).to.be.within(1, (scraped - started) / 1000 + 1);
      // The count is read between asking and the answer; a turn is counted a moment before its line.
      expect(turnsCounted).to.be.within(turns.filter((l) => l.time <= asked).length - 1, turns.filter((l) => l.time <= scraped).length + 1);
      expect(rss).to.have.length(3);
    });

    it('SIGKILL of one worker under load: it is replaced and logged, the other keeps answering', async () => {
      const victims = workerPids(service.pid);
      expect(victims).to.have.length(2);
      let stop = false;
      const running = loadWithLedger(service.url, mix(adminToken, impiantoIds), 16, () => stop, ledger);
      await sleep(3000);
      const killed = performance.now();
      process.kill(victims[0]!, 'SIGKILL');
      await waitForLog(service, (lines) => lines.filter((l) => l.msg === 'listening').length >= 3, 120_000);
      const replaced = performance.now();
      await sleep(3000);
      stop = true;
      const samples = await running;
      const lines = logOf(service);
      const died = lines.filter((l) => l.msg === 'worker died; starting another');
      const between = samples.filter((s) => s.start > killed + 200 && s.end < replaced && s.status !== undefined && s.status < 300);
      const after = samples.filter((s) => s.start > replaced + 500);
      record(`workers-sigkill-${engineName}`, `SIGKILL of one of two workers under load (${engineName})`, {
        'requests': samples.length,
        'kill to replacement listening (ms)': round(replaced - killed),
        'answered 2xx between the kill and the replacement': between.length,
        'transport errors (connections of the killed worker)': transportErrors(samples).length,
        '5xx': fiveHundreds(samples).length,
        'after the replacement: requests / failed': `${after.length} / ${after.filter((s) => s.error !== undefined || (s.status ?? 0) >= 400).length}`,
      });
      expect(died).to.have.length(1);
      expect(died[0]!['pid']).to.equal(victims[0]);
      expect(workerPids(service.pid)).to.have.length(2);
      expect(workerPids(service.pid)).not.to.include(victims[0]);
      expect(between.length, 'answers while one worker was down').to.be.greaterThan(0);
      expect(fiveHundreds(samples)).to.deep.equal([]);
      // Only requests the killed worker held may fail: none of them reached the other worker.
      const answeredIds = new Set(lines.filter((l) => l.msg === 'request' && l.worker !== undefined).map((l) => l.reqId));
      expect(transportErrors(samples).every((s) => s.end >= killed && !answeredIds.has(s.reqId))).to.equal(true);
      expect(transportErrors(samples).filter((s) => s.start > replaced + 500)).to.deep.equal([]);
      expect(after.filter((s) => s.error !== undefined || (s.status ?? 0) >= 400)).to.deep.equal([]);
    });

    it('SIGTERM of the primary under load: every worker drains, nothing half-written, exit 0', async () => {
      let stop = false;
      let signalled = Infinity;
      const running = loadWithLedger(service.url, mix(adminToken, impiantoIds), 16, () => stop, ledger, (s) => s.start > signalled && s.error === 'ECONNREFUSED');
      await sleep(3000);
      signalled = performance.now();
      service.signal('SIGTERM');
      const code = await service.exit;
      const exited = performance.now();
      stop = true;
      const samples = await running;
      const refused = samples.filter((s) => s.error === 'ECONNREFUSED');
      // A connection the primary accepted but had not handed to a worker when the last one
      // stopped listening is reset: refused too, provided no worker ever saw its request.
      const seen = new Set(logOf(service).filter((l) => l.msg === 'request').map((l) => l.reqId));
      const reset = samples.filter((s) => s.error === 'ECONNRESET' && s.start >= signalled - 1000 && !seen.has(s.reqId));
      const failed = samples.filter((s) => (s.error !== undefined && s.error !== 'ECONNREFUSED' && !reset.includes(s)) || (s.status !== undefined && s.status >= 400));
      const check = await engine.reading(async (q) => {
        const count = async (sql: string) => Number(Object.values((await q(sql))[0]!)[0]);
        const users = new Set((await q('SELECT user_name_key AS k FROM app_user')).map((r) => String(r['k'])));
        return {
          lost: [...acked.users].filter((u) => !users.has(u)).length,
          usersWithoutRoles: await count('SELECT COUNT(*) AS n FROM app_user u WHERE NOT EXISTS (SELECT 1 FROM app_user_role r WHERE r.user_id = u.id)'),
          liveSessionsWithoutToken: await count('SELECT COUNT(*) AS n FROM auth_session s WHERE s.revoked_at IS NULL AND NOT EXISTS (SELECT 1 FROM refresh_token t WHERE t.session_id = s.id)'),
        };
      });
      const stopped = logOf(service).filter((l) => l.msg === 'stopped');
      record(`workers-sigterm-${engineName}`, `SIGTERM of the primary of two workers under load (${engineName})`, {
        'requests': samples.length,
        'in flight at the signal, answered': samples.filter((s) => s.start < signalled && s.end > signalled && s.status !== undefined).length,
        'refused new connections (after the listeners closed)': refused.length,
        'reset before any worker took them (never served)': reset.length,
        'failed (reset, 4xx or 5xx)': failed.length,
        'acknowledged users missing / users without roles / live sessions without token': `${check.lost} / ${check.usersWithoutRoles} / ${check.liveSessionsWithoutToken}`,
        'exit code / signal to exit (ms)': `${code} / ${round(exited - signalled)}`,
      });
      expect(failed.slice(0, 5)).to.deep.equal([]);
      expect(refused.every((s) => s.start > signalled)).to.equal(true);
      expect(reset.length).to.be.at.most(16);
      expect(check).to.deep.equal({ lost: 0, usersWithoutRoles: 0, liveSessionsWithoutToken: 0 });
      expect(stopped.map((l) => l.role ?? 'worker').sort()).to.deep.equal(['primary', 'worker', 'worker']);
      expect(code).to.equal(0);
    });
  });
}

type Tagged = Sample & { readonly reqId: string };

/**
 * `loops` with a request id on every request (to find it in the service's log), a minute
 * to answer (on a busy machine the hashing child, at the lowest CPU priority, can wait
 * long), and the bodies of acknowledged writes kept for `ledger`.
 */
async function loadWithLedger(url: string, requests: Array<() => Req>, concurrency: number, stop: () => boolean, ledger: (s: Sample, body: Record<string, string> | undefined) => void, done: (s: Sample) => boolean = () => false): Promise<Tagged[]> {
  const samples: Tagged[] = [];
  const tag = crypto.randomBytes(3).toString('hex');
  let n = 0;
  await Promise.all(Array.from({ length: concurrency }, async (_, i) => {
    for (let k = i; !stop(); k++) {
      const req = requests[k % requests.length]!();
      const reqId = `load-${tag}-${n++}`;
      const start = performance.now();
      let sample: Tagged;
      try {
        const res = await fetch(url + req.path, { method: req.method, headers: { ...req.headers, 'x-request-id': reqId }, body: req.body, signal: AbortSignal.timeout(60_000) });
        const text = await res.text();
        sample = { name: req.name, reqId, start, end: performance.now(), status: res.status };
        if (res.status === 200 && req.name !== 'query-post' && req.name !== 'query-get' && req.name !== 'files') {
          ledger(sample, { ...(JSON.parse(text) as Record<string, string>), userName: (JSON.parse(req.body!) as { userName: string }).userName });
        }
      } catch (err) {
        const e = err as { name?: string; cause?: { code?: string; name?: string } };
        sample = { name: req.name, reqId, start, end: performance.now(), error: e.cause?.code ?? e.cause?.name ?? e.name ?? String(err) };
      }
      samples.push(sample);
      if (done(sample)) return;
    }
  }));
  return samples;
}
