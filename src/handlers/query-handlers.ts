// The AutoQuery operations: one line per query DTO of the catalog; GET and POST share a
// handler. The engine does the work; this only turns its Result into a response (or
// throws the ApiError, which the edge renders: the one throw of the query path).
import type { Knex } from 'knex';
import { limits, operators, queryDtos } from '../../generated/query-catalog.js';
import type { Config } from '../config.js';
import type { CsvTable, OperationHandler } from '../http/operation.js';
import type { QueryDtoSpec } from '../query/catalog-types.js';
import { engineContext, type EngineContext } from '../query/engine-context.js';
import { runQuery } from '../query/run-query.js';

/** One DTO's handler, for any catalog entry. */
export function queryHandler(db: Knex, ctx: EngineContext, dto: QueryDtoSpec): OperationHandler {
  return async (request) => {
    const result = await runQuery(db, dto, request.dto, ctx);
    if (!result.ok) throw result.error;
    const { plan, response } = result.value;
    const csv: CsvTable = {
      columns: plan.projection.map((f) => ({ name: f.name, family: f.family })),
      properties: plan.projection.map((f) => f.property),
      rows: response.results,
    };
    return { body: response, csv };
  };
}

export function createQueryHandlers(deps: { db: Knex; config: Config }): Record<string, OperationHandler> {
  const ctx = engineContext(deps.config, operators, limits);
  const both = (dto: QueryDtoSpec) => {
    const handler = queryHandler(deps.db, ctx, dto);
    return { [dto.operation]: handler, [`${dto.operation}Get`]: handler };
  };
  return {
    ...both(queryDtos.CaratteristicaGruppoQuery),
    ...both(queryDtos.SoggettoRecapitoQuery),
  };
}
