// Live answers over HTTP (design.md §7, "Live answers"): a tagged GET asked
// with Accept: text/event-stream answers the plain GET's JSON as its first event, then a new
// event after each write that changes the answer; Last-Event-ID resumes; the GET's errors
// come before any stream; the cap answers 429; the token's expiry ends the stream.
import { expect } from 'chai';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestServer } from '../support/server.js';

const path = '/json/reply/SoggettoRecapitoQuery';

interface SseEvent {
  readonly event: string;
  readonly id: string | undefined;
  readonly data: string;
}

/** An open event stream: its status and headers, and the events as they come. */
async function openStream(s: TestServer, target: string, headers: Record<string, string>) {
  const aborter = new AbortController();
  const res = await fetch(s.baseUrl + target, { headers: { accept: 'text/event-stream', ...headers }, signal: aborter.signal });
  const events: SseEvent[] = [];
  let ended = false;
  const waiting: Array<() => void> = [];
  const wake = () => waiting.splice(0).forEach((w) => w());
  const reading = (async () => {
    if (!res.body || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const fields = block.split('\n').filter((l) => !l.startsWith(':'));
          if (fields.length === 0) continue;
          const field = (name: string) => fields.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
          events.push({ event: field('event') ?? (field('retry') !== undefined ? 'retry' : 'message'), id: field('id'), data: field('data') ?? field('retry') ?? '' });
          wake();
        }
      }
    } catch {
      // aborted by the test
    }
    ended = true;
    wake();
  })();
  /** Waits until `n` events have come (or the stream ended, or `ms` passed). */
  const next = async (n: number, ms = 5000): Promise<SseEvent[]> => {
    const deadline = Date.now() + ms;
    while (events.length < n && !ended && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        setTimeout(resolve, Math.max(0, deadline - Date.now()));
      });
    }
    return events.slice();
  };
  return { res, events, next, ended: () => ended, close: async () => (aborter.abort(), await reading) };
}

forEachDialect('live answers', (dialect) => {
  let s: TestServer;
  let admin: string;
  const contact = (id: number, soggetto = 10) => ({ id, soggetto_id: soggetto, tipo_recapito_id: 1, recapito: `r${id}@pec.it`, codice_esterno: null });
  before(async () => {
    s = await startServer({ dialect, env: { LIVE_INTERVAL_MS: '50', LIVE_MAX_SUBSCRIPTIONS: '3' } });
    admin = await s.tokenFor(['Admin']);
    await s.knex('soggetto_recapito').insert([1, 2].map((id) => contact(id)));
    await s.knex('impianto').insert({ id: 1, nome: 'Impianto 1' });
    await s.knex('impianto_file').insert({ id: 1, nome: 'Documenti', is_folder: true, folder_id: null, impianto_id: 1, data_creazione: new Date(0), data_aggiornamento: new Date(0) });
  });
  after(() => s.close());

  it('sends the plain GET\'s answer first, then the new answer after a write, each with its tag as id', async () => {
    const plain = await s.request('GET', `${path}?soggettoIdIn=10&fields=Id`, { token: admin });
    const stream = await openStream(s, `${path}?soggettoIdIn=10&fields=Id`, { authorization: `Bearer ${admin}` });
    try {
      expect(stream.res.status).to.equal(200);
      expect(stream.res.headers.get('content-type')).to.equal('text/event-stream; charset=utf-8');
      const [first] = await stream.next(1);
      expect(first).to.deep.equal({ event: 'message', id: plain.headers.get('etag')!, data: plain.text });
      await s.knex('soggetto_recapito').insert(contact(3));
      const [, second] = await stream.next(2);
      expect(JSON.parse(second!.data).results).to.deep.equal([{ id: 1 }, { id: 2 }, { id: 3 }]);
      expect(second!.id).to.equal((await s.request('GET', `${path}?soggettoIdIn=10&fields=Id`, { token: admin })).headers.get('etag'));
      // A write to a table the answer is not made of moves no tag of it: nothing is sent.
      await s.knex('impianto').insert({ id: 50, nome: 'Impianto 50' });
      expect(await stream.next(3, 400)).to.have.length(2);
    } finally {
      await stream.close();
    }
  });

  it('resumes with Last-Event-ID: no first event while the answer is unchanged, the answer once it changed', async () => {
    const current = (await s.request('GET', `${path}?soggettoIdIn=11`, { token: admin })).headers.get('etag')!;
    const held = await openStream(s, `${path}?soggettoIdIn=11`, { authorization: `Bearer ${admin}`, 'last-event-id': current });
    const stale = await openStream(s, `${path}?soggettoIdIn=11`, { authorization: `Bearer ${admin}`, 'last-event-id': '"stale"' });
    try {
      expect(held.res.status).to.equal(200);
      expect(await held.next(1, 300)).to.deep.equal([]);
      expect((await stale.next(1))[0]!.id).to.equal(current);
      await s.knex('soggetto_recapito').insert(contact(4, 11));
      const [event] = await held.next(1);
      expect(JSON.parse(event!.data).results.map((r: { id: number }) => r.id)).to.deep.equal([4]);
    } finally {
      await held.close();
      await stale.close();
    }
  });

  it('answers a request the GET refuses with the same status, before any stream', async () => {
    const user = await s.tokenFor(['ApiUser']);
    for (const [target, headers, status] of [
      [`${path}?soggettoIdIn=10`, {}, 401],
      [`${path}?soggettoIdIn=10`, { authorization: `Bearer ${user}` }, 403],
      [`${path}?soggettoIdIn=x`, { authorization: `Bearer ${admin}` }, 400],
      [`${path}?orderBy=Nope`, { authorization: `Bearer ${admin}` }, 400],
      ['/impianti/999/files', { authorization: `Bearer ${admin}` }, 404],
    ] as const) {
      const stream = await openStream(s, target, headers);
      expect([target, stream.res.status]).to.deep.equal([target, status]);
      expect(stream.res.headers.get('content-type')).to.match(/^application\/json/);
      const plain = await s.request('GET', target, { headers: { ...headers } });
      expect(JSON.parse(await stream.res.text()).responseStatus.errorCode, target).to.equal(plain.body.responseStatus.errorCode);
      await stream.close();
    }
  });

  it('refuses a Last-Event-ID past the entity tags\' bound with 400, naming that header', async () => {
    const r = await s.request('GET', `${path}?soggettoIdIn=10`, { token: admin, headers: { accept: 'text/event-stream', 'last-event-id': `"${'a'.repeat(4095)}"` } });
    expect([r.status, r.body.responseStatus.errorCode, r.body.responseStatus.errors[0].fieldName]).to.deep.equal([400, 'Length', 'Last-Event-ID']);
  });

  it('keeps an installation\'s files current', async () => {
    const stream = await openStream(s, '/impianti/1/files', { authorization: `Bearer ${admin}` });
    try {
      const [first] = await stream.next(1);
      expect(JSON.parse(first!.data).contents).to.deep.equal([]);
      await s.knex('impianto_file').insert({ id: 2, nome: 'a.pdf', is_folder: false, folder_id: 1, impianto_id: 1, data_creazione: new Date(0), data_aggiornamento: new Date(0) });
      const [, second] = await stream.next(2);
      expect(JSON.parse(second!.data).contents.map((f: { nome: string }) => f.nome)).to.deep.equal(['a.pdf']);
    } finally {
      await stream.close();
    }
  });

  it('answers 429 with Retry-After and the RateLimit fields past LIVE_MAX_SUBSCRIPTIONS, and counts the streams in /metrics', async () => {
    const open = await Promise.all([1, 2, 3].map((n) => openStream(s, `${path}?soggettoIdIn=${n}`, { authorization: `Bearer ${admin}` })));
    try {
      await Promise.all(open.map((o) => o.next(1)));
      const metrics = await (await fetch(`${s.baseUrl}/metrics`)).text();
      expect(metrics).to.match(/^live_subscriptions 3$/m).and.match(/^live_requests 3$/m);
      const refused = await openStream(s, `${path}?soggettoIdIn=4`, { authorization: `Bearer ${admin}` });
      expect(refused.res.status).to.equal(429);
      expect(refused.res.headers.get('retry-after')).to.equal('1');
      expect(refused.res.headers.get('ratelimit')).to.equal('"live";r=0;t=1');
      expect(JSON.parse(await refused.res.text()).responseStatus.errorCode).to.equal('TooManyRequests');
    } finally {
      await Promise.all(open.map((o) => o.close()));
    }
  });

  it('lets a stream go when its client leaves: the hub forgets it, and the request is counted once', async () => {
    const counted = async () => {
      const metrics = await (await fetch(`${s.baseUrl}/metrics`)).text();
      const line = /^http_requests_total\{operation="SoggettoRecapitoQueryGet",method="GET",status="200"\} (\d+)$/m.exec(metrics);
      return { text: metrics, requests: Number(line?.[1] ?? 0) };
    };
    const before = (await counted()).requests;
    const stream = await openStream(s, `${path}?soggettoIdIn=12`, { authorization: `Bearer ${admin}` });
    await stream.next(1);
    expect((await counted()).requests, 'an open stream is not counted yet').to.equal(before);
    await stream.close();
    let now = await counted();
    for (let i = 0; i < 50 && !/^live_subscriptions 0$/m.test(now.text); i++) now = (await new Promise((r) => setTimeout(r, 20)), await counted());
    expect(now.text).to.match(/^live_subscriptions 0$/m).and.match(/^live_requests 0$/m);
    expect(now.requests).to.equal(before + 1);
  });
});

forEachDialect('live answers: the token\'s expiry', (dialect) => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ dialect, env: { LIVE_INTERVAL_MS: '50', ACCESS_TOKEN_TTL: '2' } });
  });
  after(() => s.close());

  it('ends the stream when the access token expires, with an expired event', async () => {
    const token = await s.tokenFor(['Admin']);
    const stream = await openStream(s, `${path}?soggettoIdIn=1`, { authorization: `Bearer ${token}` });
    const events = await stream.next(2, 5000);
    expect(events.map((e) => e.event)).to.deep.equal(['message', 'expired']);
    expect(JSON.parse(events[1]!.data).responseStatus.errorCode).to.equal('TokenExpired');
    await stream.next(3, 1000);
    expect(stream.ended(), 'the server closed the stream').to.equal(true);
    await stream.close();
  });
});
