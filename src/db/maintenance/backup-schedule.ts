// Scheduled backups of the embedded SQLite file (design.md §9): every BACKUP_INTERVAL_S a
// backup into BACKUP_DIR under a name that sorts by time, one log line each, and the
// oldest beyond BACKUP_KEEP deleted, only after a backup succeeded. A failed backup
// leaves no file behind and touches neither the live database nor earlier backups.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { backupSqlite } from '../sqlite-file/sqlite-backup.js';

export interface BackupStats {
  /** Unix seconds of the last successful backup; 0 before the first. */
  readonly lastSuccessS: number;
  readonly lastDurationS: number;
  readonly lastBytes: number;
  readonly successes: number;
  readonly failures: number;
}

export interface BackupSchedule {
  stats(): BackupStats;
  /** One backup now (the timer's turn); resolves when it and its pruning are done. */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

export interface BackupScheduleOptions {
  readonly sqliteFile: string;
  readonly dir: string;
  readonly intervalS: number;
  readonly keep: number;
  readonly logger: Logger;
  readonly clock: () => Date;
}

const prefix = 'impianti-';
const suffix = '.sqlite';
/** `impianti-2026-11-27T07-05-01.123Z.sqlite`: sorts by time, no colon for other file systems. */
export const backupName = (at: Date): string => `${prefix}${at.toISOString().replace(/:/g, '-')}${suffix}`;
const isBackup = (name: string) => name.startsWith(prefix) && name.endsWith(suffix);

/** Deletes the oldest backups of `dir` beyond `keep`; returns the names deleted. */
export function pruneBackups(dir: string, keep: number): string[] {
  const names = fs.readdirSync(dir).filter(isBackup).sort();
  const old = names.slice(0, Math.max(0, names.length - keep));
  for (const name of old) fs.rmSync(path.join(dir, name), { force: true });
  return old;
}

/** Removes what a backup cut short by a killed process left: only its own partial files. */
function removeLeftovers(dir: string): void {
  if (!fs.existsSync(dir)) return;
  for (const name of fs.readdirSync(dir)) if (/^\.impianti-.*\.sqlite\.partial-\d+$/.test(name)) fs.rmSync(path.join(dir, name), { force: true });
}

export function scheduleBackups(options: BackupScheduleOptions): BackupSchedule {
  const { logger } = options;
  if (options.intervalS > 0) {
    try {
      removeLeftovers(options.dir);
    } catch (err) {
      logger.warn({ dir: options.dir, reason: (err as Error).message }, 'could not look for partial backups left by a killed process');
    }
  }
  let stats: BackupStats = { lastSuccessS: 0, lastDurationS: 0, lastBytes: 0, successes: 0, failures: 0 };
  let running: Promise<void> | undefined;
  const turn = async (): Promise<void> => {
    const target = path.join(options.dir, backupName(options.clock()));
    try {
      fs.mkdirSync(options.dir, { recursive: true });
      const taken = await backupSqlite(options.sqliteFile, target);
      if (!taken.ok) throw taken.error;
      const deleted = pruneBackups(options.dir, options.keep);
      const b = taken.value;
      stats = { ...stats, lastSuccessS: options.clock().getTime() / 1000, lastDurationS: b.ms / 1000, lastBytes: b.bytes, successes: stats.successes + 1 };
      logger.info({ backup: target, bytes: b.bytes, ms: Math.round(b.ms), migrationLevel: b.migrationLevel, deleted }, 'backup taken');
    } catch (err) {
      stats = { ...stats, failures: stats.failures + 1 };
      logger.error({ backup: target, reason: (err as Error).message }, 'backup failed; the live database and earlier backups are untouched');
    }
  };
  const runOnce = (): Promise<void> => (running ??= turn().finally(() => { running = undefined; }));
  // A turn still running when the next is due makes the next one skip.
  const timer = options.intervalS > 0 ? setInterval(() => void runOnce(), options.intervalS * 1000) : undefined;
  // A timer must not keep a stopping process alive.
  timer?.unref();
  return {
    stats: () => stats,
    runOnce,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
