// The rows an operator loads into the contract's tables (design.md §8): which columns each
// table takes, how a CSV header or a JSON object names them, and each value checked against
// the contract's column rules and turned into the table's column order.
// The embedded SQLite file needs this path: its search indexes fold strings with a function
// only the service registers, so the sqlite3 shell cannot insert into the query tables.
import { queryDtoList } from '../../generated/query-catalog.js';
import { isInt32 } from '../int32.js';
import type { LoadProblem } from './load-problem.js';

type Kind = 'integer' | 'string' | 'boolean' | 'datetime';

export interface Column {
  readonly name: string;
  readonly kind: Kind;
  /** Must be given: NOT NULL without a default. */
  readonly required: boolean;
  /** What an absent value stores: the column's default (NULL makes an id the next one). */
  readonly absent: null | boolean | string;
}

const column = (name: string, kind: Kind, required = false, absent: Column['absent'] = kind === 'boolean' ? false : null): Column => ({ name, kind, required, absent });

/** The contract's tables and their columns: the query tables from the generated catalog. */
export const loadableTables: Readonly<Record<string, readonly Column[]>> = {
  ...Object.fromEntries(queryDtoList.map((dto) => [dto.table, dto.fields.map((f) => column(f.column, f.family, !f.nullable && f.column !== 'id' && f.family !== 'boolean'))])),
  impianto: [column('id', 'integer'), column('nome', 'string', false, '')],
  impianto_file: [
    column('id', 'integer'),
    column('nome', 'string', true),
    column('is_folder', 'boolean'),
    column('folder_id', 'integer'),
    column('impianto_id', 'integer'),
    column('data_creazione', 'datetime', true),
    column('data_aggiornamento', 'datetime', true),
    column('percorso_storage', 'string'),
  ],
};

/** One row ready to write: its values in the table's column order, and where it came from. */
export interface LoadRow {
  readonly line: number;
  readonly values: unknown[];
}

/** Column names match the table's in any letter case, with or without underscores (`TipoRecapitoId`). */
const squash = (name: string) => name.toLowerCase().replace(/_/g, '');

export const columnsByName = (columns: readonly Column[]) => new Map(columns.map((c, i) => [squash(c.name), i]));

/** A CSV header: for each of the table's columns, the field that holds it (-1: none). */
export function headerPlan(table: string, columns: readonly Column[], header: readonly string[]): { ok: true; fieldOf: number[] } | { ok: false; problems: string[] } {
  const byName = columnsByName(columns);
  const fieldOf = columns.map(() => -1);
  const problems: string[] = [];
  header.forEach((raw, field) => {
    const name = raw.trim();
    const at = byName.get(squash(name));
    if (at === undefined) problems.push(`${name === '' ? `field ${field + 1}: an empty column name` : `${name}: not a column of ${table}`}; the columns are ${columns.map((c) => c.name).join(', ')}`);
    else if (fieldOf[at] !== -1) problems.push(`${name}: a second column for ${columns[at]!.name}`);
    else fieldOf[at] = field;
  });
  columns.forEach((c, i) => { if (c.required && fieldOf[i] === -1) problems.push(`${c.name}: required, and the header has no such column`); });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, fieldOf };
}

/** One CSV record under its header. An empty cell is the empty string for a string column and absent for the others. */
export function csvRow(columns: readonly Column[], fieldOf: readonly number[], fields: readonly string[], line: number, problems: LoadProblem[]): LoadRow {
  const values = columns.map((c, i) => {
    const raw = fieldOf[i] === -1 ? undefined : fields[fieldOf[i]!];
    return raw === undefined || (raw === '' && c.kind !== 'string') ? absent(c, line, problems) : value(c, raw, line, problems);
  });
  return { line, values };
}

/** One JSON object; its keys name columns as a CSV header does, and null is absent. */
export function jsonRow(table: string, columns: readonly Column[], byName: ReadonlyMap<string, number>, object: Record<string, unknown>, line: number, problems: LoadProblem[]): LoadRow {
  const given: unknown[] = columns.map(() => undefined);
  for (const [key, raw] of Object.entries(object)) {
    const at = byName.get(squash(key));
    if (at === undefined) problems.push({ line, message: `${key}: not a column of ${table}` });
    else given[at] = raw;
  }
  const values = columns.map((c, i) => (given[i] === undefined || given[i] === null ? absent(c, line, problems) : value(c, given[i], line, problems)));
  return { line, values };
}

function absent(c: Column, line: number, problems: LoadProblem[]): unknown {
  if (c.required) problems.push({ line, message: `${c.name}: required` });
  return c.absent;
}

function value(c: Column, raw: unknown, line: number, problems: LoadProblem[]): unknown {
  const v = convert(c.kind, raw);
  if (v === undefined) problems.push({ line, message: `${c.name}: ${JSON.stringify(raw).slice(0, 80)} is not ${article(c.kind)}` });
  return v;
}

const article = (kind: Kind) => ({ integer: 'an int32', string: 'a string', boolean: 'true or false', datetime: 'an ISO 8601 date-time' })[kind];

const integerText = /^[+-]?\d{1,10}$/;
const dateTimeText = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?$/;

function convert(kind: Kind, raw: unknown): unknown {
  switch (kind) {
    case 'integer': {
      const n = typeof raw === 'string' && integerText.test(raw.trim()) ? Number(raw) : raw;
      return isInt32(n) ? n : undefined;
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return raw;
      const t = String(raw).trim().toLowerCase();
      return t === 'true' || t === '1' ? true : t === 'false' || t === '0' ? false : undefined;
    }
    case 'datetime': {
      const t = typeof raw === 'string' ? raw.trim() : '';
      if (!dateTimeText.test(t)) return undefined;
      const d = new Date(/[Z+-]\d{0,2}:?\d{0,2}$/.test(t.slice(10)) ? t : `${t}Z`);
      return Number.isNaN(d.getTime()) ? undefined : d;
    }
    default:
      return typeof raw === 'string' ? raw : typeof raw === 'number' ? String(raw) : undefined;
  }
}
