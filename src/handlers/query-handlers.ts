// The AutoQuery operations: one handler per query DTO of the generated catalog, shared by
// its POST and GET operations. The engine does the work; this turns its Result into a
// response (or throws the ApiError, which the edge renders: the one throw of the query path).
import { operators, queryDtos, type QueryOperation } from '../../generated/query-catalog.js';
import type { Config } from '../config.js';
import type { Reads } from '../db/reads/replicas.js';
import { taggedHeaders } from '../http/entity-tag.js';
import { reportingFieldErrors, type CsvTable, type HandlerMap, type NotModified, type OperationRequest, type OperationResponse, type ResponseBody } from '../http/operation.js';
import type { QueryDtoSpec } from '../query/catalog-types.js';
import { engineContext, type EngineContext } from '../query/engine-context.js';
import type { QueryResponse, RecordOf } from '../query/records.js';
import { planKey } from '../query/plan-key.js';
import { compile, runPlan } from '../query/run-query.js';
import { answerTag, representationVersion } from './answer-tags.js';
import { taggedRead } from './conditional-read.js';

type QueryRequest = Pick<OperationRequest, 'format' | 'nextPageUrl' | 'principal' | 'conditional'> & Partial<Pick<OperationRequest, 'fieldErrors'>> & { readonly dto: object };

type QueryAnswer<D extends QueryDtoSpec> = Omit<OperationResponse, 'body'> & { readonly body: QueryResponse<RecordOf<D>> };

/**
 * One DTO's handler, for any catalog entry: the engine's answer, with records of `dto`'s
 * fields, tagged (design.md §7, "Entity tags"). The planner answers the contract's field
 * errors with its own (an unknown OrderBy field, a cursor of another query), all at once.
 */
export function queryHandler<D extends QueryDtoSpec>(reads: Reads, ctx: EngineContext, dto: D) {
  const service = representationVersion([ctx.cursorKey, String(ctx.estimateExactUpTo)]);
  return reportingFieldErrors(async (request: QueryRequest): Promise<QueryAnswer<D> | NotModified> => {
    const planned = compile(dto, request.dto, ctx, request.fieldErrors);
    if (!planned.ok) throw planned.error;
    const plan = planned.value;
    const asked = planKey(plan);
    // On a replica or the primary (design.md §12), the versions and the rows on the same
    // database; a failure is thrown so that a replica that went away is retried on the primary.
    const outcome = await reads.run((database) =>
      taggedRead({
        database,
        request,
        tables: [dto.table],
        timeoutMs: ctx.queryTimeoutMs,
        tagOf: (versions) => answerTag(service, request, asked, versions, plan.estimatedTotal),
        read: async (versioned) => {
          const executed = await runPlan(database, dto, plan, ctx, versioned);
          if (!executed.ok) throw executed.error;
          return { value: executed.value.response, versions: executed.value.versions };
        },
        // Every query has an answer, so `*` holds as a matching tag does.
        alwaysExists: true,
      }),
    );
    if ('notModified' in outcome) return outcome;
    const { tag, value: response } = outcome;
    // RFC 8288: a GET's next page as a link, which a CSV answer has no other room for.
    const link = response.next === undefined ? undefined : request.nextPageUrl(response.next);
    const headers = { ...(tag === undefined ? {} : taggedHeaders(tag)), ...(link === undefined ? {} : { Link: `<${link}>; rel="next"` }) };
    if (request.format !== 'csv') return { body: response, nullFree: true, headers };
    const csv: CsvTable = {
      columns: plan.projection.map((f) => ({ name: f.name, family: f.family })),
      properties: plan.projection.map((f) => f.property),
      rows: response.results,
    };
    return { body: response, csv, nullFree: true, headers };
  });
}

type Dto<Op extends QueryOperation> = (typeof queryDtos)[Op];
type RecordType<Op extends QueryOperation> = ResponseBody<Op> extends { results: (infer R)[] } ? R : never;
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;

/**
 * Assignment to HandlerMap checks the engine's answer and record types against the
 * contract's; this adds what assignment lets pass: an optional property that one side has
 * and the other lacks (responseStatus belongs to error answers, written by the edge).
 */
const sameProperties: {
  readonly [Op in QueryOperation]: {
    readonly answer: SameKeys<QueryResponse, Omit<ResponseBody<Op>, 'responseStatus'>>;
    readonly record: SameKeys<RecordOf<Dto<Op>>, RecordType<Op>>;
  };
} = {
  CaratteristicaGruppoQuery: { answer: true, record: true },
  SoggettoRecapitoQuery: { answer: true, record: true },
};
void sameProperties;

/** The query operations: each DTO's POST, and its GET (`<Operation>Get`). */
export type QueryHandlers = Pick<HandlerMap, QueryOperation | `${QueryOperation}Get`>;

export function createQueryHandlers(deps: { reads: Reads; config: Config }): QueryHandlers {
  const ctx = engineContext(deps.config, operators);
  const caratteristicaGruppo = queryHandler(deps.reads, ctx, queryDtos.CaratteristicaGruppoQuery);
  const soggettoRecapito = queryHandler(deps.reads, ctx, queryDtos.SoggettoRecapitoQuery);
  return {
    CaratteristicaGruppoQuery: caratteristicaGruppo,
    CaratteristicaGruppoQueryGet: caratteristicaGruppo,
    SoggettoRecapitoQuery: soggettoRecapito,
    SoggettoRecapitoQueryGet: soggettoRecapito,
  };
}
