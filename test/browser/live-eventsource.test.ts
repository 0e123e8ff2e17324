// A browser's own EventSource keeps a query's answer current (design.md §7, "Live answers"):
// the page puts its access token in the `ss-tok` cookie, since EventSource sends no header,
// and sees the answer change after an operator's write outside the service (`db sql --write`
// on SQLite, plain SQL on MariaDB). Without the cookie the stream is refused, and the cookie
// alone opens nothing but streams.
import fs from 'node:fs';
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { seedDemo } from '../../src/cli/demo-data.js';
import { forEachDialect } from '../support/dialects.js';
import { runCli } from '../support/run-cli.js';
import { startServer, type TestServer } from '../support/server.js';

const chromiumPath = '/usr/bin/chromium';
const query = '/json/reply/SoggettoRecapitoQuery?Id=1';

interface Seen {
  readonly answers: Array<{ id: string; recapito: string | undefined }>;
  readonly errors: number;
  readonly state: number;
}

forEachDialect('live answers in Chromium: EventSource', (dialect) => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;

  before(async () => {
    if (!fs.existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: \`make test\` installs it, or run apt-get install -y chromium`);
    s = await startServer({ dialect, env: { LIVE_INTERVAL_MS: '100' } });
    await seedDemo(s.db);
    // --no-sandbox: the suites run as root in containers, where Chromium's sandbox cannot start.
    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    page = await browser.newPage();
    // A page of the service's own origin, whose policy lets it connect back.
    await page.goto(`${s.baseUrl}/docs`);
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  /** Opens an EventSource on `path` in the page; its answers and errors are read by `seen`. */
  const open = (path: string) => page.evaluate((url) => {
    // The page's own globals; the tests compile without the DOM's types.
    interface Message { readonly data: string; readonly lastEventId: string }
    interface Source { readonly readyState: number; addEventListener(type: string, f: (e: Message) => void): void; close(): void }
    const w = globalThis as unknown as { seen: { answers: Seen['answers']; errors: number; state: number }; source: Source; EventSource: new (url: string) => Source };
    w.seen = { answers: [], errors: 0, state: 0 };
    w.source = new w.EventSource(url);
    w.source.addEventListener('message', (e) => {
      const body = JSON.parse(e.data) as { results?: Array<{ recapito?: string }> };
      w.seen.answers.push({ id: e.lastEventId, recapito: body.results?.[0]?.recapito });
    });
    w.source.addEventListener('error', () => {
      w.seen.errors++;
      w.seen.state = w.source.readyState;
    });
  }, path);
  const seen = () => page.evaluate(() => (globalThis as unknown as { seen: Seen }).seen);
  const close = () => page.evaluate(() => (globalThis as unknown as { source: { close(): void } }).source.close());
  const until = async (what: string, ok: (x: Seen) => boolean, ms = 10_000): Promise<Seen> => {
    const end = Date.now() + ms;
    for (;;) {
      const x = await seen();
      if (ok(x)) return x;
      if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms; seen ${JSON.stringify(x)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('sees the answer, then the new answer after a write made outside the service', async () => {
    await page.context().addCookies([{ name: 'ss-tok', value: await s.tokenFor(['Admin']), url: s.baseUrl }]);
    await open(query);
    const first = await until('the first answer', (x) => x.answers.length >= 1);
    expect(first.answers[0]!.id, "the answer's entity tag").to.match(/^"[^"]+"$/);
    const written = 'eventsource@pec.it';
    if (dialect === 'sqlite') {
      const run = await runCli('db', ['sql', '--write'], { SQLITE_FILE: s.sqliteFile! }, `UPDATE soggetto_recapito SET recapito = '${written}' WHERE id = 1;\n`);
      expect([run.code, run.stderr]).to.deep.equal([0, '']);
    } else {
      await s.knex.raw('UPDATE soggetto_recapito SET recapito = ? WHERE id = 1', [written]);
    }
    const later = await until('the new answer', (x) => x.answers.some((a) => a.recapito === written));
    const last = later.answers.at(-1)!;
    expect(last.recapito).to.equal(written);
    expect(last.id, 'a new entity tag').to.not.equal(first.answers[0]!.id);
    expect(later.errors).to.equal(0);
    await close();
  });

  it('is refused without the cookie: the browser gets no answer and gives up', async () => {
    await page.context().clearCookies();
    await open(query);
    // A 401 is no event stream: EventSource fails and closes for good (readyState 2).
    const refused = await until('the refusal', (x) => x.errors >= 1 && x.state === 2);
    expect(refused.answers).to.deep.equal([]);
  });

  it('opens nothing but streams: the same GET with the cookie and no event stream is 401', async () => {
    const token = await s.tokenFor(['Admin']);
    const r = await s.request('GET', query, { headers: { cookie: `ss-tok=${token}` } });
    expect([r.status, r.body?.responseStatus?.errorCode]).to.deep.equal([401, 'Unauthorized']);
    const stream = await fetch(`${s.baseUrl}${query}`, { headers: { cookie: `ss-tok=${token}`, accept: 'text/event-stream' } });
    expect([stream.status, stream.headers.get('content-type')]).to.deep.equal([200, 'text/event-stream; charset=utf-8']);
    await stream.body?.cancel();
  });
});
