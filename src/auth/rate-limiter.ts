// Per-key request limits (design.md §4: Register and failed sign-ins per client IP).
// The in-memory limiter (one node: the embedded SQLite file) counts in one-minute windows
// on the injected clock; MySQL deployments share their counts through shared-rate-limiter.ts.

export interface RateDecision {
  readonly allowed: boolean;
  /** Seconds until the key's window ends; 0 when allowed. */
  readonly retryAfterSeconds: number;
  /** The limit's quota per window; 0 when the limit is off. */
  readonly limit: number;
  /** Events the key may still spend in this window (after this one, for a hit). */
  readonly remaining: number;
  /** Seconds until this window ends, at least 1. */
  readonly resetSeconds: number;
}

export interface RateLimiter {
  /** Counts one event for `key` and says whether it is within the limit. */
  hit(key: string): Promise<RateDecision>;
  /** Says whether one more event would be within the limit, without counting it. */
  check(key: string): Promise<RateDecision>;
}

/** The length of a counting window: the limits are per minute (RATE_LIMIT_*_PER_MIN). */
export const rateWindowMs = 60_000;

const off: RateDecision = Object.freeze({ allowed: true, retryAfterSeconds: 0, limit: 0, remaining: 0, resetSeconds: 1 });

/** The limiter for a limit of 0: everything passes. */
export const unlimited: RateLimiter = { hit: async () => off, check: async () => off };

/**
 * Windows are aligned on the clock (each starts at a whole minute), on every engine: one
 * key's figures are then the same whichever node or limiter answers (design.md §12).
 */
export const windowStartOf = (now: number, windowMs = rateWindowMs): number => Math.floor(now / windowMs) * windowMs;

/** The decision for `spent` events in the window that holds `now`; `within` says whether the event passes. */
export function decision(limit: number, spent: number, within: boolean, now: number, windowMs = rateWindowMs): RateDecision {
  const resetSeconds = Math.max(1, Math.ceil((windowStartOf(now, windowMs) + windowMs - now) / 1000));
  return { allowed: within, retryAfterSeconds: within ? 0 : resetSeconds, limit, remaining: Math.max(0, limit - spent), resetSeconds };
}

interface Window {
  start: number;
  count: number;
}

export function createMemoryRateLimiter(limit: number, clock: () => Date, windowMs = rateWindowMs): RateLimiter {
  if (limit <= 0) return unlimited;
  const windows = new Map<string, Window>();
  let lastSweep = 0;

  const current = (key: string, now: number): Window | undefined => {
    // Sweeping once a window keeps the map as small as the set of recently seen keys,
    // so a flood of distinct addresses cannot grow it without bound for long.
    const start = windowStartOf(now, windowMs);
    if (start > lastSweep) {
      for (const [k, w] of windows) if (w.start < start) windows.delete(k);
      lastSweep = start;
    }
    const w = windows.get(key);
    return w && w.start === start ? w : undefined;
  };

  return {
    async hit(key) {
      const now = clock().getTime();
      let w = current(key, now);
      if (!w) windows.set(key, (w = { start: windowStartOf(now, windowMs), count: 0 }));
      w.count++;
      return decision(limit, w.count, w.count <= limit, now, windowMs);
    },
    async check(key) {
      const now = clock().getTime();
      const count = current(key, now)?.count ?? 0;
      return decision(limit, count, count < limit, now, windowMs);
    },
  };
}
