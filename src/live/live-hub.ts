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
  /** Writes `text`; false when the client has left more unsent than the bound, and is to be dropped. */
  write(text: string): boolean;
  /** Ends the stream after `text`; without it, cuts the stream at once (a client dropped). */
  end(text?: string): void;
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

/** How many streams a heartbeat writes to in one turn of the event loop. */
const beatSlice = 256;

export class LiveHub {
  private readonly groups = new Map<string, Group>();
  private readonly expiries = new ExpiryTimers<Subscription>((s) => {
    this.remove(s);
    s.sink.end(namedEvent('expired', s.expiredData ?? '{}'));
  });
  private count = 0;
  private reruns = 0;
  private timer: NodeJS.Timeout | undefined;
  private beat: NodeJS.Timeout | undefined;
  private closed = false;
  private pollFailing = false;

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
      group = { read, subscriptions: new Set(), versions: undefined, answer: opts.seed, running: undefined, failing: false };
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
    const answer = subscription.group.answer!;
    if ((!again && answer.tag !== undefined && answer.tag === subscription.held) || answer.data === undefined) return;
    subscription.held = answer.tag;
    if (!subscription.sink.write(answerEvent(answer.tag, answer.data))) this.drop(subscription);
  }

  /** A client that stopped reading: its stream is cut (`end` without text), and nothing more is kept for it. */
  private drop(subscription: Subscription): void {
    this.remove(subscription);
    subscription.sink.end();
  }

  private broadcast(group: Group, text: string): void {
    for (const s of [...group.subscriptions]) if (!s.sink.write(text)) this.drop(s);
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
        // Every subscriber not holding this tag gets it, those who joined while it ran included;
        // after an `unavailable` event every subscriber gets the answer again: the outage is over.
        for (const s of [...group.subscriptions]) this.deliver(s, wasFailing);
      } catch (err) {
        if (!group.failing) this.broadcast(group, namedEvent('unavailable', this.options.failureData(err)));
        group.failing = true;
      } finally {
        group.running = undefined;
      }
    })();
    return group.running;
  }

  private start(): void {
    if (this.timer !== undefined || this.closed) return;
    this.timer = setTimeout(() => void this.tick(), this.options.intervalMs);
    this.beat ??= setInterval(() => void this.beatAll(), this.options.heartbeatMs);
  }

  /**
   * A comment to every stream, `beatSlice` streams per turn of the event loop: node sends a
   * turn's writes after it, so their buffers die young instead of 10,000 streams' piling up.
   */
  private async beatAll(): Promise<void> {
    let written = 0;
    for (const group of [...this.groups.values()]) {
      for (const s of [...group.subscriptions]) {
        if (this.closed) return;
        if (!group.subscriptions.has(s)) continue;
        if (!s.sink.write(heartbeat)) this.drop(s);
        if (++written % beatSlice === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
  }

  private stop(): void {
    clearTimeout(this.timer);
    clearInterval(this.beat);
    this.timer = this.beat = undefined;
  }

  /** One read of the versions for every subscription of the process; the groups whose tables moved run again. */
  private async tick(): Promise<void> {
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
            this.broadcast(group, data);
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
      this.timer = undefined;
      if (this.count > 0) this.start();
    }
  }
}
