// The records of a file to load, read as a stream: CSV through csv-parse (RFC 4180 quoting,
// CRLF or LF) or JSON lines one by one, each with the line it starts on. Memory holds a
// read-ahead of the file, never the file. A problem that ends the reading (not UTF-8, a
// line over the bound, broken CSV quoting) comes out as the last record.
import fs from 'node:fs';
import { pipeline } from 'node:stream';
import { parse } from 'csv-parse';
import { LineGuard } from './load-lines.js';
import { LoadStop, type LoadProblem } from './load-problem.js';

export type SourceRecord =
  | { readonly kind: 'fields'; readonly line: number; readonly fields: string[]; readonly unterminated: boolean }
  | { readonly kind: 'object'; readonly line: number; readonly value: unknown; readonly unterminated: boolean }
  | { readonly kind: 'invalid'; readonly problem: LoadProblem }
  | { readonly kind: 'stop'; readonly problem: LoadProblem };

export interface RecordSource {
  readonly records: AsyncIterable<SourceRecord>;
  /** Bytes of the file read so far: the progress the bar shows. */
  bytesRead(): number;
  /** Stops reading and closes the file. */
  close(): void;
}

export interface SourceOptions {
  readonly maxLineBytes: number;
}

const readAhead = 256 * 1024;

export function recordSource(file: string, format: 'csv' | 'jsonl', options: SourceOptions): RecordSource {
  const input = fs.createReadStream(file, { highWaterMark: readAhead });
  const guard = new LineGuard(options.maxLineBytes);
  const records = format === 'csv' ? csvRecords(input, guard, options) : jsonRecords(input, guard);
  return { records, bytesRead: () => input.bytesRead, close: () => input.destroy() };
}

/** A stage's LoadStop as it is; a csv-parse error on the line csv-parse counted, since records it had parsed ahead are dropped with the stream. */
const stopOf = (err: unknown, line: number): SourceRecord => ({
  kind: 'stop',
  problem: err instanceof LoadStop ? err.problem : { line: Number((err as { lines?: unknown }).lines) || line, message: csvMessage(err) },
});

async function* csvRecords(input: fs.ReadStream, guard: LineGuard, options: SourceOptions): AsyncGenerator<SourceRecord> {
  // Column counts, empty lines and the header are checked here, with line numbers, not by the parser.
  const parser = parse({ relax_column_count: true, skip_empty_lines: false, max_record_size: options.maxLineBytes });
  pipeline(input, guard, parser, () => undefined);
  let line = 1;
  let pending: { line: number; fields: string[] } | undefined;
  try {
    for await (const fields of parser as AsyncIterable<string[]>) {
      const at = line;
      line += 1;
      for (const f of fields) if (f.includes('\n')) line += f.split('\n').length - 1;
      if (fields.length === 1 && fields[0] === '') continue;
      if (pending) yield { kind: 'fields', ...pending, unterminated: false };
      pending = { line: at, fields };
    }
  } catch (err) {
    if (pending) yield { kind: 'fields', ...pending, unterminated: false };
    yield stopOf(err, line);
    return;
  }
  if (pending) yield { kind: 'fields', ...pending, unterminated: !guard.endsWithNewline };
}

/** csv-parse's finding in the operator's words; its own text names a line we count better. */
function csvMessage(err: unknown): string {
  const code = (err as { code?: string }).code;
  switch (code) {
    case 'CSV_QUOTE_NOT_CLOSED': return 'the file ends inside a quoted field (truncated?)';
    case 'CSV_MAX_RECORD_SIZE': return 'a row that runs on past the bound on one row up to this line (an unclosed quote?)';
    case 'INVALID_OPENING_QUOTE': return 'a quote inside an unquoted field; RFC 4180 quotes the whole field and doubles inner quotes';
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE': return 'text after a closing quote; RFC 4180 doubles quotes inside a quoted field';
    default: return `not valid CSV (${err instanceof Error ? err.message.replace(/ at line \d+.*$/s, '') : String(err)})`;
  }
}

async function* jsonRecords(input: fs.ReadStream, guard: LineGuard): AsyncGenerator<SourceRecord> {
  pipeline(input, guard, () => undefined);
  let line = 0;
  try {
    for await (const piece of guard as AsyncIterable<Buffer>) {
      for (let start = 0; start < piece.length;) {
        const end = piece.indexOf(0x0a, start);
        const stop = end === -1 ? piece.length : end;
        line++;
        const text = piece.toString('utf8', start, stop > start && piece[stop - 1] === 0x0d ? stop - 1 : stop);
        start = stop + 1;
        if (text.trim() === '') continue;
        yield parseLine(text, line, end === -1);
      }
    }
  } catch (err) {
    yield stopOf(err, line + 1);
  }
}

function parseLine(text: string, line: number, unterminated: boolean): SourceRecord {
  try {
    return { kind: 'object', line, value: JSON.parse(text) as unknown, unterminated };
  } catch {
    return { kind: 'invalid', problem: { line, message: unterminated ? 'not valid JSON, and the file ends here without a line break (truncated?)' : 'not valid JSON' } };
  }
}
