// When the live answers' tokens expire (design.md §7, "Live answers"): tokens expire on whole
// seconds, so the streams whose tokens expire at one instant share one timer.

/** The members that expire at one instant, and its timer. */
export interface ExpiryInstant<T> {
  readonly at: number;
  readonly members: Set<T>;
  timer: NodeJS.Timeout;
}

export class ExpiryTimers<T> {
  private readonly instants = new Map<number, ExpiryInstant<T>>();

  constructor(private readonly expired: (member: T) => void) {}

  /** Calls `expired(member)` at `at` (ms since the epoch); the instant returned is what `remove` takes. */
  add(at: number, member: T): ExpiryInstant<T> {
    let instant = this.instants.get(at);
    if (instant === undefined) {
      instant = { at, members: new Set(), timer: this.timer(at) };
      this.instants.set(at, instant);
    }
    instant.members.add(member);
    return instant;
  }

  remove(instant: ExpiryInstant<T>, member: T): void {
    if (!instant.members.delete(member) || instant.members.size > 0) return;
    clearTimeout(instant.timer);
    if (this.instants.get(instant.at) === instant) this.instants.delete(instant.at);
  }

  clear(): void {
    for (const instant of this.instants.values()) clearTimeout(instant.timer);
    this.instants.clear();
  }

  private timer(at: number): NodeJS.Timeout {
    // setTimeout's bound: a token valid for longer than 24 days is checked again then.
    const timer = setTimeout(() => this.fire(at), Math.min(Math.max(0, at - Date.now()), 2 ** 31 - 1));
    timer.unref();
    return timer;
  }

  private fire(at: number): void {
    const instant = this.instants.get(at);
    if (instant === undefined) return;
    if (at > Date.now()) {
      instant.timer = this.timer(at);
      return;
    }
    this.instants.delete(at);
    for (const member of [...instant.members]) this.expired(member);
  }
}
