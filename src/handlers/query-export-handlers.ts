// The exports of the two queries (design.md §7, Exports): every row a search matches, as a
// stream of JSON Lines or CSV. The plan is the query's (same filters, order, fields and
// access); then a slot (EXPORT_CONCURRENCY, else 429), one consistent view and its first
// page, all before the first byte, so any failure up to there is an ordinary error answer;
// then page after page as the client reads, each page's statement under QUERY_TIMEOUT_MS.
import { operators, queryDtos, type QueryOperation } from '../../generated/query-catalog.js';
import { tooManyRequests } from '../auth/auth-errors.js';
import { concurrencyLimitFields } from '../auth/rate-limit-fields.js';
import type { Config } from '../config.js';
import type { Reads } from '../db/reads/replicas.js';
import { openSnapshot, type Snapshot } from '../db/reads/select.js';
import { translateDbError } from '../db/driver-errors.js';
import { ApiError } from '../errors/api-error.js';
import { exportFormat, type ExportFormat } from '../http/export-formats.js';
import { reportingFieldErrors, type BodySink, type HandlerMap, type OperationRequest, type StreamedAnswer } from '../http/operation.js';
import type { QueryDtoSpec } from '../query/catalog-types.js';
import { engineContext, type EngineContext } from '../query/engine-context.js';
import { compileExport } from '../query/export-plan.js';
import { exportCursor, readExportPage, type ExportPage } from '../query/export-pages.js';
import type { QueryPlan } from '../query/plan-types.js';
import { exportSlots, type ExportSlots } from './export-slots.js';

type ExportRequest = Pick<OperationRequest, 'format' | 'announce'> & Partial<Pick<OperationRequest, 'fieldErrors'>> & { readonly dto: object };

interface ExportJob {
  readonly reads: Reads;
  readonly ctx: EngineContext;
  readonly plan: QueryPlan;
  readonly format: ExportFormat;
  readonly slots: ExportSlots;
  readonly announce: (headers: Readonly<Record<string, string>>) => void;
}

/** A 429 asks the client to try again in a second: an export in progress gives no sign of its end. */
const retryAfterSeconds = 1;

function exportHandler(reads: Reads, ctx: EngineContext, dto: QueryDtoSpec, slots: ExportSlots) {
  return reportingFieldErrors(async (request: ExportRequest): Promise<{ readonly stream: StreamedAnswer }> => {
    const planned = compileExport(dto, request.dto as Readonly<Record<string, unknown>>, ctx, request.fieldErrors ?? []);
    if (!planned.ok) throw planned.error;
    const plan = planned.value;
    const format = exportFormat(request.format === 'csv' ? 'csv' : 'jsonl', plan.projection, dto.operation);
    const job: ExportJob = { reads, ctx, plan, format, slots, announce: (h) => request.announce(h) };
    return { stream: { run: (sink) => runExport(sink, job) } };
  });
}

async function runExport(sink: BodySink, job: ExportJob): Promise<void> {
  const { format, slots } = job;
  // HEAD: the headers a GET would have, without taking a slot or reading a row.
  if (sink.head) {
    sink.start(format.contentType, format.headers);
    return sink.end(true);
  }
  const release = slots.take();
  job.announce(concurrencyLimitFields('export', slots.limit, slots.limit - slots.running, retryAfterSeconds));
  if (release === undefined) throw tooManyRequests(retryAfterSeconds);
  let snapshot: Snapshot | undefined;
  // The view goes (its connection back to the pool) and the slot with it however the export
  // ends, and before its last line, so a client that read it may start the next at once.
  const finish = async () => {
    await snapshot?.close().catch(() => undefined);
    release();
  };
  try {
    const opened = await job.reads.run(async (database) => {
      const view = await openSnapshot(database, job.ctx.queryTimeoutMs);
      try {
        return { database, view, first: await readExportPage(database, view.select, job.plan, job.plan.after, job.ctx) };
      } catch (err) {
        await view.close();
        throw err;
      }
    });
    snapshot = opened.view;
    sink.start(format.contentType, format.headers);
    await streamPages(sink, job, (after) => readExportPage(opened.database, opened.view.select, job.plan, after, job.ctx), opened.first, finish);
  } finally {
    await finish();
  }
}

async function send(sink: BodySink, chunk: string): Promise<void> {
  if (chunk === '') return;
  const pending = sink.write(chunk);
  if (pending !== undefined) await pending;
}

/** Writes every page, then the end; a failure after the first byte ends the body as the format says (export-formats.ts). */
async function streamPages(sink: BodySink, job: ExportJob, next: (after: ExportPage['after']) => Promise<ExportPage>, first: ExportPage, finish: () => Promise<void>): Promise<void> {
  const { format } = job;
  let rows = 0;
  let after = job.plan.after;
  try {
    await send(sink, format.opening);
    for (let page = first; ; page = await next(page.after)) {
      await send(sink, format.rows(page.records));
      rows += page.records.length;
      after = page.after;
      // Between pages, so a client gone stops the export before its next statement.
      if (!page.more || sink.signal.aborted) break;
    }
    if (sink.signal.aborted) throw new Error('The client closed the connection');
    await finish();
    await send(sink, format.complete(rows));
    sink.end(true);
  } catch (err) {
    if (sink.signal.aborted) throw err;
    const error = err instanceof ApiError ? err : translateDbError(err);
    const last = format.cut(rows, after === undefined ? undefined : exportCursor(job.plan, after, job.ctx), error);
    await finish();
    if (last !== undefined) {
      sink.write(last);
      sink.end(true);
    }
    throw err;
  }
}

type ExportOperation = `${QueryOperation}Export`;
export type QueryExportHandlers = Pick<HandlerMap, ExportOperation | `${ExportOperation}Get`>;

export function createQueryExportHandlers(deps: { reads: Reads; config: Config }): QueryExportHandlers {
  const ctx = engineContext(deps.config, operators);
  // One count for both exports: each holds a read connection, whichever table it reads.
  const slots = exportSlots(deps.config.exportConcurrency);
  const caratteristicaGruppo = exportHandler(deps.reads, ctx, queryDtos.CaratteristicaGruppoQuery, slots);
  const soggettoRecapito = exportHandler(deps.reads, ctx, queryDtos.SoggettoRecapitoQuery, slots);
  return {
    CaratteristicaGruppoQueryExport: caratteristicaGruppo,
    CaratteristicaGruppoQueryExportGet: caratteristicaGruppo,
    SoggettoRecapitoQueryExport: soggettoRecapito,
    SoggettoRecapitoQueryExportGet: soggettoRecapito,
  };
}
