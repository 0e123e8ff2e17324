// Rows an operator loads into the contract's tables (design.md §8), from CSV (a header row of
// column names) or JSON lines, checked whole before anything is written: every row's
// problems are reported with its line number, and a file with any problem loads nothing.
// The embedded SQLite file needs this path: its search indexes fold strings with a function
// only the service registers, so the sqlite3 shell cannot insert into the query tables.
import type { Knex } from 'knex';
import { queryDtoList } from '../../generated/query-catalog.js';
import { translateDbError } from '../db/driver-errors.js';
import { isInt32 } from '../int32.js';

type Kind = 'integer' | 'string' | 'boolean' | 'datetime';

interface Column {
  readonly name: string;
  readonly kind: Kind;
  /** Must be given: NOT NULL without a default. */
  readonly required: boolean;
}

/** The contract's tables and their columns: the query tables from the generated catalog. */
export const loadableTables: Readonly<Record<string, readonly Column[]>> = {
  ...Object.fromEntries(queryDtoList.map((dto) => [dto.table, dto.fields.map((f) => ({
    name: f.column,
    kind: f.family,
    required: !f.nullable && f.column !== 'id' && f.family !== 'boolean',
  }))])),
  impianto: [{ name: 'id', kind: 'integer', required: false }, { name: 'nome', kind: 'string', required: false }],
  impianto_file: [
    { name: 'id', kind: 'integer', required: false },
    { name: 'nome', kind: 'string', required: true },
    { name: 'is_folder', kind: 'boolean', required: false },
    { name: 'folder_id', kind: 'integer', required: false },
    { name: 'impianto_id', kind: 'integer', required: false },
    { name: 'data_creazione', kind: 'datetime', required: true },
    { name: 'data_aggiornamento', kind: 'datetime', required: true },
    { name: 'percorso_storage', kind: 'string', required: false },
  ],
};

export interface LoadProblem {
  readonly line: number;
  readonly message: string;
}

export interface LoadRow {
  readonly line: number;
  readonly row: Record<string, unknown>;
}

export type Parsed = { readonly ok: true; readonly rows: readonly LoadRow[] } | { readonly ok: false; readonly problems: readonly LoadProblem[] };

/** Column names match the table's in any letter case, with or without underscores (`TipoRecapitoId`). */
const squash = (name: string) => name.toLowerCase().replace(/_/g, '');

export function parseRows(table: string, format: 'csv' | 'jsonl', text: string): Parsed {
  const columns = loadableTables[table];
  if (!columns) return { ok: false, problems: [{ line: 0, message: `unknown table ${table}; one of ${Object.keys(loadableTables).join(', ')}` }] };
  const byName = new Map(columns.map((c) => [squash(c.name), c]));
  const records = format === 'csv' ? csvRecords(text) : jsonRecords(text);
  const problems: LoadProblem[] = [...records.problems];
  const rows: LoadRow[] = [];
  for (const { line, values } of records.rows) {
    const row: Record<string, unknown> = {};
    for (const [key, raw] of Object.entries(values)) {
      const column = byName.get(squash(key));
      if (!column) { problems.push({ line, message: `${key}: not a column of ${table}` }); continue; }
      if (raw === null || raw === undefined || (format === 'csv' && raw === '' && column.kind !== 'string')) continue;
      const value = convert(column.kind, raw);
      if (value === undefined) problems.push({ line, message: `${column.name}: ${JSON.stringify(raw)} is not ${article(column.kind)}` });
      else row[column.name] = value;
    }
    for (const c of columns) if (c.required && !(c.name in row)) problems.push({ line, message: `${c.name}: required` });
    rows.push({ line, row });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, rows };
}

const article = (kind: Kind) => ({ integer: 'an int32', string: 'a string', boolean: 'true or false', datetime: 'an ISO 8601 date-time' })[kind];

function convert(kind: Kind, raw: unknown): unknown {
  switch (kind) {
    case 'integer': {
      const n = typeof raw === 'string' && /^[+-]?\d+$/.test(raw.trim()) ? Number(raw) : raw;
      return isInt32(n) ? n : undefined;
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return raw;
      const t = String(raw).trim().toLowerCase();
      return t === 'true' || t === '1' ? true : t === 'false' || t === '0' ? false : undefined;
    }
    case 'datetime': {
      if (typeof raw !== 'string' || !/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?$/.test(raw.trim())) return undefined;
      const d = new Date(/[Z+-]\d{0,2}:?\d{0,2}$/.test(raw.trim().slice(10)) ? raw.trim() : `${raw.trim()}Z`);
      return Number.isNaN(d.getTime()) ? undefined : d;
    }
    default:
      return typeof raw === 'string' ? raw : typeof raw === 'number' ? String(raw) : undefined;
  }
}

interface Records {
  readonly rows: { readonly line: number; readonly values: Record<string, unknown> }[];
  readonly problems: LoadProblem[];
}

function jsonRecords(text: string): Records {
  const rows: Records['rows'] = [];
  const problems: LoadProblem[] = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    try {
      const value: unknown = JSON.parse(raw);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) problems.push({ line: i + 1, message: 'not a JSON object' });
      else rows.push({ line: i + 1, values: value as Record<string, unknown> });
    } catch {
      problems.push({ line: i + 1, message: 'not valid JSON' });
    }
  });
  return { rows, problems };
}

/** RFC 4180: quoted fields may hold commas, quotes ("") and line breaks; the first record names the columns. */
function csvRecords(text: string): Records {
  const records: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (c === '"') quoted = false; else { if (c === '\n') line++; field += c; }
    } else if (c === '"') quoted = true;
    else if (c === ',') { fields.push(field); field = ''; }
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      fields.push(field);
      if (fields.some((f) => f !== '') || fields.length > 1) records.push({ line: start, fields });
      fields = []; field = ''; line++; start = line;
    } else field += c;
  }
  if (field !== '' || fields.length > 0) { fields.push(field); records.push({ line: start, fields }); }
  const [header, ...body] = records;
  if (!header) return { rows: [], problems: [{ line: 1, message: 'no header row' }] };
  const problems: LoadProblem[] = [];
  const rows = body.flatMap(({ line: at, fields: f }) => {
    if (f.length !== header.fields.length) { problems.push({ line: at, message: `${f.length} fields, the header has ${header.fields.length}` }); return []; }
    return [{ line: at, values: Object.fromEntries(header.fields.map((h, i) => [h.trim(), f[i]])) }];
  });
  return { rows, problems };
}

/** Inserts every row in one transaction: all of them, or (on any database refusal) none. */
export async function insertRows(db: Knex, table: string, rows: readonly LoadRow[]): Promise<{ ok: true } | { ok: false; problem: LoadProblem }> {
  let at = 0;
  try {
    await db.transaction(async (trx) => {
      for (; at < rows.length; at++) await trx(table).insert(rows[at]!.row);
    });
    return { ok: true };
  } catch (err) {
    // The driver's words stay out of operator output only where they could carry data; the
    // code says which rule the row broke (duplicate id, missing parent...).
    const code = (err as { code?: string }).code ?? translateDbError(err).code;
    return { ok: false, problem: { line: rows[at]?.line ?? 0, message: `refused by the database (${code}); nothing was loaded` } };
  }
}
