// Small pure pieces of the engine: LIKE escaping, AVG formatting, meta values, driver
// error translation, and the test DTO builder against the generated catalog.
import { expect } from 'chai';
import { formatAverage, keysOf, metaFormatters, recordOf } from '../../src/query/format-values.js';
import { endsWithLoneEscape, escapeLike } from '../../src/query/like.js';
import { translateDbError } from '../../src/db/driver-errors.js';
import { prefixUpperBound } from '../../src/query/sql-dialect.js';
import { cg, defineQueryDto, queryDtos } from '../support/query-catalog.js';

const averages: Array<[string, { given: [bigint, bigint]; want: string }]> = [
  ['whole', { given: [30n, 3n], want: '10' }],
  ['half', { given: [25n, 2n], want: '12.5' }],
  ['rounded up at the 5th decimal', { given: [2n, 3n], want: '0.6667' }],
  ['rounded down', { given: [1n, 3n], want: '0.3333' }],
  ['half away from zero, positive', { given: [1n, 20000n], want: '0.0001' }],
  ['half away from zero, negative', { given: [-1n, 20000n], want: '-0.0001' }],
  ['tiny negative rounds to 0, no sign', { given: [-1n, 30000n], want: '0' }],
  ['negative', { given: [-2147483649n, 2n], want: '-1073741824.5' }],
  ['beyond 2^53', { given: [2n ** 62n + 1n, 1n], want: (2n ** 62n + 1n).toString() }],
];

const escapes: Array<[string, { given: string; want: string }]> = [
  ['plain', { given: 'abc', want: 'abc' }],
  ['% _ \\', { given: '50%_a\\b', want: '50\\%\\_a\\\\b' }],
];

const lone: Array<[string, { given: string; want: boolean }]> = [
  ['none', { given: 'ab', want: false }],
  ['one', { given: 'ab\\', want: true }],
  ['two', { given: 'ab\\\\', want: false }],
  ['three', { given: '\\\\\\', want: true }],
];

const bounds: Array<[string, { given: string; want: string | undefined }]> = [
  ['last letter + 1', { given: 'abc', want: 'abd' }],
  ['empty prefix has none', { given: '', want: undefined }],
  ['the last code point has none', { given: 'a\u{10FFFF}', want: undefined }],
  ['skips the surrogate range', { given: 'a\uD7FF', want: 'a\uE000' }],
  ['astral code points count as one', { given: 'x\u{1F600}', want: 'x\u{1F601}' }],
];

const driverErrors: Array<[string, { given: unknown; want: [string, number, string | undefined] }]> = [
  ['knex query timeout', { given: Object.assign(new Error('Defined query timeout'), { name: 'KnexTimeoutError', timeout: 5 }), want: ['QueryTimeout', 503, '1'] }],
  ['MariaDB max_statement_time', { given: Object.assign(new Error('x'), { errno: 1969 }), want: ['QueryTimeout', 503, '1'] }],
  ['pool acquire timeout', { given: Object.assign(new Error('Timeout acquiring a connection'), { name: 'KnexTimeoutError' }), want: ['ServiceUnavailable', 503, '1'] }],
  ['connection refused', { given: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), want: ['ServiceUnavailable', 503, '1'] }],
  ['anything else', { given: new Error('syntax error near SELECT'), want: ['InternalServerError', 500, undefined] }],
];

describe('query values', () => {
  for (const [name, { given, want }] of averages) it(`AVG ${name}`, () => expect(formatAverage(...given)).to.equal(want));
  for (const [name, { given, want }] of escapes) it(`escapeLike ${name}`, () => expect(escapeLike(given)).to.equal(want));
  for (const [name, { given, want }] of lone) it(`lone escape: ${name}`, () => expect(endsWithLoneEscape(given)).to.equal(want));
  for (const [name, { given, want }] of bounds) it(`prefix upper bound: ${name}`, () => expect(prefixUpperBound(given)).to.equal(want));
  for (const [name, { given, want }] of driverErrors) {
    it(`driver error: ${name}`, () => {
      const e = translateDbError(given);
      expect([e.code, e.status, e.headers['Retry-After']]).to.deep.equal(want);
      expect(e.message).not.to.match(/SELECT|timeout of/);
    });
  }

  // Cells in the statement's own column order, which need not be the DTO's; a column the statement lacks is left out.
  const columns = ['ordine_vista', 'is_disattiva', 'id', 'descrizione', 'tipo_caratteristica_sezione_id'];
  const cells = [0, 1, '3', null, 2];
  const want = { id: 3, tipoCaratteristicaSezioneId: 2, isDisattiva: true, ordineVista: 0 };

  it('records: camelCase, numbers, booleans, NULLs left out, from rows of cells (SQLite)', () => {
    const table = { columns, keys: columns.map((_, i) => i), rows: [cells] };
    expect(recordOf(cells, cg.fields, keysOf(table, cg.fields))).to.deep.equal(want);
  });

  it('records: the same from rows keyed by column (MySQL)', () => {
    const row = Object.fromEntries(columns.map((c, i) => [c, cells[i]]));
    const table = { columns, keys: columns, rows: [row] };
    expect(recordOf(row, cg.fields, keysOf(table, cg.fields))).to.deep.equal(want);
  });

  it('meta: DECIMAL strings from MySQL, booleans, missing values', () => {
    const ordine = cg.fields[5]!;
    const flag = cg.fields[3]!;
    expect(metaFormatters.sum(['-12'], ordine)).to.equal('-12');
    expect(metaFormatters.max([0], flag)).to.equal('false');
    expect(metaFormatters.min([null], ordine)).to.equal(undefined);
    expect(metaFormatters.avg(['7', '2'], ordine)).to.equal('3.5');
    expect(metaFormatters.avg([null, 0], ordine)).to.equal(undefined);
  });

  it('the test DTO builder derives the same filters as the generator', () => {
    for (const dto of Object.values(queryDtos)) {
      const rebuilt = defineQueryDto(dto.operation, dto.record, dto.table, dto.fields);
      expect(JSON.parse(JSON.stringify(rebuilt))).to.deep.equal(JSON.parse(JSON.stringify(dto)));
    }
  });
});
