// The RateLimit-Policy and RateLimit response fields of draft-ietf-httpapi-ratelimit-headers
// (design.md §4): the policy's quota and window, and what is left of it for this client.
// The names are the contract's `x-rate-limit` values of the operations that count.
import { rateWindowMs, type RateDecision } from './rate-limiter.js';

export type RatePolicy = 'register' | 'sign-in-failures' | 'export' | 'live';

/** The fields of one decision; none while the limit is off (a limit of 0). */
export function rateLimitFields(policy: RatePolicy, d: RateDecision, windowMs = rateWindowMs): Record<string, string> {
  if (d.limit <= 0) return {};
  return {
    'RateLimit-Policy': `"${policy}";q=${d.limit};w=${Math.round(windowMs / 1000)}`,
    RateLimit: `"${policy}";r=${d.remaining};t=${d.resetSeconds}`,
  };
}

/**
 * The fields of a limit on requests running at once (the exports, design.md §7): the
 * draft's quota unit `concurrent-requests`, which has no window; `r` the requests that may
 * still start now, `t` the seconds to wait when none may (the 429's Retry-After), else 0.
 */
export function concurrencyLimitFields(policy: RatePolicy, limit: number, remaining: number, retryAfterSeconds: number): Record<string, string> {
  return {
    'RateLimit-Policy': `"${policy}";q=${limit};qu="concurrent-requests"`,
    RateLimit: `"${policy}";r=${remaining};t=${remaining > 0 ? 0 : retryAfterSeconds}`,
  };
}
