// MySQL deployments count rate limits in windows aligned on the clock (design.md §12). A
// test that counts a few events against a limit must not straddle two windows, or its last
// event lands in a fresh one and is allowed: this clock runs at real speed from one second
// into a window.
import { rateWindowMs } from '../../src/auth/rate-limiter.js';

export function freshWindowClock(): () => Date {
  const now = Date.now();
  const offset = now - (Math.floor(now / rateWindowMs) * rateWindowMs + 1000);
  return () => new Date(Date.now() - offset);
}
