// What `npm run load` says while it runs. On a terminal, a live line through cli-progress:
// the share of the file's bytes read, rows read, rows per second and the time left.
// Otherwise (a log, CI) one plain line every few seconds with the same figures, so a
// long load is never silent and a log is not flooded.
import { SingleBar } from 'cli-progress';

export interface LoadProgress {
  /** Called once a batch: `rows` read so far, `bytes` of the file read so far. */
  tick(rows: number, bytes: number): void;
  /** Clears the live line (the summary follows it). */
  end(): void;
}

export interface ProgressOptions {
  readonly table: string;
  readonly totalBytes: number;
  readonly stream: NodeJS.WritableStream & { isTTY?: boolean };
  /** Milliseconds between plain lines. */
  readonly everyMs: number;
  readonly now: () => number;
}

export function loadProgress(options: ProgressOptions): LoadProgress {
  return options.stream.isTTY ? liveLine(options) : plainLines(options);
}

const rate = (rows: number, ms: number) => Math.round(rows / Math.max(ms / 1000, 0.001));

function timeLeft(elapsedMs: number, bytes: number, total: number): string {
  if (bytes <= 0 || total <= 0) return 'unknown';
  const s = Math.max(0, Math.round(((elapsedMs / bytes) * (total - bytes)) / 1000));
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

function liveLine({ table, totalBytes, stream, now }: ProgressOptions): LoadProgress {
  const started = now();
  const bar = new SingleBar({
    stream: stream as NodeJS.WriteStream,
    format: `loading ${table} {bar} {percentage}% of the file | {rows} rows | {rate} rows/s | {left} left`,
    hideCursor: true,
    clearOnComplete: true,
    barsize: 24,
  });
  bar.start(Math.max(totalBytes, 1), 0, { rows: 0, rate: 0, left: 'unknown' });
  return {
    tick(rows, bytes) {
      const ms = now() - started;
      bar.update(Math.min(bytes, totalBytes), { rows, rate: rate(rows, ms), left: timeLeft(ms, bytes, totalBytes) });
    },
    end: () => bar.stop(),
  };
}

function plainLines({ table, totalBytes, stream, everyMs, now }: ProgressOptions): LoadProgress {
  const started = now();
  let last = started;
  return {
    tick(rows, bytes) {
      const t = now();
      if (t - last < everyMs) return;
      last = t;
      const percent = totalBytes > 0 ? Math.floor((Math.min(bytes, totalBytes) / totalBytes) * 100) : 100;
      stream.write(`loading ${table}: ${rows} rows read, ${rate(rows, t - started)} rows/s, ${percent}% of the file, ${timeLeft(t - started, bytes, totalBytes)} left\n`);
    },
    end: () => undefined,
  };
}

/** The last line of a load that wrote its rows: the rows-per-second figure the bench reports. */
export function summary(table: string, rows: number, ms: number, peakMb: number): string {
  return `${rows} rows loaded into ${table} in ${(ms / 1000).toFixed(1)} s: ${rate(rows, ms)} rows/s, peak memory ${peakMb} MB`;
}
