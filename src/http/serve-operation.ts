// Serves one operation of the contract: negotiation, access, the body, the request DTO
// (request-dto.ts, ServiceStack's leniencies), openapi-backend's validators for the
// contract's rules (validate-request.ts), the handler, and the answer.
import type { CanonicalOperationId } from '../../generated/operations.js';
import { authorize, type Authenticator } from './access.js';
import type { Contract, OperationContract } from './contract.js';
import type { Exchange } from './exchange.js';
import { HandlerRequest } from './handler-request.js';
import { negotiate, type Negotiated } from './negotiate.js';
import { negotiateExport } from './negotiate-export.js';
import { callHandler, type Conditional, type HandlerMap } from './operation.js';
import { parseBody } from './parse-body.js';
import { readBody } from './read-body.js';
import { buildDto, type Body } from './request-dto.js';
import { sendResult } from './respond.js';
import { sendStream } from './respond-stream.js';
import { serveLive, streamAuthorization, wantsEvents, type LiveModule } from './live-stream.js';
import { requestValidators } from './validate-request.js';

const bodyLimit = 1024 * 1024;

/** If-None-Match counts on GET and HEAD only (design.md §7); the tag covers the negotiated representation. */
function conditionalOf(ex: Exchange, negotiated: Negotiated): Conditional {
  const method = ex.req.method;
  const representation = negotiated.callback === undefined ? negotiated.format : `jsonp:${negotiated.callback}`;
  return { ifNoneMatch: method === 'GET' || method === 'HEAD' ? ex.header('if-none-match') : undefined, representation };
}

export type ServeOperation = (op: OperationContract, params: Readonly<Record<string, string>>, ex: Exchange) => Promise<void>;

export function operationServer(contract: Contract, modules: { readonly handlers: HandlerMap; readonly authenticator: Authenticator; readonly live?: LiveModule | undefined }): ServeOperation {
  const validators = requestValidators(contract.api, contract);
  const { live } = modules;
  return async (op, params, ex) => {
    ex.operationId = op.canonicalId;
    // The live form of a tagged GET (live-stream.ts): JSON events, whatever a suffix or format= would pick.
    // Accept first: almost no request asks for events, and it is the one test that reads no query string.
    const events = live !== undefined && wantsEvents(ex.header('accept')) && ex.req.method === 'GET' && op.suffix === undefined &&
      live.tablesOf(op.canonicalId) !== undefined && ex.queryValue('format') === undefined && ex.queryValue('callback') === undefined;
    const negotiated: Negotiated = events ? { format: 'json', callback: undefined } : op.export
      ? negotiateExport({ suffix: op.suffix, formatParam: ex.queryValue('format'), accept: ex.header('accept'), callback: ex.queryValue('callback') })
      : negotiate({
          suffix: op.suffix,
          formatParam: ex.queryValue('format'),
          accept: ex.header('accept'),
          callback: ex.queryValue('callback'),
          csvAllowed: op.csv,
          cacheBuster: ex.queryValue('_'),
        });
    ex.callback = negotiated.callback;
    const authorization = events ? streamAuthorization(ex.header('authorization'), ex.header('cookie')) : ex.header('authorization');
    const principal = authorize(op.access, authorization, modules.authenticator);
    let body: Body = { kind: 'none' };
    if (op.acceptsBody && ex.req.method !== 'GET' && ex.req.method !== 'HEAD') {
      const raw = await readBody(ex.req, bodyLimit);
      if (!raw.ok) throw raw.error;
      body = parseBody(ex.header('content-type'), raw.value);
    }
    const built = buildDto(op, params, ex.query, body);
    if (!built.ok) throw built.error;
    // The contract's field errors go to the handler, which answers them (operation.ts, callHandler).
    const fieldErrors = validators.get(op.operationId)!(built.value);
    // createApp's checkWiring has matched every canonical id of the contract to a handler of the map.
    if (events) {
      const read = (conditional: Conditional) =>
        callHandler(modules.handlers, op.canonicalId as CanonicalOperationId, new HandlerRequest(op.canonicalId, built.value, fieldErrors, principal, 'json', ex, modules.authenticator, conditional));
      return serveLive(ex, live!, { operationId: op.canonicalId, dto: built.value, principal, authorization }, read);
    }
    const handlerRequest = new HandlerRequest(op.canonicalId, built.value, fieldErrors, principal, negotiated.format, ex, modules.authenticator, conditionalOf(ex, negotiated));
    const result = await callHandler(modules.handlers, op.canonicalId as CanonicalOperationId, handlerRequest);
    if (result.stream !== undefined) await sendStream(ex, result.stream);
    else sendResult(ex.res, op.dtoName, negotiated, result);
  };
}
