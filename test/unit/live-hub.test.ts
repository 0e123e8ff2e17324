// The live answers' hub (src/live/live-hub.ts) with a fake database: which reads run, and
// which events each subscriber gets, as the versions move.
import { expect } from 'chai';
import { LiveHub, type LiveRead, type LiveSink } from '../../src/live/live-hub.js';

const interval = 20;
const settle = (ms = interval * 3) => new Promise((resolve) => setTimeout(resolve, ms));

/** A stream that records what it is sent; `full` makes it refuse writes, as a client that stopped reading. */
function sink(full = false): LiveSink & { readonly events: string[]; ended: string | undefined | false } {
  const events: string[] = [];
  const s = {
    events,
    ended: false as string | undefined | false,
    write: (event: Buffer) => (events.push(event.toString()), !full),
    end: (event?: Buffer) => void (s.ended = event?.toString()),
  };
  return s;
}

/** A fake database: table versions, and answers made of them; counts the reads. */
function world() {
  const versions = new Map([['a', '1'], ['b', '1']]);
  let failing = false;
  let reads = 0;
  const hub = new LiveHub({
    intervalMs: interval,
    heartbeatMs: 60_000,
    maxSubscriptions: 10_050,
    readVersions: async () => {
      if (failing) throw new Error('connect ECONNREFUSED');
      return new Map(versions);
    },
    failureData: () => '{"responseStatus":{"errorCode":"ServiceUnavailable"}}',
  });
  const read = (key: string, table = 'a', body = () => `{"v":${versions.get(table)}}`): LiveRead => ({
    key,
    tables: [table],
    read: async () => {
      if (failing) throw new Error('connect ECONNREFUSED');
      reads++;
      return { tag: `"${key}-${versions.get(table)}"`, data: body() };
    },
  });
  return { hub, versions, read, reads: () => reads, fail: (on: boolean) => (failing = on) };
}

describe('live answers: the hub', () => {
  it('sends the current answer first, with its tag as id, and shares one read between equal requests', async () => {
    const w = world();
    const [x, y] = [sink(), sink()];
    w.hub.subscribe(w.read('q'), x);
    w.hub.subscribe(w.read('q'), y);
    await settle(5);
    expect(x.events).to.deep.equal(['id: "q-1"\ndata: {"v":1}\n\n']);
    expect(y.events).to.deep.equal(x.events);
    expect(w.reads()).to.equal(1);
    expect(w.hub.figures()).to.include({ subscriptions: 2, requests: 1 });
    w.hub.close(0);
  });

  it('runs a request again only when its tables move, and sends only a changed answer', async () => {
    const w = world();
    const [onA, onB] = [sink(), sink()];
    w.hub.subscribe(w.read('qa', 'a'), onA);
    w.hub.subscribe(w.read('qb', 'b'), onB);
    await settle();
    const before = w.reads();
    await settle();
    expect(w.reads(), 'no write, no read').to.equal(before);
    w.versions.set('a', '2');
    await settle();
    expect(w.reads() - before, 'the moved table\'s request alone').to.equal(1);
    expect(onA.events.at(-1)).to.equal('id: "qa-2"\ndata: {"v":2}\n\n');
    expect(onB.events).to.have.length(1);
    w.hub.close(0);
  });

  it('sends no first event to a client that holds the current tag, and one when the answer changed', async () => {
    const w = world();
    const [held, stale] = [sink(), sink()];
    w.hub.subscribe(w.read('q'), held, { lastEventId: '"q-1"' });
    w.hub.subscribe(w.read('q'), stale, { lastEventId: '"q-0"' });
    await settle(5);
    expect(held.events).to.deep.equal([]);
    expect(stale.events).to.have.length(1);
    w.hub.close(0);
  });

  it('reads the versions at a fixed rate, a slow read taking its time from the wait', async () => {
    const started: number[] = [];
    const period = 100;
    const hub = new LiveHub({
      intervalMs: period,
      heartbeatMs: 60_000,
      maxSubscriptions: 10,
      readVersions: async () => {
        started.push(performance.now());
        await new Promise((resolve) => setTimeout(resolve, 60));
        return new Map();
      },
      failureData: () => '{}',
    });
    hub.subscribe({ key: 'q', tables: ['a'], read: async () => ({ tag: '"1"', data: '{}' }) }, sink());
    await settle(period * 7 + 30);
    hub.close(0);
    // Without a fixed rate each gap would be the interval plus the read's 60 ms.
    const meanGap = (started.at(-1)! - started[0]!) / (started.length - 1);
    expect(started.length).to.be.at.least(5);
    expect(meanGap).to.be.below(period + 40);
  });

  it('keeps one version read loop when the last stream leaves and another opens while a read runs', async () => {
    let reads = 0;
    let inFlight = false;
    const hub = new LiveHub({
      intervalMs: 50,
      heartbeatMs: 60_000,
      maxSubscriptions: 10,
      readVersions: async () => {
        reads++;
        inFlight = true;
        await new Promise((resolve) => setTimeout(resolve, 40));
        inFlight = false;
        return new Map();
      },
      failureData: () => '{}',
    });
    const read = { key: 'q', tables: ['a'], read: async () => ({ tag: '"1"', data: '{}' }) };
    const first = hub.subscribe(read, sink());
    for (let i = 0; i < 100 && !inFlight; i++) await settle(5);
    if (first.ok) first.unsubscribe();
    hub.subscribe(read, sink());
    const before = reads;
    await settle(500);
    expect(reads - before, 'one read every 50 ms').to.be.within(5, 12);
    hub.close(0);
    const atClose = reads;
    await settle(200);
    // A second loop, orphaned by the stop, would go on reading after close.
    expect(reads, 'reads after close').to.equal(atClose);
  });

  it('refuses a subscription past the cap', () => {
    const w = world();
    const hub = new LiveHub({ intervalMs: interval, heartbeatMs: 60_000, maxSubscriptions: 1, readVersions: async () => new Map(), failureData: () => '{}' });
    expect(hub.subscribe(w.read('q'), sink()).ok).to.equal(true);
    expect(hub.subscribe(w.read('q'), sink()).ok).to.equal(false);
    hub.close(0);
  });

  it('ends a subscription when its token expires, with an expired event', async () => {
    const w = world();
    const s = sink();
    w.hub.subscribe(w.read('q'), s, { expiresAt: Date.now() + 30, expiredData: '{"responseStatus":{"errorCode":"TokenExpired"}}' });
    await settle(80);
    expect(s.ended).to.equal('event: expired\ndata: {"responseStatus":{"errorCode":"TokenExpired"}}\n\n');
    expect(w.hub.figures().subscriptions).to.equal(0);
  });

  it('ends every subscription whose token expires at one instant, but not one that left before', async () => {
    const w = world();
    const [a, b, left] = [sink(), sink(), sink()];
    const at = Date.now() + 30;
    for (const s of [a, b]) w.hub.subscribe(w.read('q'), s, { expiresAt: at, expiredData: '{}' });
    const gone = w.hub.subscribe(w.read('q'), left, { expiresAt: at, expiredData: '{}' });
    if (gone.ok) gone.unsubscribe();
    await settle(80);
    expect([a.ended, b.ended, left.ended]).to.deep.equal(['event: expired\ndata: {}\n\n', 'event: expired\ndata: {}\n\n', false]);
    expect(w.hub.figures()).to.include({ subscriptions: 0, requests: 0 });
  });

  it('counts a subscription once however often it is ended', async () => {
    const w = world();
    const kept = w.hub.subscribe(w.read('q'), sink());
    const ended = w.hub.subscribe(w.read('q'), sink());
    if (!ended.ok || !kept.ok) throw new Error('refused');
    ended.unsubscribe();
    ended.unsubscribe();
    expect(w.hub.figures()).to.include({ subscriptions: 1, requests: 1 });
    w.hub.close(0);
    kept.unsubscribe();
    expect(w.hub.figures().subscriptions).to.equal(0);
  });

  it('drops a client that stopped reading', async () => {
    const w = world();
    const slow = sink(true);
    const fine = sink();
    w.hub.subscribe(w.read('q'), slow);
    w.hub.subscribe(w.read('q'), fine);
    await settle(5);
    expect(slow.ended).to.equal(undefined);
    expect(w.hub.figures().subscriptions).to.equal(1);
    w.hub.close(0);
  });

  it('sends unavailable once while the database is down, and the answer when it is back', async () => {
    const w = world();
    const s = sink();
    w.hub.subscribe(w.read('q'), s);
    await settle();
    w.fail(true);
    await settle(interval * 5);
    expect(s.events.filter((e) => e.startsWith('event: unavailable'))).to.have.length(1);
    w.fail(false);
    w.versions.set('a', '3');
    await settle();
    expect(s.events.at(-1)).to.equal('id: "q-3"\ndata: {"v":3}\n\n');
    expect(s.ended, 'the stream stayed open').to.equal(false);
    w.hub.close(0);
  });

  it('ends every stream with a retry hint when it closes', async () => {
    const w = world();
    const s = sink();
    w.hub.subscribe(w.read('q'), s);
    w.hub.close(1500);
    expect(s.ended).to.equal('retry: 1500\n\n');
  });

  it('sends a new answer to 1,000 streams at most 256 writes in a turn of the event loop, streams that join meanwhile included', async () => {
    const w = world();
    let turn = 0;
    let turning = true;
    const spin = (): void => void setImmediate(() => (turn++, turning && spin()));
    const writesIn = new Map<number, number>();
    const late: ReturnType<typeof sink>[] = [];
    let written = 0;
    const counted = () => {
      const s = sink();
      const write = s.write;
      return Object.assign(s, {
        write: (event: Buffer) => {
          writesIn.set(turn, (writesIn.get(turn) ?? 0) + 1);
          // Halfway through the delivery, ten streams join the group.
          if (++written === 1_500) for (let k = 0; k < 10; k++) late.push(sink()), w.hub.subscribe(w.read('q'), late.at(-1)!);
          return write(event);
        },
      });
    };
    const sinks = Array.from({ length: 1_000 }, counted);
    for (const s of sinks) w.hub.subscribe(w.read('q'), s);
    await settle();
    expect(written).to.equal(1_000);
    spin();
    writesIn.clear();
    w.versions.set('a', '2');
    for (let i = 0; i < 50 && !sinks.every((s) => s.events.length === 2); i++) await settle(10);
    turning = false;
    const second = 'id: "q-2"\ndata: {"v":2}\n\n';
    expect(sinks.filter((s) => s.events.at(-1) === second)).to.have.length(1_000);
    expect(late.map((s) => s.events), 'streams that joined during the delivery').to.deep.equal(Array.from({ length: 10 }, () => [second]));
    expect(Math.max(...writesIn.values())).to.be.at.most(256);
    expect(writesIn.size, 'turns the delivery took').to.be.at.least(4);
    w.hub.close(0);
  });

  it('sends the heartbeat to every stream, a slice of them per turn of the event loop', async () => {
    const w = world();
    const hub = new LiveHub({ intervalMs: 60_000, heartbeatMs: 30, maxSubscriptions: 10_000, readVersions: async () => new Map(), failureData: () => '{}' });
    const sinks = Array.from({ length: 1_000 }, () => sink());
    const subscribed = sinks.map((s, i) => hub.subscribe(w.read(`q${i % 10}`), s));
    const beats = (s: { readonly events: string[] }) => s.events.filter((e) => e === ': keep-alive\n\n').length;
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 200 && !done(); i++) await settle(10);
    };
    await until(() => sinks.every((s) => beats(s) >= 1));
    expect(sinks.filter((s) => beats(s) >= 1)).to.have.length(1_000);
    const left = subscribed[0]!;
    if (left.ok) left.unsubscribe();
    const [before, last] = [beats(sinks[0]!), beats(sinks[999]!)];
    // Two more beats of the last stream: a whole sweep has run since the first one left.
    await until(() => beats(sinks[999]!) >= last + 2);
    expect(beats(sinks[999]!)).to.be.at.least(last + 2);
    expect(beats(sinks[0]!), 'none after it left').to.equal(before);
    hub.close(0);
  });

  it('runs each affected request once for 10,000 subscribers over 100 requests when one table moves', async () => {
    const w = world();
    const sinks = Array.from({ length: 10_000 }, () => sink());
    sinks.forEach((s, i) => w.hub.subscribe(w.read(`q${i % 100}`, i % 100 < 50 ? 'a' : 'b'), s));
    // Until the first answers have reached all 10,000 (a few turns each) and a version read has seen every request.
    const quiet = async () => {
      for (let last = -1, i = 0; i < 100 && last !== w.reads(); i++) (last = w.reads()), await settle();
    };
    await quiet();
    expect(w.hub.figures()).to.include({ subscriptions: 10_000, requests: 100 });
    const before = w.reads();
    w.versions.set('a', '2');
    await settle();
    await quiet();
    expect(w.reads() - before, 'the 50 requests on the moved table, once each').to.equal(50);
    expect(sinks.filter((s) => s.events.length === 2)).to.have.length(5_000);
    w.hub.close(0);
  });
});
