import { expect } from 'chai';
import { ApiError } from '../../src/errors/api-error.js';
import { negotiate } from '../../src/http/negotiate.js';

type In = Parameters<typeof negotiate>[0];
const base: In = { suffix: undefined, formatParam: undefined, accept: undefined, callback: undefined, csvAllowed: true };

describe('content negotiation', () => {
  const cases: Array<[string, { given: Partial<In>; want: { format: string; callback?: string } | { status: number; field?: string } }]> = [
    ['no Accept is JSON', { given: {}, want: { format: 'json' } }],
    ['*/* is JSON', { given: { accept: '*/*' }, want: { format: 'json' } }],
    ['application/json', { given: { accept: 'application/json' }, want: { format: 'json' } }],
    ['a +json type is JSON', { given: { accept: 'application/problem+json' }, want: { format: 'json' } }],
    ['text/csv when served', { given: { accept: 'text/csv' }, want: { format: 'csv' } }],
    ['q-values pick the preferred type', { given: { accept: 'application/json;q=0.5, text/csv' }, want: { format: 'csv' } }],
    ['a browser Accept falls back to JSON', { given: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }, want: { format: 'json' } }],
    ['text/csv where not served is 406', { given: { accept: 'text/csv', csvAllowed: false }, want: { status: 406 } }],
    ['nothing served is 406', { given: { accept: 'application/xml' }, want: { status: 406 } }],
    ['q=0 excludes a type', { given: { accept: 'application/json;q=0' }, want: { status: 406 } }],
    ['format=json beats Accept', { given: { formatParam: 'json', accept: 'text/csv' }, want: { format: 'json' } }],
    ['format=CSV any case', { given: { formatParam: 'CSV' }, want: { format: 'csv' } }],
    ['format=xml is 406', { given: { formatParam: 'xml' }, want: { status: 406 } }],
    ['suffix beats format', { given: { suffix: 'csv', formatParam: 'json' }, want: { format: 'csv' } }],
    ['.csv suffix where not served is 406', { given: { suffix: 'csv', csvAllowed: false }, want: { status: 406 } }],
    ['callback gives JSONP whatever Accept says', { given: { callback: 'cb', accept: 'text/html' }, want: { format: 'json', callback: 'cb' } }],
    ['dotted callback', { given: { callback: 'jQuery.fn_1$' }, want: { format: 'json', callback: 'jQuery.fn_1$' } }],
    ['callback with parentheses is 400', { given: { callback: 'alert(1)' }, want: { status: 400, field: 'callback' } }],
    ['callback starting with a digit is 400', { given: { callback: '1cb' }, want: { status: 400, field: 'callback' } }],
    ['callback of 129 characters is 400', { given: { callback: 'a'.repeat(129) }, want: { status: 400, field: 'callback' } }],
    ['callback of 128 characters is fine', { given: { callback: 'a'.repeat(128) }, want: { format: 'json', callback: 'a'.repeat(128) } }],
    ['csv ignores the callback', { given: { callback: 'cb', formatParam: 'csv' }, want: { format: 'csv' } }],
  ];
  for (const [name, { given, want }] of cases) {
    it(name, () => {
      const run = () => negotiate({ ...base, ...given });
      if ('status' in want) {
        let caught: unknown;
        try { run(); } catch (e) { caught = e; }
        expect(caught).to.be.instanceOf(ApiError);
        expect((caught as ApiError).status).to.equal(want.status);
        if (want.field) expect((caught as ApiError).errors[0]?.fieldName).to.equal(want.field);
      } else {
        expect(run()).to.deep.equal({ format: want.format, callback: want.callback });
      }
    });
  }
});
