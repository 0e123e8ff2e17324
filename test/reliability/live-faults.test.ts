// Live answers under faults (design.md §7, "Live answers"): a stream stays open through a
// MariaDB outage, telling its client once (`unavailable`) and sending the answer again once the
// database is back; SIGTERM ends it with a retry hint and the process still exits 0 within its
// drain. The database is a private server that this test stops.
import { expect } from 'chai';
import { record, round } from './support/figures.js';
import { startTarget, type ReliabilityTarget } from './support/reliability-target.js';
import { sleep } from './support/traffic.js';

interface Event {
  readonly at: number;
  readonly kind: string;
  readonly data: string;
}

/** An event stream: each event's kind (`message`, a named event, or `retry`) and data, and when the stream ended. */
function open(url: string, token: string): { events: Event[]; ended: () => number | undefined; status: Promise<number> } {
  const events: Event[] = [];
  let ended: number | undefined;
  const status = (async () => {
    const res = await fetch(url, { headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` } });
    void (async () => {
      let buffer = '';
      try {
        for await (const chunk of res.body!) {
          buffer += Buffer.from(chunk as Uint8Array).toString('utf8');
          let at: number;
          while ((at = buffer.indexOf('\n\n')) >= 0) {
            const lines = buffer.slice(0, at).split('\n').filter((l) => !l.startsWith(':'));
            buffer = buffer.slice(at + 2);
            if (lines.length === 0) continue;
            const field = (name: string) => lines.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
            events.push({ at: performance.now(), kind: field('event') ?? (field('retry') !== undefined ? 'retry' : 'message'), data: field('data') ?? field('retry') ?? '' });
          }
        }
      } catch {
        // the connection was cut
      }
      ended = performance.now();
    })();
    return res.status;
  })();
  return { events, ended: () => ended, status };
}

async function until(done: () => boolean, ms: number, what: string): Promise<void> {
  for (const end = Date.now() + ms; !done(); await sleep(20)) if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
}

describe('reliability: live answers through a database outage and SIGTERM', function () {
  this.timeout(180_000);
  let t: ReliabilityTarget;
  before(async () => {
    t = await startTarget('live-faults', { SCRYPT_LOG_N: '10', LIVE_INTERVAL_MS: '100' });
  });
  after(async () => t?.close());

  it('keeps the stream through an outage, with one unavailable event, and ends it with retry on SIGTERM', async () => {
    const stream = open(`${t.service.url}/impianti/${t.impiantoIds[0]}/files`, t.adminToken);
    expect(await stream.status).to.equal(200);
    await until(() => stream.events.length === 1, 10_000, 'the first answer');

    const stopping = performance.now();
    await t.mariadb.stop();
    await until(() => stream.events.some((e) => e.kind === 'unavailable'), 10_000, 'the unavailable event');
    const told = stream.events.find((e) => e.kind === 'unavailable')!;
    await sleep(2000);
    expect(stream.events.filter((e) => e.kind === 'unavailable'), 'one event for the whole outage').to.have.length(1);
    expect(JSON.parse(told.data).responseStatus.errorCode).to.equal('ServiceUnavailable');
    expect(stream.ended(), 'the stream stays open').to.equal(undefined);

    await t.mariadb.start();
    const up = performance.now();
    await until(() => stream.events.at(-1)!.kind === 'message' && stream.events.length > 2, 15_000, 'the answer after the outage');
    const back = stream.events.at(-1)!;
    expect(back.data).to.equal(stream.events[0]!.data);

    const signalled = performance.now();
    t.service.signal('SIGTERM');
    await until(() => stream.ended() !== undefined, 10_000, 'the stream to end');
    const code = await t.service.exit;
    const exited = performance.now();
    expect(stream.events.at(-1)).to.include({ kind: 'retry', data: '2000' });
    expect(code).to.equal(0);
    record('liveFaults', 'A live answer through a MariaDB outage and SIGTERM', {
      'database stop to the unavailable event (ms)': round(told.at - stopping),
      'database up to the answer again (ms)': round(back.at - up),
      'SIGTERM to the stream\'s end (ms)': round(stream.ended()! - signalled),
      'SIGTERM to exit (ms)': round(exited - signalled),
      'exit code': String(code),
    });
    expect(exited - signalled).to.be.below(10_000);
  });
});
