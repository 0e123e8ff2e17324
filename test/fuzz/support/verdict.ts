// The fuzzer's oracle: what every answer to a malformed request must look like. A 4xx
// with `Content-Type: application/json; charset=utf-8` and a ResponseStatus envelope
// whose errorCode maps to that status (design.md §3); with a valid JSONP callback, a 200
// that wraps the same envelope (design.md §2), except where Node's HTTP parser refused the
// request before the app could read the callback. Returns a reason when the answer is wrong.
import { statusOf, type ErrorCode } from '../../../src/errors/catalogue.js';
import type { FuzzCase } from './malformed-requests.js';
import type { RawResponse } from './raw-http.js';

/** Kinds that Node's HTTP parser itself refuses (headers over 16 KiB, non-ASCII bytes in the target). */
const parserRefused = new Set(['oversized-headers', 'raw-bytes']);

// Node's --max-http-header-size (16 KiB) counts the request line too: a long enough value
// in the query string of any kind of case is refused before the app sees its callback.
const parserLimitBytes = 16 * 1024;
// The head raw-http.ts writes around the case's own headers, at its longest (a 5-digit port).
const addedHead = ' HTTP/1.1\r\n'.length + 'Host: 127.0.0.1:65535\r\n'.length + 'Connection: close\r\n'.length + 'Content-Length: 1048576\r\n'.length + '\r\n'.length;

function overParserLimit(c: FuzzCase): boolean {
  const target = Buffer.byteLength(c.request.target);
  const headers = c.request.headers.reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v) + 4, 0);
  // `>=` and the longest added head: at the boundary, count the request as refused.
  return c.request.method.length + 1 + target + headers + addedHead >= parserLimitBytes;
}

export interface Verdict {
  /** The status the envelope stands for (for JSONP, the errorCode's status). */
  readonly status: number;
  readonly problem: string | undefined;
}

export function verdict(c: FuzzCase, r: RawResponse): Verdict {
  const type = r.headers.get('content-type');
  const text = r.body.toString('utf8');
  if (c.callback !== undefined && r.status === 200) {
    if (type !== 'application/javascript; charset=utf-8') return { status: r.status, problem: `JSONP answer with Content-Type ${type}` };
    const prefix = `/**/${c.callback}(`;
    if (!text.startsWith(prefix) || !text.endsWith(');')) return { status: r.status, problem: `JSONP body not wrapped in ${c.callback}(...): ${text.slice(0, 120)}` };
    return envelope(text.slice(prefix.length, -2), undefined);
  }
  // Only requests Node's own parser refuses (before the app sees the callback) may ignore it.
  if (c.callback !== undefined && !parserRefused.has(c.kind) && !overParserLimit(c)) return { status: r.status, problem: `a valid callback was sent, but the answer is ${r.status}, not JSONP` };
  if (type !== 'application/json; charset=utf-8') return { status: r.status, problem: `Content-Type ${type} (body ${JSON.stringify(text.slice(0, 120))})` };
  const v = envelope(text, r.status);
  if (v.problem) return v;
  if (r.status === 401 && r.headers.get('www-authenticate') !== 'Bearer') return { status: r.status, problem: '401 without WWW-Authenticate: Bearer' };
  if (r.status === 405 && !r.headers.get('allow')) return { status: r.status, problem: '405 without Allow' };
  return v;
}

function envelope(json: string, httpStatus: number | undefined): Verdict {
  let body: unknown;
  try {
    body = JSON.parse(json);
  } catch {
    return { status: httpStatus ?? 0, problem: `body is not JSON: ${json.slice(0, 120)}` };
  }
  const rs = (body as { responseStatus?: Record<string, unknown> } | null)?.responseStatus;
  if (!rs || typeof rs !== 'object') return { status: httpStatus ?? 0, problem: `no responseStatus in ${json.slice(0, 120)}` };
  const code = rs['errorCode'];
  const status = typeof code === 'string' ? statusOf(code as ErrorCode) : 0;
  const problem =
    typeof code !== 'string' || code === '' ? 'errorCode missing'
      : typeof rs['message'] !== 'string' || rs['message'] === '' ? 'message missing'
        : !Array.isArray(rs['errors']) ? 'errors is not an array'
          : !(rs['errors'] as unknown[]).every(isFieldError) ? 'a field error is malformed'
            : 'stackTrace' in rs ? 'stackTrace leaked'
              : status < 400 || status > 499 ? `errorCode ${code} is no client error`
                : httpStatus !== undefined && status !== httpStatus ? `errorCode ${code} does not match HTTP ${httpStatus}`
                  : undefined;
  return { status, problem: problem && `${problem}: ${json.slice(0, 200)}` };
}

const isFieldError = (e: unknown): boolean => {
  const f = e as Record<string, unknown> | null;
  return !!f && typeof f['errorCode'] === 'string' && typeof f['fieldName'] === 'string' && typeof f['message'] === 'string';
};
