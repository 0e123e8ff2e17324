// Content negotiation of the exports (design.md §7, Exports): JSON Lines or CSV, by the
// same precedence as every operation (design.md §2): path suffix (`.jsonl`, `.csv`), then
// `format=jsonl|csv`, then Accept (`application/x-ndjson`, `text/csv`). JSON Lines is the
// default, as JSON is elsewhere, and answers an Accept that asks for JSON: most HTTP
// clients send `Accept: application/json` whatever they fetch, and JSON Lines is JSON's
// streaming form. An Accept that admits neither JSON nor a format of ours is 406, as on
// every operation; so is `format=json`, a JSON document of every row, which no export is,
// and JSONP: a <script> tag could not stream.
import { ApiError } from '../errors/api-error.js';
import { memoByText } from '../text-memo.js';
import { fromAccept, type Negotiated } from './negotiate.js';

type ExportFormat = 'jsonl' | 'csv';
const served: readonly ExportFormat[] = ['jsonl', 'csv'];

const notAcceptable = (what: string) => ApiError.of('NotAcceptable', `${what} is not a format of an export; use jsonl (application/x-ndjson) or csv (text/csv)`);

const fromExportAccept = memoByText(256, (accept): ExportFormat => {
  try {
    return fromAccept(accept, served) as ExportFormat;
  } catch {
    // Throws in turn when JSON is not acceptable either (`application/json;q=0`, `text/html`).
    fromAccept(accept, ['json']);
    return 'jsonl';
  }
});

export function negotiateExport(input: { suffix: 'json' | 'csv' | 'jsonl' | undefined; formatParam: string | undefined; accept: string | undefined; callback: string | undefined }): Negotiated {
  if (input.callback !== undefined) throw ApiError.field('UnknownField', 'callback', 'An export is not answered as JSONP: a script cannot stream it');
  if (input.suffix !== undefined) {
    if (input.suffix === 'json') throw notAcceptable('.json');
    return { format: input.suffix, callback: undefined };
  }
  if (input.formatParam !== undefined) {
    const f = input.formatParam.toLowerCase();
    if (f !== 'jsonl' && f !== 'csv') throw notAcceptable(`format=${input.formatParam}`);
    return { format: f, callback: undefined };
  }
  const accept = input.accept?.trim() ?? '';
  return { format: accept === '' ? 'jsonl' : fromExportAccept(accept), callback: undefined };
}
