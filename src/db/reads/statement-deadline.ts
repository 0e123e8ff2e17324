// The client's backstop behind the server's own statement limit (connect.ts:
// max_statement_time): a read the server has not answered by its deadline is given up, so
// a server that stops answering altogether cannot hold a request forever (design.md §8).
//
// One sweep a quarter second over the statements in flight, rather than mysql2's timer per
// statement: that timer, and the options object its `timeout` needs, cost about 5 µs of the
// ~230 µs of main-thread CPU of an idIn request, so a deadline fires up to one sweep late.
//
// The statements in flight sit in an array of slots, each cleared the moment its statement
// settles, not in a Set: with a Set, each request's rows, closures and promise reach the
// old generation (1 KB a request of an idIn load, 38 MB in 6 s against 1 MB with the
// slots) and garbage collection costs 2-3 times the baseline's.

const sweepMs = 250;

export interface Deadline {
  readonly at: number;
  readonly expire: () => void;
  /** Its index in `slots` while it is pending; -1 once cancelled or expired. */
  slot: number;
}

const slots: (Deadline | undefined)[] = [];
/** Indexes of empty slots, reused before the array grows: it holds as many as were ever in flight at once. */
const freeSlots: number[] = [];
const nonePending = (): boolean => freeSlots.length === slots.length;
let sweeper: NodeJS.Timeout | undefined;

function sweep(): void {
  const now = performance.now();
  for (const d of slots) {
    if (d === undefined || now < d.at) continue;
    cancel(d);
    try {
      d.expire();
    } catch {
      // One deadline's failure must not stop the sweep, nor surface as an error in a timer.
    }
  }
  if (nonePending()) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

/** Calls `expire` once, `afterMs` from now (up to one sweep later), unless `cancel`led first. */
export function watch(afterMs: number, expire: () => void): Deadline {
  const slot = freeSlots.pop() ?? slots.push(undefined) - 1;
  const deadline: Deadline = { at: performance.now() + afterMs, expire, slot };
  slots[slot] = deadline;
  // Unreferenced: a statement in flight keeps the process alive through its socket anyway.
  sweeper ??= setInterval(sweep, sweepMs).unref();
  return deadline;
}

/** Idempotent: a deadline already cancelled or expired is left alone. */
export function cancel(deadline: Deadline): void {
  if (deadline.slot < 0) return;
  slots[deadline.slot] = undefined;
  freeSlots.push(deadline.slot);
  deadline.slot = -1;
}
