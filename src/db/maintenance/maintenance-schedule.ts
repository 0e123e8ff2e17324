// When the service maintains its database (design.md §8): after each purge that deleted
// rows, and every MAINTENANCE_INTERVAL_S. Each turn logs one line and is counted for
// /metrics; on MySQL one node at a time takes the turn, the others skip it.
import type { Logger } from 'pino';
import type { Database } from '../database.js';
import { createMaintainer, type MaintenanceResult } from './maintenance.js';
import { withNamedLock } from '../named-lock.js';

export type MaintenanceTrigger = 'purge' | 'schedule';

export interface MaintenanceSchedule {
  /** A turn now, for a purge that deleted rows; resolves when it is done. */
  afterPurge(): Promise<void>;
  /** Turns this node has taken since it started, by what started them. */
  turns(): Readonly<Record<MaintenanceTrigger, number>>;
  stop(): Promise<void>;
}

const lockName = 'impianti_api_maintenance';

export function scheduleMaintenance(deps: { db: Database; logger: Logger; intervalS: number }): MaintenanceSchedule {
  const maintainer = createMaintainer(deps.db);
  const turns: Record<MaintenanceTrigger, number> = { purge: 0, schedule: 0 };
  let running: Promise<void> | undefined;
  const once = async (): Promise<MaintenanceResult | undefined> => {
    if (deps.db.dialect !== 'mysql') return maintainer.turn();
    const turn = await withNamedLock(deps.db, lockName, 0, () => maintainer.turn());
    return turn.held ? turn.value : undefined;
  };
  const turn = async (trigger: MaintenanceTrigger) => {
    const started = performance.now();
    try {
      const result = await once();
      if (!result) return deps.logger.debug({ trigger }, 'database maintenance skipped: another node holds the turn');
      turns[trigger]++;
      deps.logger.info({ trigger, ...result, ms: Math.round(performance.now() - started) }, 'database maintenance');
    } catch (err) {
      deps.logger.warn({ err, trigger }, 'database maintenance failed; the next turn tries again');
    }
  };
  // A turn asked for while one runs joins it rather than queueing a second.
  const start = (trigger: MaintenanceTrigger) => (running ??= turn(trigger).finally(() => { running = undefined; }));
  const timer = deps.intervalS > 0 ? setInterval(() => void start('schedule'), deps.intervalS * 1000) : undefined;
  // A timer must not keep a stopping process alive.
  timer?.unref();
  return {
    afterPurge: () => start('purge'),
    turns: () => ({ ...turns }),
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
