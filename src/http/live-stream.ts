// The live form of a tagged GET (design.md §7, "Live answers"): asked with
// Accept: text/event-stream, the request passes every check of the plain GET and its first
// read, and only then becomes a Server-Sent Events stream, whose events the process's
// LiveHub (src/live/live-hub.ts) sends.
import type { ServerResponse } from 'node:http';
import { concurrencyLimitFields } from '../auth/rate-limit-fields.js';
import { bearerExpiresAt } from '../auth/token-expiry.js';
import type { Principal } from '../auth/roles.js';
import { ApiError } from '../errors/api-error.js';
import type { LiveAnswer, LiveHub, LiveSink, Subscribed } from '../live/live-hub.js';
import type { Exchange } from './exchange.js';
import { ifNoneMatchMaxLength } from './entity-tag.js';
import type { Conditional, NotModified, OperationResponse } from './operation.js';
import { toJson } from './respond.js';

export interface LiveModule {
  readonly hub: LiveHub;
  /** The tables an operation's answer is made of; undefined for an operation with no live form. */
  tablesOf(operationId: string): readonly string[] | undefined;
}

/** What a client may leave unread before it is dropped: a few answers of a full page. */
const maxUnsentBytes = 1024 * 1024;

/** A client over the cap may try again in a second: streams end as clients leave. */
const retryAfterSeconds = 1;

/** Whether Accept asks for the event stream: EventSource sends exactly `text/event-stream`. */
export function wantsEvents(accept: string | undefined): boolean {
  // Most requests ask for no stream: one scan of the header answers them.
  if (accept === undefined || !/event-stream/i.test(accept)) return false;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return type === 'text/event-stream' && (q === undefined || Number(q.slice(2)) > 0);
  });
}

/**
 * The credentials of a request for events: its Authorization header, or else the access token
 * in the `ss-tok` cookie, ServiceStack's name for it, since a browser's EventSource cannot
 * send a header (design.md §7, "Live answers"). The service never sets that cookie: the page
 * does, and only an event stream reads it.
 */
export function streamAuthorization(authorization: string | undefined, cookie: string | undefined): string | undefined {
  if (authorization !== undefined || cookie === undefined) return authorization;
  const token = /(?:^|;)\s*ss-tok=([^;\s]+)/.exec(cookie)?.[1];
  return token === undefined ? undefined : `Bearer ${token}`;
}

/** JSON text with no key order of its own: equal DTOs, however written, give equal keys. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const answerOf = (result: OperationResponse | NotModified): LiveAnswer => ({
  tag: result.headers?.['ETag'],
  data: 'notModified' in result ? undefined : toJson(result.body, result.nullFree),
});

// `private`, as on every answer of a tagged operation (design.md §7): the events depend on the caller's token.
const streamHeaders = ['Content-Type', 'text/event-stream; charset=utf-8', 'Cache-Control', 'private, no-cache', 'X-Accel-Buffering', 'no'];

/** The same for every stream, so 10,000 streams share one string. */
const expiredData = toJson({ responseStatus: { errorCode: 'TokenExpired', message: 'The access token expired: reconnect with a fresh one and Last-Event-ID', errors: [] } });

/** One stream's events on its response: an object per stream, with no closure over the request. */
class ResponseSink implements LiveSink {
  constructor(private readonly res: ServerResponse) {}

  /** Writes the status line and headers, once. */
  open(): void {
    if (!this.res.headersSent) this.res.writeHead(200, streamHeaders);
  }

  write(event: Buffer): boolean {
    const { res } = this;
    if (res.destroyed) return false;
    this.open();
    if (res.writableLength + event.length > maxUnsentBytes) return false;
    res.write(event);
    return true;
  }

  end(event?: Buffer): void {
    if (this.res.destroyed) return;
    this.open();
    if (event === undefined) this.res.destroy();
    else this.res.end(event);
  }
}

function tooMany(limit: number): ApiError {
  return ApiError.of('TooManyRequests', 'Too many live answers are open here; try again later', {
    'Retry-After': String(retryAfterSeconds),
    ...concurrencyLimitFields('live', limit, 0, retryAfterSeconds),
  });
}

/** Ends the subscription when the client leaves; a function of its own, so the listener holds nothing else. */
function unsubscribeOnClose(res: ServerResponse, subscribed: Subscribed): void {
  if (res.destroyed || res.writableEnded) subscribed.unsubscribe();
  else res.on('close', () => subscribed.unsubscribe());
}

/**
 * Serves the live form of `operationId` for `principal`'s `dto`. `read` runs the handler as
 * the plain GET would, with `conditional`; its failure before the stream starts is answered
 * as the GET's (thrown). Resolves once the stream is open: the request, its DTO and `read`
 * are not kept for the stream's lifetime, only the response and its subscription are.
 */
export async function serveLive(
  ex: Exchange,
  live: LiveModule,
  request: { readonly operationId: string; readonly dto: unknown; readonly principal: Principal | null; readonly authorization: string | undefined },
  read: (conditional: Conditional) => Promise<OperationResponse | NotModified>,
): Promise<void> {
  const { hub } = live;
  if (!hub.hasRoom()) throw tooMany(hub.limit);
  const lastEventId = ex.header('last-event-id');
  // The tag it names is read as If-None-Match is, under the same bound, named for this header.
  if (lastEventId !== undefined && lastEventId.length > ifNoneMatchMaxLength) {
    throw ApiError.field('Length', 'Last-Event-ID', `Last-Event-ID must be at most ${ifNoneMatchMaxLength} characters`);
  }
  // A client resuming with the current tag costs one version read, as a 304 does.
  const first = await read({ ifNoneMatch: lastEventId, representation: 'json' });
  ex.forgetQuery();
  const { res } = ex;
  const sink = new ResponseSink(res);
  const roles = [...(request.principal?.roles ?? [])].sort().join(',');
  const subscribed = hub.subscribe(
    {
      key: `${request.operationId} ${roles} json ${canonical(request.dto)}`,
      tables: live.tablesOf(request.operationId) ?? [],
      read: rerun(read),
    },
    sink,
    { lastEventId, seed: answerOf(first), expiresAt: bearerExpiresAt(request.authorization), expiredData },
  );
  if (!subscribed.ok) throw tooMany(hub.limit);
  // The status line and headers go now, whether or not a first event follows them.
  sink.open();
  res.flushHeaders();
  unsubscribeOnClose(res, subscribed);
}

/** The group's later reads: the plain GET's, unconditional. Kept by the hub for the first subscriber's request only. */
function rerun(read: (conditional: Conditional) => Promise<OperationResponse | NotModified>): () => Promise<LiveAnswer> {
  return async () => answerOf(await read({ ifNoneMatch: undefined, representation: 'json' }));
}
