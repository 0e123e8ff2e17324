// Rate limits count in one-minute windows aligned on the clock (design.md §12). A test that
// counts a few events against a limit must not straddle two windows, or its last event lands
// in a fresh one and is allowed: this clock runs at real speed from one second into a window.

const windowMs = 60_000;

export function freshWindowClock(): () => Date {
  const now = Date.now();
  const offset = now - (Math.floor(now / windowMs) * windowMs + 1000);
  return () => new Date(Date.now() - offset);
}
