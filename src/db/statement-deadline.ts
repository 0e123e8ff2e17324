// The client's backstop behind the server's own statement limit (connect.ts:
// max_statement_time): a read the server has not answered by its deadline is given up, so
// a server that stops answering altogether cannot hold a request forever (design.md §8).
//
// One sweep a quarter second over the statements in flight, rather than mysql2's timer per
// statement: that timer, and the options object its `timeout` needs, cost about 5 µs of the
// ~230 µs of main-thread CPU of an idIn request in the bench's profile (scripts/bench/README.md).
// So a deadline fires up to one sweep late.

const sweepMs = 250;

export interface Deadline {
  readonly at: number;
  readonly expire: () => void;
}

const pending = new Set<Deadline>();
let sweeper: NodeJS.Timeout | undefined;

function sweep(): void {
  const now = performance.now();
  for (const d of pending) {
    if (now < d.at) continue;
    pending.delete(d);
    try {
      d.expire();
    } catch {
      // One deadline's failure must not stop the sweep, nor surface as an error in a timer.
    }
  }
  if (pending.size === 0) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

/** Calls `expire` once, `afterMs` from now (up to one sweep later), unless `cancel`led first. */
export function watch(afterMs: number, expire: () => void): Deadline {
  const deadline: Deadline = { at: performance.now() + afterMs, expire };
  pending.add(deadline);
  // Unreferenced: a statement in flight keeps the process alive through its socket anyway.
  sweeper ??= setInterval(sweep, sweepMs).unref();
  return deadline;
}

export function cancel(deadline: Deadline): void {
  pending.delete(deadline);
}
