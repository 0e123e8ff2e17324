// Per-key request limits (design.md §4: Register and failed sign-ins per client IP).
// The in-memory limiter (one node: the embedded SQLite file) counts in one-minute windows
// from each key's first event on the injected clock; MySQL deployments share their counts
// through shared-rate-limiter.ts.

export interface RateDecision {
  readonly allowed: boolean;
  /** Seconds until the key's window ends; 0 when allowed. */
  readonly retryAfterSeconds: number;
}

export interface RateLimiter {
  /** Counts one event for `key` and says whether it is within the limit. */
  hit(key: string): Promise<RateDecision>;
  /** Says whether one more event would be within the limit, without counting it. */
  check(key: string): Promise<RateDecision>;
}

/** The length of a counting window: the limits are per minute (RATE_LIMIT_*_PER_MIN). */
export const rateWindowMs = 60_000;

const allowed: RateDecision = Object.freeze({ allowed: true, retryAfterSeconds: 0 });

/** The limiter for a limit of 0: everything passes. */
export const unlimited: RateLimiter = { hit: async () => allowed, check: async () => allowed };

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
    if (now - lastSweep >= windowMs) {
      for (const [k, w] of windows) if (now - w.start >= windowMs) windows.delete(k);
      lastSweep = now;
    }
    const w = windows.get(key);
    return w && now - w.start < windowMs ? w : undefined;
  };
  const decide = (w: Window, now: number, within: boolean): RateDecision =>
    within ? allowed : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((w.start + windowMs - now) / 1000)) };

  return {
    async hit(key) {
      const now = clock().getTime();
      let w = current(key, now);
      if (!w) windows.set(key, (w = { start: now, count: 0 }));
      w.count++;
      return decide(w, now, w.count <= limit);
    },
    async check(key) {
      const now = clock().getTime();
      const w = current(key, now);
      return w ? decide(w, now, w.count < limit) : allowed;
    },
  };
}
