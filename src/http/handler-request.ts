// The request a handler receives (operation.ts, OperationRequest), built once per request
// from express's req and res.
//
// A class, not an object literal: a literal with a getter (`get clientIp() {...}`) makes
// V8 build a new hidden class, descriptor array and accessor pair for every object, and at
// a few thousand requests a second that garbage costs a tenth of the CPU of a cheap query;
// on the prototype, the getter is one for all requests.
import type { Request, Response } from 'express';
import type { Principal } from '../auth/roles.js';
import type { FieldError } from '../errors/api-error.js';
import { bearerOf, type Authenticator } from './access.js';
import type { Conditional, OperationRequest } from './operation.js';
import { localsOf } from './request-locals.js';
import { splitTarget } from './request-target.js';

/** Dropped from the next page's query string, in any letter case, before `after` is set. */
const replacedByAfter = new Set(['after', 'skip']);

export class HandlerRequest implements OperationRequest {
  constructor(
    readonly operationId: string,
    readonly dto: Readonly<Record<string, unknown>>,
    readonly fieldErrors: readonly FieldError[],
    readonly principal: Principal | null,
    readonly format: 'json' | 'csv' | 'jsonl',
    private readonly req: Request,
    private readonly res: Response,
    private readonly authenticator: Authenticator,
    readonly conditional?: Conditional,
  ) {}

  bearer(): Principal | null {
    return this.principal ?? bearerOf(this.req.headers.authorization, this.authenticator);
  }

  /**
   * This request's absolute URL, as the client asked for it, with `after` in place of any
   * `after` or `skip`. The scheme and host are the ones the client used: express reads
   * X-Forwarded-Proto and -Host when the socket's peer is a trusted proxy (TRUST_PROXY).
   */
  nextPageUrl(after: string): string | undefined {
    const { req } = this;
    if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
    const kept = localsOf(this.res).queryPairs.filter(([k]) => !replacedByAfter.has(k.toLowerCase()));
    const query = new URLSearchParams(kept as [string, string][]);
    query.append('after', after);
    return `${req.protocol}://${req.host ?? 'localhost'}${splitTarget(req.originalUrl).path}?${query.toString()}`;
  }

  announce(headers: Readonly<Record<string, string>>): void {
    for (const name in headers) this.res.setHeader(name, headers[name]!);
  }

  /** Read only by the account operations, for their rate limits: the socket's peer, or behind TRUST_PROXY the forwarded one. */
  get clientIp(): string {
    return this.req.ip ?? '';
  }
}
