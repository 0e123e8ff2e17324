// Content negotiation (design.md §2): which format answers a request, and whether it is
// wrapped in a JSONP callback. Precedence: path suffix (the route's x-format), then
// ?format=, then Accept.
import { ApiError } from '../errors/api-error.js';
import { memoByText } from '../text-memo.js';

export type Format = 'json' | 'csv' | 'jsonl';

export interface Negotiated {
  readonly format: Format;
  /** Set when the JSON answer is wrapped as JSONP. */
  readonly callback: string | undefined;
}

const callbackPattern = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;

export function validateCallback(callback: string | undefined): string | undefined {
  if (callback === undefined) return undefined;
  if (callback.length > 128 || !callbackPattern.test(callback)) {
    throw ApiError.field('InvalidValue', 'callback', 'callback must be a JavaScript identifier path of at most 128 characters');
  }
  return callback;
}

/** jQuery's JSONP cache-buster `_` is ignored, but bounded like every other parameter. */
const cacheBusterMaxLength = 64;

const notAcceptable = (what: string) => ApiError.of('NotAcceptable', `${what} is not a format this operation serves`);

const jsonOnly: readonly Format[] = ['json'];
const jsonOrCsv: readonly Format[] = ['json', 'csv'];

export function negotiate(input: {
  suffix: Format | undefined;
  formatParam: string | undefined;
  accept: string | undefined;
  callback: string | undefined;
  csvAllowed: boolean;
  cacheBuster?: string | undefined;
}): Negotiated {
  const callback = validateCallback(input.callback);
  if (input.cacheBuster !== undefined && [...input.cacheBuster].length > cacheBusterMaxLength) {
    throw ApiError.field('Length', '_', `_ must be at most ${cacheBusterMaxLength} characters`);
  }
  const served = input.csvAllowed ? jsonOrCsv : jsonOnly;
  let format: Format;
  if (input.suffix) {
    format = input.suffix;
  } else if (input.formatParam !== undefined) {
    const f = input.formatParam.toLowerCase();
    if (f !== 'json' && f !== 'csv') throw notAcceptable(`format=${input.formatParam}`);
    format = f;
  } else if (callback !== undefined) {
    // A <script> tag sends Accept: */* or something odd; JSONP is JSON whatever it says.
    format = 'json';
  } else {
    // No Accept header reads like an empty one: JSON.
    format = (input.csvAllowed ? acceptJsonOrCsv : acceptJson)(input.accept ?? '');
  }
  if (!served.includes(format)) throw notAcceptable(format.toUpperCase());
  return { format, callback: format === 'json' ? callback : undefined };
}

const mediaOf: Record<Format, string> = { json: 'application/json', csv: 'text/csv', jsonl: 'application/x-ndjson' };

// What each Accept text picks, remembered (src/text-memo.ts); a refusal is thrown, not kept.
const acceptJson = memoByText(256, (accept) => fromAccept(accept, jsonOnly));
const acceptJsonOrCsv = memoByText(256, (accept) => fromAccept(accept, jsonOrCsv));

/** Picks the served format with the highest q in Accept; ties go to the server's order (JSON first). */
export function fromAccept(accept: string | undefined, served: readonly Format[]): Format {
  if (accept === undefined || accept.trim() === '') return 'json';
  let best: { format: Format; q: number; specificity: number } | undefined;
  for (const range of accept.split(',')) {
    const [typePart, ...params] = range.trim().split(';');
    const type = (typePart ?? '').trim().toLowerCase();
    if (!type) continue;
    const qParam = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!(q > 0)) continue;
    for (const format of served) {
      const specificity = matches(type, format);
      if (specificity < 0) continue;
      if (!best || q > best.q || (q === best.q && specificity > best.specificity)) best = { format, q, specificity };
    }
  }
  if (!best) throw ApiError.of('NotAcceptable', `None of the types in Accept (${accept}) is served; use application/json`);
  return best.format;
}

/** -1: no match; otherwise how specific the range is (*\/* 0, type/* 1, exact or +json 2). */
function matches(range: string, format: Format): number {
  const media = mediaOf[format];
  if (range === '*/*') return 0;
  if (range === media) return 2;
  if (format === 'json' && /^application\/[\w.-]+\+json$/.test(range)) return 2;
  if (range.endsWith('/*') && media.startsWith(range.slice(0, -1))) return 1;
  return -1;
}
