// kill -9 under a write load of registrations, sign-ins, refreshes and logouts, on both
// engines (design.md §8): after each restart every write the client saw acknowledged is
// present, nothing is half-written, the engine finds its tables sound, and the service is
// ready within its usual start time. The service dies mid-write, with requests in flight;
// on MariaDB the private server (support/private-mariadb.ts) is killed with it, at the same
// moment, and recovers from its redo log before the service starts again. Both are process
// crashes: the operating system's page cache survives them, so they are not a power cut.
import { expect } from 'chai';
import path from 'node:path';
import { seededRandomOf } from '../support/property-seed.js';
import { accountWrites, checkLedger, lostTotal, newLedger, type LedgerCheck } from './support/account-writes.js';
import { mariadbEngine, sqliteEngine, type CrashEngine } from './support/crash-engines.js';
import { percentile, record, round } from './support/figures.js';
import { freePort } from './support/private-mariadb.js';
import { startService, type ServiceProcess } from './support/service-process.js';
import { sleep } from './support/traffic.js';

// Six kills per engine by default (5-8 s each on a busy machine); CRASH_CYCLES runs more.
const cycles = Number(process.env['CRASH_CYCLES'] ?? 6);
const writers = 6;

/** Starts the service and waits for /ready; resolves with it and the milliseconds that took. */
async function startReady(engine: CrashEngine, port: number, log: string): Promise<{ service: ServiceProcess; ms: number }> {
  const t0 = performance.now();
  const service = await startService({
    ...engine.env, DEFAULT_ROLES: 'ApiUser', SCRYPT_LOG_N: '10', RATE_LIMIT_REGISTER_PER_MIN: '0', RATE_LIMIT_LOGIN_FAILURES_PER_MIN: '0', PURGE_INTERVAL_S: '0',
  }, log, { port, append: true });
  for (;;) {
    if ((await fetch(`${service.url}/ready`).catch(() => undefined))?.status === 200) return { service, ms: performance.now() - t0 };
    if (performance.now() - t0 > 30_000) throw new Error('the service was not ready within 30 s');
    await sleep(20);
  }
}

for (const make of [sqliteEngine, mariadbEngine]) {
  describe(`reliability: kill -9 under writes (${make === sqliteEngine ? 'SQLite' : 'MariaDB'})`, function () {
    this.timeout(300_000);
    let engine: CrashEngine;
    before(async () => { engine = await make(); });
    after(async () => engine?.close());

    const killed = make === sqliteEngine ? 'the service (SQLite in its process)' : 'the service and mariadbd together';
    it(`loses no acknowledged write and half-writes nothing over ${cycles} kills of ${killed}`, async () => {
      const port = await freePort();
      const log = path.resolve(`test-output/reliability-kill-9-${engine.name}.log`);
      const ledger = newLedger();
      let stop = false;
      const base = `http://127.0.0.1:${port}`;
      // The clean start, before any kill, is the usual start time the restarts are held to;
      // the load is already knocking, as it is at every restart.
      const load = accountWrites(() => base, ledger, writers, () => stop);
      let { service, ms: cleanStartMs } = await startReady(engine, port, log);
      const restartMs: number[] = [];
      const checks: Array<LedgerCheck & { integrity: string }> = [];
      // The moments of the kills: FC_SEED replays them (the machine's timing still varies).
      const random = seededRandomOf();
      let usersAtLastKill = 0;
      try {
        for (let i = 0; i < cycles; i++) {
          // Each kill falls at a random moment after a few new registrations, however slow the machine.
          const until = performance.now() + 30_000;
          while (ledger.users.size < usersAtLastKill + 3 && performance.now() < until) await sleep(50);
          expect(ledger.users.size, `registrations acknowledged in cycle ${i}`).to.be.at.least(usersAtLastKill + 3);
          await sleep(random() * 1000);
          usersAtLastKill = ledger.users.size;
          service.signal('SIGKILL');
          const engineBack = engine.crash();
          expect(await service.exit).to.equal(null);
          await engineBack;
          const restarted = await startReady(engine, port, log);
          service = restarted.service;
          restartMs.push(restarted.ms);
          // Only writes acknowledged before the check began: later ones may commit after its reads.
          const before = performance.now();
          const check = await engine.reading((q) => checkLedger(q, ledger, before));
          checks.push({ ...check, integrity: await engine.integrity() });
        }
      } finally {
        stop = true;
        await load;
      }
      const final = await engine.reading((q) => checkLedger(q, ledger));
      await service.stop();

      const lost = checks.reduce((n, c) => n + lostTotal(c), 0) + lostTotal(final);
      const halfWritten = [...checks, final].reduce((n, c) => n + c.usersWithoutRoles + c.liveSessionsWithoutToken, 0);
      const unsound = checks.filter((c) => c.integrity !== 'ok');
      const bound = Math.max(3 * cleanStartMs, cleanStartMs + 2000);
      record(`kill-9-${engine.name}`, `kill -9 under writes (${engine.name === 'sqlite' ? 'SQLite, synchronous FULL' : 'private MariaDB, mariadbd killed with the service'}, ${writers} client loops)`, {
        'kill -9 cycles': cycles,
        'acknowledged writes (users, sessions, tokens, spends, logouts)': final.acknowledged,
        'of which users registered': ledger.users.size,
        'lost acknowledged writes': lost,
        'half-written (users without roles, live sessions without token)': halfWritten,
        'integrity checks passed': `${checks.length - unsound.length} of ${checks.length}`,
        'clean start to /ready (ms)': round(cleanStartMs),
        'restart to /ready after kill -9, p50 / max (ms)': `${round(percentile(restartMs, 50))} / ${round(Math.max(...restartMs))}`,
      });
      expect(final.acknowledged).to.be.greaterThan(cycles * 4);
      expect(checks.map((c) => c.lost).filter((l) => Object.values(l).some((n) => n > 0))).to.deep.equal([]);
      expect(final.lost).to.deep.equal({ users: 0, sessions: 0, revocations: 0, tokens: 0, spends: 0 });
      expect(halfWritten).to.equal(0);
      expect(unsound.map((c) => c.integrity)).to.deep.equal([]);
      expect(restartMs.filter((ms) => ms > bound), `restarts slower than ${round(bound)} ms`).to.deep.equal([]);
    });
  });
}
