// Reads a request body whole (design.md §2): at most `limit` bytes after inflating a
// gzip, deflate or br Content-Encoding (RFC 9110 §8.4), so a compression bomb stops at the
// limit too. Only an operation that takes a body reads one, after routing, so an unknown
// route is a 404 whatever it carries (design.md §3: 404/405 first).
//
// Not express.raw (body-parser): for a small JSON body it costs about a twentieth of the
// service's CPU per request, on charset, verify hooks and async-scope
// machinery this service does not use; and its failures are http-errors translated
// after the fact, where these are ApiErrors from the start.
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { ApiError, fail, ok, type Result } from '../errors/api-error.js';

const inflaters: Readonly<Record<string, () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress>> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

/** Chunked, or a Content-Length (even 0): the framing of a request with a body (RFC 9112 §6.3). */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
}

/** The body, or undefined when the request has none. Never rejects. */
export function readBody(req: IncomingMessage, limit: number): Promise<Result<Buffer | undefined>> {
  if (!hasBody(req)) return Promise.resolve(ok(undefined));
  const tooLarge = () => ApiError.of('PayloadTooLarge', `The request body exceeds ${limit} bytes`);
  const unreadable = (why: string) => ApiError.of('SerializationException', `The request body could not be read: ${why}`);
  const coding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);

  if (coding !== 'identity' && !(coding in inflaters)) {
    return discard(req, ApiError.of('UnsupportedMediaType', `Content-Encoding ${coding || '(empty)'} is not supported; send identity, gzip, deflate or br`));
  }
  if (coding === 'identity' && declared !== undefined && declared > limit) return discard(req, tooLarge());

  return new Promise((resolve) => {
    const inflater = coding === 'identity' ? undefined : inflaters[coding]!();
    const source: Readable = inflater ? req.pipe(inflater) : req;
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: Result<Buffer | undefined>) => {
      if (settled) return;
      settled = true;
      source.off('data', onData);
      if (inflater) {
        req.unpipe(inflater);
        inflater.destroy();
      }
      if (result.ok || req.complete) return resolve(result);
      // Answer only once the client has sent everything: a client still writing its body
      // when the answer and the close come would see a reset instead of the error.
      void discard(req, result.error).then(resolve);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return settle(fail(tooLarge()));
      chunks.push(chunk);
    };
    // `on`, not `once`: settle answers once, and once() wraps each listener per request.
    source.on('data', onData);
    // Node's parser has already held the body to its Content-Length.
    source.on('end', () => settle(ok(Buffer.concat(chunks, size))));
    // A corrupt compressed stream; or the client went away half-way (then nobody reads the answer).
    source.on('error', (err: Error) => settle(fail(unreadable(inflater ? `it is not valid ${coding} data` : err.message))));
    if (inflater) req.on('error', (err: Error) => settle(fail(unreadable(err.message))));
    req.on('close', () => { if (!req.complete) settle(fail(unreadable('the client closed the connection'))); });
  });
}

/** Reads the rest of the request into the void, then fails with `error`. */
function discard(req: IncomingMessage, error: ApiError): Promise<Result<never>> {
  return new Promise((resolve) => {
    const done = () => resolve(fail(error));
    if (req.complete || req.destroyed) return done();
    req.once('end', done);
    req.once('close', done);
    req.once('error', done);
    req.resume();
  });
}
