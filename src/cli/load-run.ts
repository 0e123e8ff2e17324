// One run of `npm run load`: records streamed from the file, each checked against the
// contract's column rules, written in batches by the engine's bulk path inside one
// transaction, committed only when no row had a problem. While the database writes one
// batch the next is read and checked, so the two share the time. After the first problem
// nothing more is written, but the file is read on (up to the cap) so that one run reports
// every problem an operator has to fix.
import type { Database } from '../db/database.js';
import type { LoadProblem } from './load-problem.js';
import type { LoadProgress } from './load-progress.js';
import { recordSource, type SourceRecord } from './load-records.js';
import { columnsByName, csvRow, headerPlan, jsonRow, loadableTables, type Column, type LoadRow } from './load-rows.js';
import { mysqlWriter, type MysqlVia } from './load-writer-mysql.js';
import { sqliteWriter } from './load-writer-sqlite.js';
import { rowBytes, type BulkWriter } from './load-writer.js';

export interface LoadOptions {
  readonly table: string;
  readonly file: string;
  readonly format: 'csv' | 'jsonl';
  readonly maxErrors: number;
  readonly maxLineBytes: number;
  readonly via: MysqlVia;
  readonly progress: LoadProgress;
  /** Prints one problem; called at most maxErrors times. */
  readonly report: (problem: LoadProblem) => void;
}

export type LoadOutcome =
  | { readonly ok: true; readonly rows: number; readonly deferredIndexes: number }
  | { readonly ok: false; readonly reported: number; readonly capped?: { readonly line: number; readonly unreported: number } };

export async function loadFile(db: Database, options: LoadOptions): Promise<LoadOutcome> {
  const columns = loadableTables[options.table]!;
  const source = recordSource(options.file, options.format, { maxLineBytes: options.maxLineBytes });
  const writer: BulkWriter = db.dialect === 'mysql'
    ? await mysqlWriter(db, { table: options.table, columns }, options.via)
    : await sqliteWriter(db, { table: options.table, columns });
  const problems = problemCounter(options);
  const toRow = rowReader(options.table, columns);
  const batches = batchWriter(writer, problems, (rows) => options.progress.tick(rows, source.bytesRead()));
  try {
    for await (const record of source.records) {
      const found: LoadProblem[] = [];
      const row = toRow.read(record, found);
      if (row && found.length === 0 && problems.reported() === 0) await batches.add(row);
      problems.report(found);
      if (problems.capped() || record.kind === 'stop' || (record.kind === 'fields' && !toRow.hasHeader() && found.length > 0)) break;
    }
    const rows = await batches.finish();
    if (problems.reported() === 0 && !problems.capped()) {
      const refused = await writer.commit(batches.lastLine());
      if (!refused) return { ok: true, rows, deferredIndexes: writer.deferredIndexes };
      problems.report([refused]);
    }
    const capped = problems.capped();
    return { ok: false, reported: problems.reported(), ...(capped ? { capped } : {}) };
  } finally {
    source.close();
    await batches.abandon();
    await writer.rollback();
  }
}

/** Prints problems up to maxErrors, then only counts them and remembers where the cap was hit. */
function problemCounter(options: Pick<LoadOptions, 'maxErrors' | 'report'>) {
  let reported = 0;
  let capped: { line: number; unreported: number } | undefined;
  return {
    reported: () => reported,
    capped: () => capped,
    report(problems: readonly LoadProblem[]) {
      for (const p of problems) {
        if (reported < options.maxErrors) { options.report(p); reported++; } else if (capped) capped.unreported++; else capped = { line: p.line, unreported: 1 };
      }
    },
  };
}

/**
 * Gathers rows into the writer's batches. While the database writes one batch the next is
 * read and checked; a batch is written only while no problem has been reported.
 */
function batchWriter(writer: BulkWriter, problems: ReturnType<typeof problemCounter>, tick: (rows: number) => void) {
  let batch: LoadRow[] = [];
  let bytes = 0;
  let rows = 0;
  let lastLine = 0;
  let writing: Promise<LoadProblem | undefined> | undefined;
  const settle = async () => {
    const refused = await writing;
    writing = undefined;
    if (refused) problems.report([refused]);
  };
  const flush = async () => {
    await settle();
    if (problems.reported() === 0 && batch.length > 0) writing = writer.write(batch);
    rows += batch.length;
    batch = [];
    bytes = 0;
    tick(rows);
  };
  return {
    lastLine: () => lastLine,
    async add(row: LoadRow) {
      batch.push(row);
      lastLine = row.line;
      bytes += rowBytes(row.values);
      if (batch.length >= writer.batchRows || bytes >= writer.batchBytes) await flush();
    },
    /** Writes the last batch and waits for it; resolves the rows read. */
    async finish() {
      await flush();
      await settle();
      return rows;
    },
    abandon: async () => void (await writing?.catch(() => undefined)),
  };
}

/** Turns each record into a row of the table, or into problems; a CSV file's first record is its header. */
function rowReader(table: string, columns: readonly Column[]) {
  const byName = columnsByName(columns);
  let fieldOf: number[] | undefined;
  let headerWidth = 0;
  return {
    hasHeader: () => fieldOf !== undefined,
    read(record: SourceRecord, problems: LoadProblem[]): LoadRow | undefined {
      switch (record.kind) {
        case 'stop':
        case 'invalid':
          problems.push(record.problem);
          return undefined;
        case 'object':
          if (record.value === null || typeof record.value !== 'object' || Array.isArray(record.value)) {
            problems.push({ line: record.line, message: 'not a JSON object' });
            return undefined;
          }
          return jsonRow(table, columns, byName, record.value as Record<string, unknown>, record.line, problems);
        case 'fields': {
          if (fieldOf === undefined) {
            const plan = headerPlan(table, columns, record.fields);
            headerWidth = record.fields.length;
            if (plan.ok) fieldOf = plan.fieldOf;
            else problems.push(...plan.problems.map((message) => ({ line: record.line, message: `header: ${message}` })));
            return undefined;
          }
          if (record.fields.length !== headerWidth) {
            problems.push({ line: record.line, message: `${record.fields.length} fields, the header has ${headerWidth}${record.unterminated ? '; the file ends here without a line break (truncated?)' : ''}` });
            return undefined;
          }
          return csvRow(columns, fieldOf, record.fields, record.line, problems);
        }
      }
    },
  };
}
