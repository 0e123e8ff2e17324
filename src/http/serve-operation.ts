// The middleware of an operation's route, in the order data flows: the operation named
// (for metrics and the log), negotiation, access, the body, the request DTO (the last two
// ServiceStack's leniencies, servicestack-leniency.ts), then openapi-backend's validators
// for the contract's rules (validate-request.ts), the handler, and the answer. Each step
// leaves what it learned on res.locals (request-locals.ts) for the next; a step that
// throws goes to the app's error answer.
import type { Request, RequestHandler, Response } from 'express';
import type { CanonicalOperationId } from '../../generated/operations.js';
import { authorize, type Authenticator } from './access.js';
import type { Contract, OperationContract } from './contract.js';
import { HandlerRequest } from './handler-request.js';
import type { Negotiated } from './negotiate.js';
import { callHandler, type Conditional, type HandlerMap } from './operation.js';
import { parseBody } from './parse-body.js';
import { readBody } from './read-body.js';
import { localsOf } from './request-locals.js';
import { sendResult } from './respond.js';
import { sendStream } from './respond-stream.js';
import { serveLive, type LiveModule } from './live-stream.js';
import { negotiation, requestDto } from './servicestack-leniency.js';
import { requestValidators, type DtoValidator } from './validate-request.js';

const bodyLimit = 1024 * 1024;

export interface OperationModules {
  readonly handlers: HandlerMap;
  readonly authenticator: Authenticator;
  readonly live?: LiveModule | undefined;
}

/** The middleware that serve `op`, for its route. */
export type OperationStack = (op: OperationContract) => RequestHandler[];

export function operationStack(contract: Contract, modules: OperationModules): OperationStack {
  const validators = requestValidators(contract.api, contract);
  return (op) => [named(op), negotiation(op, modules.live), access(op, modules.authenticator), body(op), requestDto(op), answer(op, validators.get(op.operationId)!, modules)];
}

function named(op: OperationContract): RequestHandler {
  return (_req, res, next) => {
    localsOf(res).operationId = op.canonicalId;
    next();
  };
}

/** A bearer token is verified before anything else is read (access.ts). */
function access(op: OperationContract, authenticator: Authenticator): RequestHandler {
  return (req, res, next) => {
    localsOf(res).principal = authorize(op.access, req.headers.authorization, authenticator);
    next();
  };
}

/** Only an operation that takes a body reads one, after access (design.md §2). */
function body(op: OperationContract): RequestHandler {
  const reads = op.acceptsBody;
  return async (req, res, next) => {
    if (!reads || req.method === 'GET' || req.method === 'HEAD') return next();
    const raw = await readBody(req, bodyLimit);
    if (!raw.ok) throw raw.error;
    localsOf(res).body = parseBody(req.headers['content-type'], raw.value);
    next();
  };
}

/** If-None-Match counts on GET and HEAD only (design.md §7); the tag covers the negotiated representation. */
function conditionalOf(req: Request, negotiated: Negotiated): Conditional {
  const { method } = req;
  const representation = negotiated.callback === undefined ? negotiated.format : `jsonp:${negotiated.callback}`;
  return { ifNoneMatch: method === 'GET' || method === 'HEAD' ? req.headers['if-none-match'] : undefined, representation };
}

function answer(op: OperationContract, validate: DtoValidator, modules: OperationModules): RequestHandler {
  const id = op.canonicalId as CanonicalOperationId;
  return async (req: Request, res: Response) => {
    const locals = localsOf(res);
    const dto = locals.dto!;
    const negotiated = locals.negotiated!;
    const principal = locals.principal ?? null;
    // The contract's field errors go to the handler, which answers them (operation.ts, callHandler).
    const fieldErrors = validate(dto);
    // createApp's checkWiring has matched every canonical id of the contract to a handler of the map.
    const requestOf = (format: HandlerRequest['format'], conditional: Conditional) =>
      new HandlerRequest(op.canonicalId, dto, fieldErrors, principal, format, req, res, modules.authenticator, conditional);
    if (locals.live) {
      const read = (conditional: Conditional) => callHandler(modules.handlers, id, requestOf('json', conditional));
      return serveLive(req, res, modules.live!, { operationId: op.canonicalId, dto, principal }, read);
    }
    const result = await callHandler(modules.handlers, id, requestOf(negotiated.format, conditionalOf(req, negotiated)));
    if (result.stream !== undefined) await sendStream(req, res, result.stream);
    else sendResult(res, op.dtoName, negotiated, result);
  };
}
