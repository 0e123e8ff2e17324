// The exports (design.md §7, Exports) on 100,000 rows: the whole result, row for row the
// unpaged query, as JSON Lines and CSV; one consistent view while rows are written
// meanwhile; a client that goes away frees its slot, its view and its connection; one
// export past EXPORT_CONCURRENCY is 429 with the RateLimit fields; an export cut short
// resumes after the last row received; access and bad input answered before any byte.
import { expect } from 'chai';
import http from 'node:http';
import { seedBulk } from '../../src/db/seed-bulk.js';
import { readPoolFigures, watchReads } from '../../src/db/reads/select.js';
import { forEachDialect } from '../support/dialects.js';
import { expectError } from '../support/expect-error.js';
import { startServer, type TestServer } from '../support/server.js';

const ROWS = 100_000;
/** QUERY_TIMEOUT_MS: the consistency test pauses its export for longer than this. */
const timeoutMs = 3000;
const path = '/json/reply/SoggettoRecapitoQueryExport';
const queryPath = '/json/reply/SoggettoRecapitoQuery';
type Row = Record<string, unknown>;

/** JSON Lines: the records, and the last line apart. */
function linesOf(text: string): { records: Row[]; end: Row } {
  expect(text.endsWith('\n'), 'ends with a line break').to.equal(true);
  const lines = text.slice(0, -1).split('\n').map((l) => JSON.parse(l) as Row);
  return { records: lines.slice(0, -1), end: lines.at(-1)! };
}

/** A streamed answer read by hand: paused and resumed at will, or dropped. */
interface Held {
  readonly response: Promise<http.IncomingMessage>;
  /** Resolves once at least `bytes` have come in, then stops reading. */
  readUntil(bytes: number): Promise<void>;
  /** Reads to the end: the whole body, and whether HTTP's last chunk came. */
  finish(): Promise<{ text: string; whole: boolean }>;
  /** What came in so far. */
  received(): string;
  drop(): void;
}

function hold(s: TestServer, target: string, token: string): Held {
  const chunks: Buffer[] = [];
  let received = 0;
  let req!: http.ClientRequest;
  const response = new Promise<http.IncomingMessage>((resolve, reject) => {
    req = http.get(`${s.baseUrl}${target}`, { headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
      res.pause();
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        received += c.length;
      });
      resolve(res);
    });
    req.on('error', reject);
  });
  return {
    response,
    async readUntil(bytes) {
      const res = await response;
      if (received >= bytes) return;
      await new Promise<void>((resolve) => {
        const check = () => {
          if (received < bytes) return;
          res.pause();
          res.off('data', check);
          resolve();
        };
        res.on('data', check);
        res.resume();
      });
    },
    async finish() {
      const res = await response;
      const whole = await new Promise<boolean>((resolve) => {
        res.on('error', () => undefined);
        res.on('close', () => resolve(res.complete));
        res.resume();
      });
      return { text: Buffer.concat(chunks).toString('utf8'), whole };
    },
    received: () => Buffer.concat(chunks).toString('utf8'),
    drop: () => req.destroy(),
  };
}

/**
 * Read views (InnoDB's snapshots) held by this test database's connections, besides the
 * asking one: InnoDB's own list of transactions, since the server is shared.
 */
async function readViews(s: TestServer): Promise<number> {
  const ids = new Set(((await s.knex.raw('SELECT ID FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND ID <> CONNECTION_ID()'))[0] as { ID: unknown }[]).map((r) => String(r.ID)));
  const status = String((await s.knex.raw('SHOW ENGINE INNODB STATUS'))[0][0].Status);
  return status.split('---TRANSACTION').filter((t) => ids.has(/(?:MariaDB|MySQL) thread id (\d+)/.exec(t)?.[1] ?? '') && t.includes('Trx read view')).length;
}

const until = async (what: string, done: () => Promise<boolean> | boolean, ms = 5000): Promise<void> => {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

forEachDialect('query exports', (dialect) => {
  let s: TestServer;
  let admin: string;
  before(async function () {
    this.timeout(120_000);
    // The unpaged query answers every row at once for the comparisons.
    s = await startServer({ dialect, env: { MAX_TAKE: '100000', EXPORT_CONCURRENCY: '2', QUERY_TIMEOUT_MS: String(timeoutMs) } });
    admin = await s.tokenFor(['Admin']);
    await seedBulk(s.db, { table: 'soggetto_recapito', rows: ROWS, seed: 55, batchRows: 5000 });
  });
  after(() => s.close());

  const unpaged = async (query: string): Promise<Row[]> => {
    const r = await s.request('GET', `${queryPath}?take=100000&${query}`, { token: admin });
    expect(r.status, r.text).to.equal(200);
    return r.body.results as Row[];
  };

  it('answers every row, as the unpaged query does, in JSON Lines and CSV, with and without fields', async function () {
    this.timeout(60_000);
    for (const query of ['orderBy=Recapito', 'orderByDesc=SoggettoId&fields=Recapito,Id']) {
      const expected = await unpaged(query);
      expect(expected).to.have.length(ROWS);
      const jsonl = await s.request('GET', `${path}?${query}`, { token: admin });
      expect(jsonl.status).to.equal(200);
      expect(jsonl.headers.get('content-type')).to.equal('application/x-ndjson');
      expect(jsonl.headers.get('ratelimit-policy')).to.equal('"export";q=2;qu="concurrent-requests"');
      const { records, end } = linesOf(jsonl.text);
      expect(end).to.deep.equal({ complete: true, rows: ROWS });
      expect(records).to.deep.equal(expected);

      const csv = await s.request('GET', `${path}.csv?${query}`, { token: admin });
      expect(csv.status).to.equal(200);
      expect(csv.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
      // The query's own CSV of the same rows, byte for byte.
      const page = await s.request('GET', `${queryPath}.csv?take=100000&${query}`, { token: admin });
      expect(csv.text === page.text, 'the CSV equals the unpaged query\'s').to.equal(true);
    }
  });

  it('chooses the format by suffix, then format, then Accept; JSON Lines by default; format=json is 406', async () => {
    const q = 'soggettoIdIn=1,2&fields=Id';
    expect((await s.request('GET', `${path}.jsonl?${q}`, { token: admin, headers: { accept: 'text/csv' } })).headers.get('content-type')).to.equal('application/x-ndjson');
    expect((await s.request('GET', `${path}?${q}&format=csv`, { token: admin, headers: { accept: 'application/x-ndjson' } })).headers.get('content-type')).to.equal('text/csv; charset=utf-8');
    expect((await s.request('GET', `${path}?${q}`, { token: admin, headers: { accept: 'text/csv' } })).headers.get('content-type')).to.equal('text/csv; charset=utf-8');
    expect((await s.request('GET', `/api/SoggettoRecapitoQueryExport?${q}`, { token: admin, headers: { accept: '*/*' } })).headers.get('content-type')).to.equal('application/x-ndjson');
    // Most clients send Accept: application/json whatever they ask for: JSON Lines answers it.
    expect((await s.request('GET', `${path}?${q}`, { token: admin, headers: { accept: 'application/json' } })).headers.get('content-type')).to.equal('application/x-ndjson');
    expectError(await s.request('GET', `${path}?${q}`, { token: admin, headers: { accept: 'text/html, application/json;q=0' } }), 406, 'NotAcceptable');
    expectError(await s.request('GET', `${path}?${q}&format=json`, { token: admin }), 406, 'NotAcceptable');
    const posted = await s.request('POST', path, { token: admin, json: { soggettoIdIn: [1, 2], fields: 'Id' } });
    expect(linesOf(posted.text).records).to.deep.equal(await unpaged(q));
  });

  it('reads one consistent view: rows written while the client pauses are neither seen nor lost', async function () {
    this.timeout(60_000);
    const query = 'orderBy=Recapito&fields=Id,Recapito';
    const before = await unpaged(query);
    const statements: string[] = [];
    const stop = watchReads(s.db, (st) => statements.push(st.sql));
    const held = hold(s, `${path}?${query}`, admin);
    try {
      expect((await held.response).statusCode).to.equal(200);
      await held.readUntil(1);
      // The client reads no more: the export stops at the first write the socket refuses.
      let seen = -1;
      await until('the export to wait for its client', async () => {
        const now = statements.length;
        const still = now === seen;
        seen = now;
        await new Promise((r) => setTimeout(r, 150));
        return still;
      });
      const pagesBefore = statements.length;
      // Paused past QUERY_TIMEOUT_MS: the limit is each page's statement's, not the export's.
      const paused = Date.now();
      await new Promise((r) => setTimeout(r, timeoutMs + 500));
      // Rows not sent yet deleted; rows sorting before and after the cursor inserted.
      const gone = before.slice(-500).map((r) => r['id'] as number);
      await s.knex('soggetto_recapito').whereIn('id', gone).delete();
      await s.knex('soggetto_recapito').insert(
        Array.from({ length: 200 }, (_, i) => ({ id: 500_000 + i, soggetto_id: 1, tipo_recapito_id: 1, recapito: i % 2 === 0 ? `aaa${i}` : `zzz${i}`, codice_esterno: null })),
      );
      const { text, whole } = await held.finish();
      expect(Date.now() - paused).to.be.above(timeoutMs);
      expect(whole).to.equal(true);
      expect(statements.length, 'pages read after the writes').to.be.above(pagesBefore);
      const { records, end } = linesOf(text);
      expect(end).to.deep.equal({ complete: true, rows: before.length });
      expect(records).to.deep.equal(before);
    } finally {
      stop();
      held.drop();
    }
  });

  it('past EXPORT_CONCURRENCY answers 429 with the RateLimit fields; a client that goes away frees its slot and connection', async function () {
    this.timeout(60_000);
    // Every field of every row: more than the sockets' buffers hold, so both wait for their clients.
    const first = hold(s, `${path}?orderBy=Recapito`, admin);
    const second = hold(s, `${path}?orderByDesc=Recapito`, admin);
    try {
      expect((await first.response).statusCode).to.equal(200);
      expect((await second.response).statusCode).to.equal(200);
      await first.readUntil(1);
      await second.readUntil(1);
      const third = await s.request('GET', `${path}?fields=Id`, { token: admin });
      expectError(third, 429, 'TooManyRequests');
      expect(third.headers.get('retry-after')).to.equal('1');
      expect(third.headers.get('ratelimit-policy')).to.equal('"export";q=2;qu="concurrent-requests"');
      expect(third.headers.get('ratelimit')).to.equal('"export";r=0;t=1');

      second.drop();
      // Its connection back: another export runs whole while the first still holds its own.
      await until('the dropped export to end', async () => (await s.request('GET', `${path}?soggettoIdIn=1&fields=Id`, { token: admin })).status === 200);
      if (dialect === 'mysql') {
        // One read connection lent (the held export's), one transaction open on the server.
        await until('the pool to have its connection back', () => readPoolFigures(s.db)!.used === 1);
        expect(await readViews(s)).to.equal(1);
      }
    } finally {
      first.drop();
      second.drop();
    }
    await until('every export to end', async () => (await s.request('GET', `${path}?soggettoIdIn=1&fields=Id`, { token: admin })).status === 200);
    if (dialect === 'mysql') {
      await until('every read connection back', () => readPoolFigures(s.db)!.used === 0);
      expect(await readViews(s)).to.equal(0);
    } else {
      // No reader left holding a snapshot: the whole WAL can be checkpointed.
      const [result] = await s.knex.raw('PRAGMA wal_checkpoint(TRUNCATE)');
      expect(result.busy).to.equal(0);
    }
  });

  it('resumes an export cut short after the last row the client received', async function () {
    this.timeout(60_000);
    const query = 'orderByDesc=Recapito&fields=Recapito,Id';
    const expected = await unpaged(query);
    const held = hold(s, `${path}?${query}`, admin);
    await held.readUntil(300_000);
    held.drop();
    // Whole lines only: the last one may be torn by the cut.
    const lines = held.received().split('\n').slice(0, -1).map((l) => JSON.parse(l) as Row);
    expect(lines.length).to.be.above(0).and.below(expected.length);
    const last = lines.at(-1)!;
    const resumed = await s.request('GET', `${path}?${query}&after=${encodeURIComponent(JSON.stringify([last['recapito'] ?? null, last['id']]))}`, { token: admin });
    const { records, end } = linesOf(resumed.text);
    expect([...lines, ...records]).to.deep.equal(expected);
    expect(end).to.deep.equal({ complete: true, rows: expected.length - lines.length });
  });

  it('ends an export that fails after it began with a line saying so (JSON Lines) or without the last chunk (CSV); its cursor resumes it', async function () {
    this.timeout(60_000);
    const query = 'orderBy=Recapito&fields=Recapito,Id';
    const expected = await unpaged(query);
    // The third page's statement fails, as a database gone away would make it.
    const failing = () => {
      let pages = 0;
      return watchReads(s.db, (st) => {
        if (/recapito/i.test(st.sql) && ++pages === 3) throw new Error('the database went away');
      });
    };
    let stop = failing();
    const jsonl = await s.request('GET', `${path}?${query}`, { token: admin }).finally(() => stop());
    expect(jsonl.status).to.equal(200);
    const { records, end } = linesOf(jsonl.text);
    expect(records).to.deep.equal(expected.slice(0, 2000));
    expect(end).to.include({ complete: false, rows: 2000 });
    expect((end['responseStatus'] as Row)['errorCode']).to.equal('InternalServerError');
    const rest = await s.request('GET', `${path}?${query}&after=${encodeURIComponent(end['after'] as string)}`, { token: admin });
    expect([...records, ...linesOf(rest.text).records]).to.deep.equal(expected);

    stop = failing();
    const csv = hold(s, `${path}.csv?${query}`, admin);
    const { text, whole } = await csv.finish().finally(() => stop());
    expect(whole, 'the CSV ends without its last chunk').to.equal(false);
    expect(text.split('\r\n').length - 2).to.equal(2000);
  });

  it('checks access before input, and input before the first byte', async () => {
    expectError(await s.request('GET', `${path}?fields=Id`), 401, 'Unauthorized');
    expectError(await s.request('GET', `${path}?fields=Id`, { token: await s.tokenFor(['ApiUser']) }), 403, 'Forbidden');
    expectError(await s.request('GET', `${path}?recapitoStartWith=a`, { token: admin }), 400, 'UnknownField', 'recapitoStartWith');
    expectError(await s.request('GET', `${path}?take=10`, { token: admin }), 400, 'UnknownField', 'take');
    expectError(await s.request('GET', `${path}?orderBy=Nome`, { token: admin }), 400, 'InvalidValue', 'OrderBy');
    expectError(await s.request('GET', `${path}?soggettoIdBetween=1`, { token: admin }), 400, 'InvalidValue', 'SoggettoIdBetween');
    expectError(await s.request('GET', `${path}?orderBy=Recapito&after=${encodeURIComponent('[1]')}`, { token: admin }), 400, 'InvalidValue', 'After');
    expectError(await s.request('GET', `${path}?after=${encodeURIComponent('[oops')}`, { token: admin }), 400, 'InvalidValue', 'After');
    expectError(await s.request('GET', `${path}?after=not-a-cursor`, { token: admin }), 400, 'InvalidValue', 'After');
  });

  it('HEAD answers the headers without reading a row', async () => {
    const statements: string[] = [];
    const stop = watchReads(s.db, (st) => statements.push(st.sql));
    const r = await s.request('HEAD', `${path}.csv?fields=Id`, { token: admin });
    stop();
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-disposition')).to.equal('attachment; filename="SoggettoRecapitoQuery.csv"');
    expect(statements).to.deep.equal([]);
  });
});
