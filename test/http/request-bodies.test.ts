// Reading request bodies (design.md §2, §3): compressed bodies, the 1 MiB limit after
// inflating, and where body framing stands in the order of checks.
import { expect } from 'chai';
import net from 'node:net';
import zlib from 'node:zlib';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestServer } from '../support/server.js';
import { expectError } from '../support/expect-error.js';

const MiB = 1024 * 1024;
const query = '/json/reply/SoggettoRecapitoQuery';

/** Writes `requests` on one keep-alive connection and returns each answer's status line. */
function statusesOnOneConnection(baseUrl: string, requests: Buffer[]): Promise<string[]> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let seen = '';
    const statuses = () => [...seen.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1]!);
    socket.setTimeout(10_000, () => socket.destroy(new Error(`only ${statuses().length} answers: ${seen.slice(0, 300)}`)));
    socket.on('data', (c: Buffer) => {
      seen += c.toString('latin1');
      if (statuses().length === requests.length) {
        socket.destroy();
        resolve(statuses());
      }
    });
    socket.on('error', reject);
    for (const r of requests) socket.write(r);
  });
}

const rawPost = (path: string, headers: Record<string, string>, body: Buffer): Buffer =>
  Buffer.concat([
    Buffer.from(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}Content-Length: ${body.length}\r\n\r\n`, 'latin1'),
    body,
  ]);

forEachDialect('request bodies', (dialect) => {
  let s: TestServer;
  let admin: string;
  before(async () => {
    s = await startServer({ dialect });
    admin = await s.tokenFor(['Admin']);
  });
  after(() => s.close());

  const post = (body: Buffer, headers: Record<string, string>, token = admin, path = query) =>
    s.request('POST', path, { body, headers: { 'content-type': 'application/json', ...headers }, ...(token !== '' ? { token } : {}) });

  it('inflates gzip, deflate and br bodies, the coding named in any case', async () => {
    const json = Buffer.from(JSON.stringify({ take: 1, include: 'Total' }));
    const codings: Array<[string, Buffer]> = [['gzip', zlib.gzipSync(json)], ['x-gzip', zlib.gzipSync(json)], ['Deflate', zlib.deflateSync(json)], ['br', zlib.brotliCompressSync(json)]];
    for (const [coding, bytes] of codings) {
      const r = await post(bytes, { 'content-encoding': coding });
      expect(r.status, `${coding}: ${r.text}`).to.equal(200);
      // Both properties took effect, so the body was read as sent.
      expect(r.body.results, coding).to.have.length.at.most(1);
      expect(r.body.total, coding).to.be.a('number');
    }
  });

  it('400 SerializationException for a corrupt compressed body, naming the coding', async () => {
    const r = await post(Buffer.from('this is not gzip'), { 'content-encoding': 'gzip' });
    expectError(r, 400, 'SerializationException');
    expect(r.body.responseStatus.message).to.match(/gzip/);
  });

  it('415 UnsupportedMediaType for a Content-Encoding it cannot inflate', async () => {
    for (const coding of ['zstd', 'compress', 'gzip, gzip']) {
      const r = await post(Buffer.from('{}'), { 'content-encoding': coding });
      expectError(r, 415, 'UnsupportedMediaType');
      expect(r.body.responseStatus.message).to.include('Content-Encoding');
    }
  });

  it('413 for a compressed body that inflates past 1 MiB (a compression bomb stops at the limit)', async () => {
    const bomb = zlib.gzipSync(Buffer.concat([Buffer.from('{"recapito":"'), Buffer.alloc(2 * MiB, 'a'), Buffer.from('"}')]));
    expect(bomb.length).to.be.below(20_000);
    expectError(await post(bomb, { 'content-encoding': 'gzip' }), 413, 'PayloadTooLarge');
  });

  it('413 for a chunked body that grows past 1 MiB, though it declared no length', async () => {
    const chunks = [Buffer.from('{"recapito":"'), Buffer.alloc(MiB, 'a'), Buffer.from('"}')];
    const res = await fetch(`${s.baseUrl}${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body: new ReadableStream({ pull(c) { const next = chunks.shift(); if (next) c.enqueue(next); else c.close(); } }),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).to.equal(413);
    expect(((await res.json()) as { responseStatus: { errorCode: string } }).responseStatus.errorCode).to.equal('PayloadTooLarge');
  });

  it('an unknown route is 404 and a missing token 401 whatever body comes with them: bodies are read after routing and authentication', async () => {
    const big = Buffer.alloc(2 * MiB, 'a');
    expectError(await post(big, {}, '', '/json/reply/NopeQuery'), 404, 'NotFound');
    expectError(await post(big, {}, ''), 401, 'Unauthorized');
    expectError(await post(Buffer.from('x'), { 'content-encoding': 'zstd' }, ''), 401, 'Unauthorized');
  });

  it('keeps a keep-alive connection usable after refusing a body, read or not', async () => {
    const next = rawPost(query, { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' }, Buffer.from('{"take":1}'));
    const statuses = await statusesOnOneConnection(s.baseUrl, [
      rawPost(query, { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' }, Buffer.alloc(MiB + 1, 'a')),
      next,
      rawPost(query, { 'Content-Type': 'application/json' }, Buffer.alloc(4096, 'a')),
      next,
      rawPost(query, { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, zlib.gzipSync(Buffer.alloc(2 * MiB, 'a'))),
      next,
    ]);
    expect(statuses).to.deep.equal(['413', '200', '401', '200', '413', '200']);
  });
});
