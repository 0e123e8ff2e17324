// Live answers (design.md §7, "Live answers"): subscriptions to a tagged GET share one
// execution per normalized request, and one read of the table versions per interval tells,
// for every subscription of the process at once, which requests must run again. A write by
// any path on any node moves a version, so it reaches every node's subscribers within the
// interval plus the query's own time.
import { ExpiryTimers, type ExpiryInstant } from './expiry-timers.js';
import { answerEvent, heartbeat, namedEvent, retryField } from './live-events.js';

/**
 * An answer as the plain GET gives it: its entity tag (undefined when untagged) and its JSON
 * text; undefined `data` for an answer known by its tag alone (a 304 to Last-Event-ID).
 */
export interface LiveAnswer {
  readonly tag: string | undefined;
  readonly data: string | undefined;
}

/** What a subscription asks. Subscriptions with equal keys share one execution and one answer. */
export interface LiveRead {
  /** The normalized request: the plan, the roles, the representation. */
  readonly key: string;
  /** The tables the answer is made of. */
  readonly tables: readonly string[];
  /** Reads the answer now; a rejection is an outage, sent as an `unavailable` event. */
  readonly read: () => Promise<LiveAnswer>;
}

/** Where a subscription's events go: one stream. */
export interface LiveSink {
  /** Writes `event`; false when the client has left more unsent than the bound, and is to be dropped. */
  write(event: Buffer): boolean;
  /** Ends the stream after `event`; without it, cuts the stream at once (a client dropped). */
  end(event?: Buffer): void;
}

export interface LiveHubOptions {
  readonly intervalMs: number;
  readonly heartbeatMs: number;
  readonly maxSubscriptions: number;
  /** The version of every versioned table, in one statement. */
  readonly readVersions: () => Promise<ReadonlyMap<string, string>>;
  /** The `unavailable` event's data for a failed read: a ResponseStatus envelope, never a driver's text. */
  readonly failureData: (err: unknown) => string;
}

export interface LiveFigures {
  readonly subscriptions: number;
  readonly requests: number;
  readonly reruns: number;
}

interface Group {
  readonly read: LiveRead;
  readonly subscriptions: Set<Subscription>;
  /** The versions of `read.tables` this answer is no older than; undefined before its first read. */
  versions: string | undefined;
  answer: LiveAnswer | undefined;
  /** `answer` as an event, encoded once for all the group's streams. */
  event: Buffer | undefined;
  /** A read of this group in flight, which later subscribers wait for. */
  running: Promise<void> | undefined;
  failing: boolean;
}

/** An open subscription; `unsubscribe` ends it when its client leaves. */
export interface Subscribed {
  readonly ok: true;
  unsubscribe(): void;
}

export interface SubscribeOptions {
  /** The tag the client holds (Last-Event-ID): no first event while the answer keeps it. */
  readonly lastEventId?: string | undefined;
  /** The answer the caller read as the subscription opened: a new group takes it instead of reading again. */
  readonly seed?: LiveAnswer | undefined;
  /** When the stream ends with an `expired` event (ms since the epoch), and that event's data. */
  readonly expiresAt?: number | undefined;
  readonly expiredData?: string;
}

// A class, so that an open stream costs the hub one small object and no closure (design.md §7, "Live answers").
class Subscription implements Subscribed {
  expiry: ExpiryInstant<Subscription> | undefined = undefined;

  constructor(
    private readonly hub: LiveHub,
    readonly group: Group,
    readonly sink: LiveSink,
    /** The tag the client holds: nothing is sent while the answer keeps it. */
    public held: string | undefined,
    readonly expiredData: string | undefined,
  ) {}

  get ok(): true {
    return true;
  }

  unsubscribe(): void {
    this.hub.remove(this);
  }
}

/**
 * How many stream writes one turn of the event loop makes, answers and heartbeats together:
 * node sends a turn's writes after it, so their buffers die young instead of 10,000 streams'
 * piling up (design.md §7, "Live answers").
 */
const writesPerTurn = 256;

export class LiveHub {
  private readonly groups = new Map<string, Group>();
  private readonly expiries = new ExpiryTimers<Subscription>((s) => {
    this.remove(s);
    s.sink.end(namedEvent('expired', s.expiredData ?? '{}'));
  });
  private count = 0;
  private reruns = 0;
  private timer: NodeJS.Timeout | undefined;
  /** When the next version read is due (performance.now()); undefined while no stream is open. */
  private due: number | undefined;
  private beat: NodeJS.Timeout | undefined;
  private closed = false;
  private pollFailing = false;
  /** Stream writes made in this turn of the event loop, and the wait for the next turn once they reach writesPerTurn. */
  private writesThisTurn = 0;
  private nextTurn: Promise<void> | undefined;

  constructor(private readonly options: LiveHubOptions) {}

  figures(): LiveFigures {
    return { subscriptions: this.count, requests: this.groups.size, reruns: this.reruns };
  }

  /** The cap on open subscriptions (LIVE_MAX_SUBSCRIPTIONS). */
  get limit(): number {
    return this.options.maxSubscriptions;
  }

  /** Whether one more subscription fits under the cap. */
  hasRoom(): boolean {
    return !this.closed && this.count < this.options.maxSubscriptions;
  }

  /**
   * Opens a subscription: its first event is the current answer, unless the client holds its
   * tag; later events follow each change of the tag. Past the cap, `ok: false`.
   */
  subscribe(read: LiveRead, sink: LiveSink, opts: SubscribeOptions = {}): Subscribed | { readonly ok: false } {
    if (!this.hasRoom()) return { ok: false };
    let group = this.groups.get(read.key);
    if (group === undefined) {
      group = { read, subscriptions: new Set(), versions: undefined, answer: opts.seed, event: undefined, running: undefined, failing: false };
      this.groups.set(read.key, group);
    }
    const subscription = new Subscription(this, group, sink, opts.lastEventId, opts.expiredData);
    group.subscriptions.add(subscription);
    this.count++;
    if (opts.expiresAt !== undefined) subscription.expiry = this.expiries.add(opts.expiresAt, subscription);
    // A seed read as a 304 carries the tag alone: a client that does not hold it needs the rows.
    const known = group.answer !== undefined && (group.answer.data !== undefined || group.answer.tag === subscription.held);
    if (known && group.running === undefined) this.deliver(subscription);
    else void this.run(group);
    this.start();
    return subscription;
  }

  /** Ends every stream with a `retry:` hint, so clients come back once another node (or this one, restarted) serves. */
  close(retryMs: number): void {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.beat);
    this.expiries.clear();
    for (const group of this.groups.values()) {
      for (const s of group.subscriptions) s.sink.end(retryField(retryMs));
      group.subscriptions.clear();
    }
    this.groups.clear();
    this.count = 0;
  }

  /** Ends `subscription` (its client left, or it was dropped or expired); a second call does nothing. */
  remove(subscription: Subscription): void {
    const { group, expiry } = subscription;
    if (!group.subscriptions.delete(subscription)) return;
    if (expiry !== undefined) this.expiries.remove(expiry, subscription);
    this.count--;
    if (group.subscriptions.size === 0 && this.groups.get(group.read.key) === group) this.groups.delete(group.read.key);
    if (this.count === 0) this.stop();
  }

  /** Sends the group's answer to one subscriber, unless it holds that tag already and nothing failed since (`again`). */
  private deliver(subscription: Subscription, again = false): void {
    const { group } = subscription;
    const answer = group.answer!;
    if ((!again && answer.tag !== undefined && answer.tag === subscription.held) || answer.data === undefined) return;
    subscription.held = answer.tag;
    this.write(subscription, (group.event ??= answerEvent(answer.tag, answer.data)));
  }

  /** Writes `event` to one stream; a client that stopped reading is dropped. */
  private write(subscription: Subscription, event: Buffer): void {
    this.writesThisTurn++;
    if (!subscription.sink.write(event)) this.drop(subscription);
  }

  /**
   * Calls `each` for every subscription of `subscriptions`, waiting for the next turn of the
   * event loop whenever this turn has made its share of writes. A Set's iteration reaches the
   * members added meanwhile; those removed while it waited are skipped.
   */
  private async paced(subscriptions: Set<Subscription>, each: (s: Subscription) => void): Promise<void> {
    for (const s of subscriptions) {
      if (this.writesThisTurn >= writesPerTurn) {
        await (this.nextTurn ??= new Promise<void>((resolve) =>
          setImmediate(() => {
            this.writesThisTurn = 0;
            this.nextTurn = undefined;
            resolve();
          }),
        ));
        if (!subscriptions.has(s)) continue;
      }
      each(s);
    }
  }

  /** A client that stopped reading: its stream is cut (`end` without text), and nothing more is kept for it. */
  private drop(subscription: Subscription): void {
    this.remove(subscription);
    subscription.sink.end();
  }

  private broadcast(group: Group, event: Buffer): Promise<void> {
    return this.paced(group.subscriptions, (s) => this.write(s, event));
  }

  /** Runs the group's read once, however many ask meanwhile, and sends the answer to whoever does not hold it. */
  private run(group: Group, versions?: string): Promise<void> {
    group.running ??= (async () => {
      try {
        const answer = await group.read.read();
        this.reruns++;
        const wasFailing = group.failing;
        group.failing = false;
        if (versions !== undefined) group.versions = versions;
        group.answer = answer;
        group.event = undefined;
        // Every subscriber not holding this tag gets it, those who joined while it ran or while
        // it is sent included; after an `unavailable` event every subscriber gets the answer
        // again: the outage is over.
        await this.paced(group.subscriptions, (s) => this.deliver(s, wasFailing));
      } catch (err) {
        if (!group.failing) await this.broadcast(group, namedEvent('unavailable', this.options.failureData(err)));
        group.failing = true;
      } finally {
        group.running = undefined;
      }
    })();
    return group.running;
  }

  private start(): void {
    if (this.timer !== undefined || this.closed) return;
    // Reads keep a fixed rate: a tick's own time (the version read, the re-runs) comes out
    // of the wait for the next one, so a write waits at most one interval for its read.
    const now = performance.now();
    this.due = this.due === undefined ? now + this.options.intervalMs : Math.max(this.due + this.options.intervalMs, now);
    this.timer = setTimeout(() => void this.tick(), this.due - now);
    this.beat ??= setInterval(() => void this.beatAll(), this.options.heartbeatMs);
  }

  /**
   * A comment to every stream, at most `writesPerTurn` writes in a turn of the event loop.
   */
  private async beatAll(): Promise<void> {
    for (const group of [...this.groups.values()]) await this.paced(group.subscriptions, (s) => this.write(s, heartbeat));
  }

  private stop(): void {
    clearTimeout(this.timer);
    clearInterval(this.beat);
    this.timer = this.beat = this.due = undefined;
  }

  /** One read of the versions for every subscription of the process; the groups whose tables moved run again. */
  private async tick(): Promise<void> {
    const timer = this.timer;
    try {
      let versions: ReadonlyMap<string, string>;
      try {
        versions = await this.options.readVersions();
        this.pollFailing = false;
      } catch (err) {
        if (!this.pollFailing) {
          const data = namedEvent('unavailable', this.options.failureData(err));
          for (const group of this.groups.values()) {
            group.failing = true;
            void this.broadcast(group, data);
          }
        }
        this.pollFailing = true;
        return;
      }
      const runs: Promise<void>[] = [];
      for (const group of this.groups.values()) {
        const now = group.read.tables.map((t) => `${t}=${versions.get(t) ?? ''}`).join(';');
        if (now !== group.versions || group.failing) runs.push(this.run(group, now));
      }
      await Promise.all(runs);
    } finally {
      // A stop, and a start after it, while this read ran leave a timer of their own.
      if (this.timer === timer) {
        this.timer = undefined;
        if (this.count > 0) this.start();
      }
    }
  }
}
