// Liveness and readiness (design.md §9): /health says the process is up; /ready says
// the database answers, so a load balancer stops routing to a node that lost it.
import type { Deps } from '../deps.js';
import { ApiError } from '../errors/api-error.js';
import type { HandlerMap, Response } from '../http/operation.js';

export function createHealthHandlers(deps: Pick<Deps, 'db'>): Pick<HandlerMap, 'Health' | 'Ready'> {
  return {
    Health: async (): Promise<Response<'Health'>> => ({ body: { status: 'ok' } }),
    Ready: async (): Promise<Response<'Ready'>> => {
      try {
        await deps.db.knex.raw('SELECT 1');
      } catch {
        throw ApiError.of('ServiceUnavailable', 'The database is not reachable', { 'Retry-After': '1' });
      }
      return { body: { status: 'ok' } };
    },
  };
}
