// One request and its answer as the edge sees them: the target's path and query, the
// caller's address, what the edge learns on the way (the operation, the JSONP callback)
// and a logger tagged with the request id. Made by the first middleware (exchange-middleware.ts);
// each part is read only when something asks for it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import proxyAddr from 'proxy-addr';
import type { TrustProxy } from '../config.js';

/** The path and query of a request target: origin form (`/a?b`) or absolute form (`http://h/a?b`, RFC 9112 §3.2.2). */
function splitTarget(url: string): { path: string; search: string } {
  let target = url;
  if (!url.startsWith('/')) {
    try {
      const u = new URL(url);
      target = u.pathname + u.search;
    } catch {
      // `*` (OPTIONS) or garbage: no operation has such a path, so it falls to the 404.
      return { path: url, search: '' };
    }
  }
  const q = target.indexOf('?');
  return q < 0 ? { path: target, search: '' } : { path: target.slice(0, q), search: target.slice(q + 1) };
}

export class Exchange {
  /** performance.now() at arrival: a double, where hrtime.bigint() allocated a BigInt per request. */
  readonly started = performance.now();
  /** The target's path, still percent-encoded. */
  readonly path: string;
  /** Set once the request is matched to an operation; metrics and the request log read it. */
  operationId: string | undefined;
  /** The validated JSONP callback, once negotiation has run. */
  callback: string | undefined;
  private readonly search: string;
  private pairs: Array<[string, string]> | undefined;
  private child: Logger | undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly requestId: string,
    private readonly logger: Logger,
    private readonly trust: TrustProxy,
  ) {
    const { path, search } = splitTarget(req.url ?? '/');
    this.path = path;
    this.search = search;
    // Every answer carries these, whoever writes it.
    res.setHeader('X-Request-Id', requestId);
    res.setHeader('X-Content-Type-Options', 'nosniff');
  }

  /** A request header by its lower-case name (repeated headers as node joins them). */
  header(name: string): string | undefined {
    const v = this.req.headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  }

  /** The query string's pairs, in order, decoded. */
  get query(): ReadonlyArray<readonly [string, string]> {
    return (this.pairs ??= this.search === '' ? [] : [...new URLSearchParams(this.search)]);
  }

  /**
   * Drops the decoded query, which is read again from the target if asked: a live answer
   * keeps its Exchange as long as the stream is open (design.md §7, "Live answers").
   */
  forgetQuery(): void {
    this.pairs = undefined;
  }

  /** An edge parameter (format, callback): names are case-insensitive like everything else. */
  queryValue(name: string): string | undefined {
    return this.query.find(([k]) => k.toLowerCase() === name)?.[1];
  }

  /**
   * Made on first use: pino serializes a child's bindings when it is made, and at
   * LOG_LEVEL warn (production) most requests never log a line.
   */
  get log(): Logger {
    return (this.child ??= this.logger.child({ reqId: this.requestId }));
  }

  /**
   * The absolute URL of this request with `set` in its query string in place of any
   * parameter named like one of `drop` or of `set` (names case-insensitive). The scheme and
   * host are the ones the client used: X-Forwarded-Proto and -Host count when the socket's
   * peer is a trusted proxy (TRUST_PROXY).
   */
  urlWith(set: Readonly<Record<string, string>>, drop: readonly string[]): string {
    const trusted = this.trust(this.req.socket.remoteAddress ?? '', 0);
    const forwarded = (name: string) => (trusted ? this.header(name)?.split(',')[0]?.trim() : undefined) || undefined;
    const encrypted = (this.req.socket as { encrypted?: boolean }).encrypted === true;
    const scheme = forwarded('x-forwarded-proto') ?? (encrypted ? 'https' : 'http');
    const host = forwarded('x-forwarded-host') ?? this.header('host') ?? 'localhost';
    const skipped = new Set([...drop, ...Object.keys(set)].map((n) => n.toLowerCase()));
    const query = new URLSearchParams(this.query.filter(([k]) => !skipped.has(k.toLowerCase())) as [string, string][]);
    for (const [k, v] of Object.entries(set)) query.append(k, v);
    return `${scheme}://${host}${this.path}?${query.toString()}`;
  }

  /** The client's address: the socket's peer, or behind TRUST_PROXY the forwarded one. */
  get clientIp(): string {
    return proxyAddr(this.req, this.trust) ?? '';
  }
}
