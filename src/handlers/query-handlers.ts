// The AutoQuery operations: one handler per query DTO of the generated catalog, shared by
// its POST and GET operations, so adding a DTO is spec + query-dtos.yaml + a migration.
// The engine does the work; this only turns its Result into a response (or throws the
// ApiError, which the edge renders: the one throw of the query path).
import { limits, operators, queryDtoList, type QueryOperation } from '../../generated/query-catalog.js';
import type { Config } from '../config.js';
import type { Reads } from '../db/replicas.js';
import type { CsvTable, HandlerMap, Request, Response } from '../http/operation.js';
import type { QueryDtoSpec } from '../query/catalog-types.js';
import { engineContext, type EngineContext } from '../query/engine-context.js';
import { runQuery } from '../query/run-query.js';

type QueryOperationId = QueryOperation | `${QueryOperation}Get`;

/** One DTO's handler, for any catalog entry: its request is any query DTO of the contract. */
export function queryHandler(reads: Reads, ctx: EngineContext, dto: QueryDtoSpec): (request: Request<QueryOperationId>) => Promise<Omit<Response<QueryOperationId>, 'body'> & { body: unknown }> {
  return async (request) => {
    // On a replica or the primary (design.md §12); a failure is thrown so that a replica
    // that went away is retried on the primary.
    const { plan, response } = await reads.run(async (db) => {
      const result = await runQuery(db, dto, request.dto, ctx);
      if (!result.ok) throw result.error;
      return result.value;
    });
    // RFC 8288: a GET's next page as a link, which a CSV answer has no other room for.
    const link = response.next === undefined ? undefined : request.nextPageUrl(response.next);
    const headers = link === undefined ? undefined : { Link: `<${link}>; rel="next"` };
    if (request.format !== 'csv') return { body: response, nullFree: true, headers };
    const csv: CsvTable = {
      columns: plan.projection.map((f) => ({ name: f.name, family: f.family })),
      properties: plan.projection.map((f) => f.property),
      rows: response.results,
    };
    return { body: response, csv, nullFree: true, headers };
  };
}

/** The query operations: each DTO's POST, and its GET (`<Operation>Get`). */
export type QueryHandlers = Pick<HandlerMap, QueryOperationId>;

export function createQueryHandlers(deps: { reads: Reads; config: Config }): QueryHandlers {
  const ctx = engineContext(deps.config, operators, limits);
  const handlers = queryDtoList.flatMap((dto) => {
    const handler = queryHandler(deps.reads, ctx, dto);
    return [[dto.operation, handler], [`${dto.operation}Get`, handler]] as const;
  });
  // The one cast of the handler layer: the engine answers with rows shaped by the same
  // generated catalog the record and response schemas are generated from (check-generated
  // keeps them in step), which tsc cannot see through the catalog's data.
  return Object.fromEntries(handlers) as unknown as QueryHandlers;
}
