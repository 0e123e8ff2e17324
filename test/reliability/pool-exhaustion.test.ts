// Pool exhaustion and slow queries (issue 7): with the tables behind a lock every
// statement that touches them waits, all ten pooled connections are held, and more
// requests queue for them. Each must end as a 503 (QueryTimeout when its statement was
// cancelled at QUERY_TIMEOUT_MS, ServiceUnavailable when no connection came within the
// 2 s acquire timeout), none may hang, the process keeps answering /health, and the
// pool is whole again once the lock goes.
import { expect } from 'chai';
import { percentile, record, round } from './support/figures.js';
import { startTarget, type ReliabilityTarget } from './support/reliability-target.js';
import { adminUser } from './support/reliability-target.js';
import { send, type Req, type Sample } from './support/traffic.js';
import { connect, disconnect } from '../../src/db/connect.js';

const queryTimeoutMs = 1000;
const acquireTimeoutMs = 2000;

describe('reliability: pool exhaustion and slow queries', function () {
  this.timeout(180_000);
  let t: ReliabilityTarget;
  before(async () => {
    t = await startTarget('pool', { QUERY_TIMEOUT_MS: String(queryTimeoutMs), SCRYPT_LOG_N: '10' });
  });
  after(async () => t?.close());

  const auth = () => ({ authorization: `Bearer ${t.adminToken}` });
  const json = (body: unknown) => ({ headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify(body) });

  /** Runs `work` while a session of the test's own holds write locks on `tables`. */
  async function underLock<T>(tables: string[], work: () => Promise<T>): Promise<T> {
    const locker = connect({ databaseUrl: `${t.mariadb.url}/impianti`, poolMax: 1 });
    try {
      return await locker.knex.transaction(async (trx) => {
        await trx.raw(`LOCK TABLES ${tables.map((x) => `${x} WRITE`).join(', ')}`);
        try {
          return await work();
        } finally {
          await trx.raw('UNLOCK TABLES');
        }
      });
    } finally {
      await disconnect(locker);
    }
  }

  it('queues requests for the pool and answers each with a 503 within the timeouts, then recovers', async () => {
    const blocked: Array<() => Req> = [
      () => ({ name: 'query', method: 'POST', path: '/json/reply/CaratteristicaGruppoQuery', ...json({ include: 'Total' }) }),
      () => ({ name: 'files', method: 'GET', path: `/impianti/${t.impiantoIds[0]}/files`, headers: auth() }),
    ];
    const health: Sample[] = [];
    const samples = await underLock(['caratteristica_gruppo', 'impianto', 'impianto_file'], async () => {
      const started = performance.now();
      const probing = (async () => {
        while (performance.now() - started < 4000) health.push(await send(t.service.url, { name: 'health', method: 'GET', path: '/health', headers: {} }));
      })();
      const answers = await Promise.all(Array.from({ length: 90 }, (_, i) => send(t.service.url, blocked[i % blocked.length]!())));
      await probing;
      return answers;
    });
    const after = await Promise.all(Array.from({ length: 30 }, (_, i) => send(t.service.url, blocked[i % blocked.length]!())));

    const latencies = samples.map((s) => s.end - s.start);
    const byCode = (code: string) => samples.filter((s) => s.status === 503 && s.errorCode === code).length;
    record('pool', 'Pool exhaustion and slow queries (pool of 10, 90 requests behind table locks)', {
      'QUERY_TIMEOUT_MS / acquire timeout (ms)': `${queryTimeoutMs} / ${acquireTimeoutMs}`,
      '503 QueryTimeout (statement cancelled)': byCode('QueryTimeout'),
      '503 ServiceUnavailable (no connection in time)': byCode('ServiceUnavailable'),
      'other answers': samples.filter((s) => s.status !== 503).length,
      'latency p50 / max (ms)': `${round(percentile(latencies, 50))} / ${round(Math.max(...latencies))}`,
      '/health meanwhile p50 / max (ms)': `${round(percentile(health.map((s) => s.end - s.start), 50))} / ${round(Math.max(...health.map((s) => s.end - s.start)))}`,
      'after the lock: 2xx of 30': after.filter((s) => s.status! < 300).length,
    });

    expect(samples.filter((s) => s.status !== 503 || !['QueryTimeout', 'ServiceUnavailable'].includes(s.errorCode!)).slice(0, 5)).to.deep.equal([]);
    // The longest wait: a full acquire timeout, then a statement cut at QUERY_TIMEOUT_MS, plus slack for a busy machine.
    expect(Math.max(...latencies)).to.be.below(acquireTimeoutMs + queryTimeoutMs + 1500);
    expect(health.every((s) => s.status === 200)).to.equal(true);
    expect(after.map((s) => s.status)).to.deep.equal(after.map(() => 200));
  });

  it('cuts statements that have no timeout of their own (sign-in, registration) at QUERY_TIMEOUT_MS', async () => {
    const lockMs = 8000;
    let released = Infinity;
    const samples = await underLock(['app_user'], async () => {
      const started = performance.now();
      const answers = await Promise.all([
        ...Array.from({ length: 6 }, () => send(t.service.url, { name: 'sign-in', method: 'POST', path: '/auth/credentials', headers: { 'content-type': 'application/json' }, body: JSON.stringify(adminUser) })),
        ...Array.from({ length: 3 }, (_, i) => send(t.service.url, { name: 'register', method: 'POST', path: '/register', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userName: `locked${i}`, password: 'locked-password' }) })),
      ]);
      // Hold the lock long after the statement limit: a request that waited for it would show.
      await new Promise((r) => setTimeout(r, Math.max(0, lockMs - (performance.now() - started))));
      released = performance.now();
      return answers;
    });
    const latencies = samples.map((s) => s.end - s.start);
    record('poolAccounts', 'Statements without a timeout of their own, behind a lock on app_user', {
      'requests (6 sign-ins, 3 registrations)': samples.length,
      '503 QueryTimeout': samples.filter((s) => s.status === 503 && s.errorCode === 'QueryTimeout').length,
      'latency max (ms)': round(Math.max(...latencies)),
      'lock held for (ms)': lockMs,
    });
    expect(samples.map((s) => [s.status, s.errorCode])).to.deep.equal(samples.map(() => [503, 'QueryTimeout']));
    expect(Math.max(...samples.map((s) => s.end))).to.be.below(released);
    expect(Math.max(...latencies)).to.be.below(queryTimeoutMs + 2000);
  });
});
