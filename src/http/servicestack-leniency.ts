// ServiceStack's leniencies (design.md §1, §2, §11) as express middleware, ahead of the
// handler as in openapi-backend's express model. Those that need no operation run before
// the operation router: the query string kept as ordered pairs, and the predefined routes
// matched in any letter case. Those that read the operation's contract run first on its
// route: negotiation (suffix, `format`, `callback`, Accept) and the request DTO (names in
// any letter case, repeated keys, comma lists, query and form text converted).
import type { RequestHandler } from 'express';
import type { Contract, OperationContract } from './contract.js';
import { wantsEvents, type LiveModule } from './live-stream.js';
import { negotiate, type Negotiated } from './negotiate.js';
import { negotiateExport } from './negotiate-export.js';
import { predefinedPrefix } from './operation-routes.js';
import { buildDto, type Body } from './request-dto.js';
import { localsOf, type QueryPairs } from './request-locals.js';
import { splitTarget } from './request-target.js';

const noPairs: QueryPairs = [];

/**
 * The query string as ordered pairs. express 5's query parser (node:querystring) makes an
 * object: keys sent in two letter cases (`IdIn=1&idin=2`) become two properties and lose
 * their order, which request-dto.ts needs to read them as one property.
 */
export const queryPairs: RequestHandler = (req, res, next) => {
  const { search } = splitTarget(req.url);
  localsOf(res).queryPairs = search === '' ? noPairs : [...new URLSearchParams(search)];
  next();
};

/** An edge parameter (format, callback, `_`): names are case-insensitive like everything else. */
export function queryValue(pairs: QueryPairs, name: string): string | undefined {
  return pairs.find(([k]) => k.toLowerCase() === name)?.[1];
}

/**
 * A predefined route (`/json/reply/{Name}`, `/api/{Name}`) in any letter case is routed as
 * the contract spells it: the router after this matches every path case-sensitively.
 * req.originalUrl keeps what the client sent.
 */
export function predefinedRouteCase(contract: Contract): RequestHandler {
  const declared = new Map<string, string>();
  for (const path of contract.paths.keys()) if (predefinedPrefix.test(path)) declared.set(path.toLowerCase(), path);
  return (req, _res, next) => {
    const { path } = req;
    if (predefinedPrefix.test(path)) {
      const canonical = declared.get(path.toLowerCase());
      if (canonical !== undefined && canonical !== path) {
        const q = req.url.indexOf('?');
        req.url = q < 0 ? canonical : canonical + req.url.slice(q);
      }
    }
    next();
  };
}

const eventStream: Negotiated = { format: 'json', callback: undefined };

/** The format and JSONP callback of `op`'s answer; the live form of a tagged GET (live-stream.ts) when Accept asks for events. */
export function negotiation(op: OperationContract, live: LiveModule | undefined): RequestHandler {
  return (req, res, next) => {
    const locals = localsOf(res);
    const format = queryValue(locals.queryPairs, 'format');
    const callback = queryValue(locals.queryPairs, 'callback');
    const accept = req.headers.accept;
    // The live form: JSON events, whatever a suffix or format= would pick.
    const events = live !== undefined && req.method === 'GET' && op.suffix === undefined && format === undefined &&
      callback === undefined && live.tablesOf(op.canonicalId) !== undefined && wantsEvents(accept);
    locals.live = events;
    locals.negotiated = events ? eventStream : op.export
      ? negotiateExport({ suffix: op.suffix, formatParam: format, accept, callback })
      : negotiate({ suffix: op.suffix, formatParam: format, accept, callback, csvAllowed: op.csv, cacheBuster: queryValue(locals.queryPairs, '_') });
    next();
  };
}

const noBody: Body = { kind: 'none' };

/** The request DTO of `op` from its path parameters, query string and body (request-dto.ts). */
export function requestDto(op: OperationContract): RequestHandler {
  return (req, res, next) => {
    const locals = localsOf(res);
    const built = buildDto(op, req.params as Readonly<Record<string, string>>, locals.queryPairs, locals.body ?? noBody);
    if (!built.ok) throw built.error;
    locals.dto = built.value;
    next();
  };
}
