// The request a handler receives (operation.ts, OperationRequest), built once per request.
//
// A class, not an object literal: a literal with a getter (`get clientIp() {...}`) makes
// V8 build a new hidden class, descriptor array and accessor pair for every object, and at
// a few thousand requests a second that garbage costs a tenth of the CPU of a cheap query;
// on the prototype, the getter is one for all requests.
import type { Principal } from '../auth/roles.js';
import type { FieldError } from '../errors/api-error.js';
import { bearerOf, type Authenticator } from './access.js';
import type { Exchange } from './exchange.js';
import type { Conditional, OperationRequest } from './operation.js';

export class HandlerRequest implements OperationRequest {
  constructor(
    readonly operationId: string,
    readonly dto: Readonly<Record<string, unknown>>,
    readonly fieldErrors: readonly FieldError[],
    readonly principal: Principal | null,
    readonly format: 'json' | 'csv' | 'jsonl',
    private readonly ex: Exchange,
    private readonly authenticator: Authenticator,
    readonly conditional?: Conditional,
  ) {}

  bearer(): Principal | null {
    return this.principal ?? bearerOf(this.ex.header('authorization'), this.authenticator);
  }

  nextPageUrl(after: string): string | undefined {
    const method = this.ex.req.method;
    return method === 'GET' || method === 'HEAD' ? this.ex.urlWith({ after }, ['skip']) : undefined;
  }

  announce(headers: Readonly<Record<string, string>>): void {
    for (const name in headers) this.ex.res.setHeader(name, headers[name]!);
  }

  /** Read only by the account operations, for their rate limits. */
  get clientIp(): string {
    return this.ex.clientIp;
  }
}
