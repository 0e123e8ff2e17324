// The mixed traffic the load and fault tests send, and a driver that records every
// request: when it started and ended, its status and errorCode, or the transport error.
// Only 127.0.0.1 is ever addressed, and every driver stops on its own.
import { randomBytes } from 'node:crypto';
import { statusOf, type ErrorCode } from '../../../src/errors/catalogue.js';
import { adminUser } from './reliability-target.js';

export interface Req {
  readonly name: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** Every request is valid: the right answer to each is a 2xx. `register` adds a unique user each time. */
export function mixedRequests(adminToken: string, impiantoIds: readonly number[]): Array<() => Req> {
  const auth = { authorization: `Bearer ${adminToken}` };
  const json = { ...auth, 'content-type': 'application/json' };
  let n = 0;
  const tag = randomBytes(3).toString('hex');
  return [
    () => ({ name: 'query-post', method: 'POST', path: '/json/reply/CaratteristicaGruppoQuery', headers: json, body: JSON.stringify({ descrizioneContains: 'a', include: 'Total', take: 20, orderBy: '-OrdineVista' }) }),
    () => ({ name: 'query-get', method: 'GET', path: '/json/reply/SoggettoRecapitoQuery?RecapitoStartsWith=info&OrderBy=-Id&Take=10', headers: auth }),
    () => ({ name: 'files', method: 'GET', path: `/impianti/${impiantoIds[n++ % impiantoIds.length]}/files`, headers: auth }),
    () => ({ name: 'query-csv', method: 'GET', path: '/json/reply/CaratteristicaGruppoQuery.csv?Take=50&Fields=Id,Descrizione', headers: auth }),
    () => ({ name: 'query-jsonp', method: 'GET', path: '/json/reply/SoggettoRecapitoQuery?callback=cb&IdIn=1,2,3&Include=COUNT(*)', headers: auth }),
    () => ({ name: 'health', method: 'GET', path: '/health', headers: {} }),
    () => ({ name: 'sign-in', method: 'POST', path: '/auth/credentials', headers: { 'content-type': 'application/json' }, body: JSON.stringify(adminUser) }),
    () => ({ name: 'register', method: 'POST', path: '/register', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userName: `load-${tag}-${n++}`, password: 'load-password' }) }),
  ];
}

export interface Sample {
  readonly name: string;
  readonly start: number;
  readonly end: number;
  readonly status?: number;
  readonly errorCode?: string;
  /** Transport failure: the cause's code (ECONNREFUSED, UND_ERR_SOCKET, ...). */
  readonly error?: string;
  /** The answer's Connection header (`close` while the service drains). */
  readonly connection?: string;
}

export async function send(baseUrl: string, req: Req, timeoutMs = 15_000): Promise<Sample> {
  const start = performance.now();
  try {
    const res = await fetch(baseUrl + req.path, { method: req.method, headers: req.headers, body: req.body, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    // JSONP answers failures with 200 (design.md §2): unwrap and read the envelope.
    const jsonp = /^\/\*\*\/[\w$.]+\(([\s\S]*)\);$/.exec(text);
    let errorCode: string | undefined;
    if (res.status >= 400 || jsonp) {
      try {
        errorCode = (JSON.parse(jsonp ? jsonp[1]! : text) as { responseStatus?: { errorCode?: string } }).responseStatus?.errorCode;
      } catch { /* not JSON */ }
    }
    // For JSONP, the status the envelope stands for.
    const status = jsonp && errorCode ? statusOf(errorCode as ErrorCode) : res.status;
    const connection = res.headers.get('connection') ?? undefined;
    return { name: req.name, start, end: performance.now(), status, ...(errorCode ? { errorCode } : {}), ...(connection ? { connection } : {}) };
  } catch (err) {
    const e = err as { name?: string; cause?: { code?: string; name?: string } };
    return { name: req.name, start, end: performance.now(), error: e.cause?.code ?? e.cause?.name ?? e.name ?? String(err) };
  }
}

/**
 * `concurrency` loops, each sending the next request of `requests` once the last one
 * answered (and `pauseMs` passed), until `stop()` says so or the loop's `done(sample)`
 * returns true. A pause keeps the offered rate bounded: without one, loops answered by
 * instant 503s would saturate the machine and measure its CPU, not the service.
 */
export async function loops(baseUrl: string, requests: Array<() => Req>, concurrency: number, stop: () => boolean, done: (s: Sample) => boolean = () => false, pauseMs = 0): Promise<Sample[]> {
  const samples: Sample[] = [];
  await Promise.all(Array.from({ length: concurrency }, async (_, i) => {
    for (let k = i; !stop(); k++) {
      const s = await send(baseUrl, requests[k % requests.length]!());
      samples.push(s);
      if (done(s)) return;
      if (pauseMs > 0) await sleep(pauseMs);
    }
  }));
  return samples;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
