// A minimal HTTP/1.1 client over a raw socket, one connection per request. fetch refuses
// what the fuzzer needs to send (raw non-UTF-8 bytes in the request target, duplicate or
// odd headers, bodies on any verb), so the fuzzer writes requests byte for byte.
import net from 'node:net';

export interface RawRequest {
  readonly method: string;
  /** The request target exactly as sent: path and query, bytes allowed. */
  readonly target: string | Buffer;
  readonly headers: readonly (readonly [string, string])[];
  readonly body?: Buffer;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: ReadonlyMap<string, string>;
  readonly body: Buffer;
}

export function send(port: number, req: RawRequest, timeoutMs = 20_000): Promise<RawResponse> {
  const head = Buffer.concat([
    Buffer.from(`${req.method} `, 'latin1'),
    typeof req.target === 'string' ? Buffer.from(req.target, 'latin1') : req.target,
    Buffer.from(' HTTP/1.1\r\n', 'latin1'),
    Buffer.from(
      [['Host', `127.0.0.1:${port}`], ['Connection', 'close'], ...req.headers, ...(req.body ? [['Content-Length', String(req.body.length)]] : [])]
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('') + '\r\n',
      'latin1',
    ),
  ]);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1');
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    socket.on('data', (c) => chunks.push(c));
    // The server may answer (413, 400) and close before it has read a large body: a reset
    // while writing is fine as long as an answer arrived.
    socket.on('error', (err) => (chunks.length > 0 ? finish() : reject(err)));
    socket.on('end', finish);
    socket.write(req.body ? Buffer.concat([head, req.body]) : head);
    let done = false;
    function finish(): void {
      if (done) return;
      done = true;
      socket.destroy();
      try {
        resolve(parse(Buffer.concat(chunks), req.method === 'HEAD'));
      } catch (err) {
        reject(err);
      }
    }
  });
}

function parse(raw: Buffer, head: boolean): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`incomplete response: ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`);
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
  if (!Number.isInteger(status)) throw new Error(`bad status line: ${statusLine}`);
  const headers = new Map<string, string>();
  for (const l of lines) {
    const i = l.indexOf(':');
    headers.set(l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim());
  }
  let body = raw.subarray(end + 4);
  if (head) body = Buffer.alloc(0);
  else if (headers.get('transfer-encoding')?.toLowerCase() === 'chunked') body = unchunk(body);
  else if (headers.has('content-length')) body = body.subarray(0, Number(headers.get('content-length')));
  return { status, headers, body };
}

function unchunk(data: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', at);
    const size = parseInt(data.subarray(at, eol).toString('latin1'), 16);
    if (!(size > 0)) return Buffer.concat(out);
    out.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}
