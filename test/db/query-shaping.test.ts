// Ordering, paging, Fields, total and every aggregate kind against real databases; one
// expected response per case for both dialects.
import { expect } from 'chai';
import { runQuery } from '../../src/query/run-query.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';
import { cg, sr, testContext } from '../support/query-catalog.js';
import { idsOf, loadFixtures } from '../support/query-fixtures.js';

type Want = { ids: number[] } | { response: unknown };
/** Stands for the opaque `next` of an answer with a further page (test/db/query-cursor.test.ts follows them). */
const cursor = '(cursor)';
const cases: Array<[string, { dto?: typeof sr; given: Record<string, unknown>; want: Want; ctx?: Parameters<typeof testContext>[0] }]> = [
  ['no order: Id ascending', { given: {}, want: { ids: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14] } }],
  // NULL first; space < digits < letters; folded ties broken by Id; a prefix first.
  ['string ascending', { given: { orderBy: 'descrizione' }, want: { ids: [7, 8, 9, 14, 10, 1, 2, 3, 6, 4, 5, 12, 13, 11] } }],
  // Id closes the order in the direction of its last term: folded ties by Id descending.
  ['string descending: NULL last, ties by Id descending', { given: { orderBy: '-Descrizione' }, want: { ids: [11, 13, 12, 5, 4, 6, 3, 2, 1, 10, 14, 9, 8, 7] } }],
  ['OrderByDesc equals - prefix', { given: { orderByDesc: 'DESCRIZIONE' }, want: { ids: [11, 13, 12, 5, 4, 6, 3, 2, 1, 10, 14, 9, 8, 7] } }],
  ['a last descending term closes ties by Id descending', { given: { orderByDesc: 'IsDisattiva', orderBy: 'TipoCaratteristicaSezioneId' }, want: { ids: [2, 7, 1, 4, 3, 5, 6, 9, 10, 8, 13, 12, 11, 14] } }],
  ['a last ascending term closes ties by Id ascending', { given: { orderByDesc: 'IsDisattiva,-TipoCaratteristicaSezioneId' }, want: { ids: [2, 5, 9, 13, 1, 7, 3, 4, 6, 8, 10, 11, 12, 14] } }],
  ['int32 bounds and a second key', { given: { orderBy: 'OrdineVista', orderByDesc: 'IconaImmagineId' }, want: { ids: [3, 13, 4, 7, 8, 14, 10, 9, 11, 2, 1, 6, 5, 12] } }],
  ['a - in OrderByDesc flips to ascending', { given: { orderByDesc: '-TipoCaratteristicaSezioneId,Id' }, want: { ids: [7, 2, 1, 4, 3, 6, 5, 10, 9, 8, 13, 12, 11, 14] } }],
  ['booleans false first', { given: { orderBy: 'IsDisattiva', take: 6 }, want: { ids: [1, 3, 4, 6, 7, 8] } }],
  ['other DTO: two nullable keys', { dto: sr, given: { orderBy: 'CodiceEsterno,-Recapito' }, want: { ids: [2, 8, 3, 1, 4, 5, 6, 7] } }],
  ['skip and take', { given: { orderBy: 'Descrizione', skip: 3, take: 4 }, want: { ids: [14, 10, 1, 2] } }],
  ['skip past the end', { given: { skip: 100 }, want: { ids: [] } }],
  ['take clamped at MAX_TAKE', { given: { take: 50 }, ctx: { maxTake: 3 }, want: { ids: [1, 2, 3] } }],
  ['default take', { given: {}, ctx: { defaultTake: 2 }, want: { ids: [1, 2] } }],
  ['Fields select, order by an unselected field, NULLs omitted', {
    given: { fields: 'descrizione,IsDisattiva', orderBy: 'OrdineVista', take: 4 },
    want: { response: { offset: 0, results: [{ descrizione: 'CITTA ', isDisattiva: false }, { descrizione: 'rossi', isDisattiva: true }, { descrizione: 'perché', isDisattiva: false }, { isDisattiva: false }], next: cursor } },
  }],
  ['whole records: camelCase, booleans, int32', {
    given: { idIn: [4, 7], include: 'total' },
    want: { response: { offset: 0, total: 2, results: [
      { id: 4, descrizione: 'perché', tipoCaratteristicaSezioneId: 2, isDisattiva: false, iconaImmagineId: 2147483647, ordineVista: 0 },
      { id: 7, tipoCaratteristicaSezioneId: 1, isDisattiva: false, iconaImmagineId: 60, ordineVista: 1 },
    ] } },
  }],
  ['Take 0 with Total: just the count', { given: { take: 0, include: 'TOTAL', descrizioneStartsWith: 'c' }, want: { response: { offset: 0, total: 3, results: [] } } }],
  ['total ignores skip and take; offset is the skip', { given: { skip: 2, take: 1, include: 'Total' }, want: { response: { offset: 2, total: 14, results: [{ id: 3, descrizione: 'CITTA ', tipoCaratteristicaSezioneId: 2, isDisattiva: false, iconaImmagineId: 30, ordineVista: -2147483648 }], next: cursor } } }],
  ['INCLUDE_TOTAL default', { given: { take: 0 }, ctx: { includeTotal: true }, want: { response: { offset: 0, total: 14, results: [] } } }],
  ['no total without Include', { given: { take: 0 }, want: { response: { offset: 0, results: [] } } }],
  ['every aggregate kind over all rows, ignoring paging', {
    given: {
      take: 0, skip: 5,
      include: 'COUNT(*), COUNT(Descrizione) n, COUNT(DISTINCT Descrizione) AS d, MIN(OrdineVista), MAX(OrdineVista) MaxOrdine, SUM(OrdineVista) s, AVG(OrdineVista) a, SUM(IconaImmagineId), AVG(IconaImmagineId), MIN(Descrizione), MAX(Descrizione), MIN(IsDisattiva), MAX(IsDisattiva), FIRST(Descrizione), LAST(Descrizione), FIRST(IsDisattiva)',
    },
    want: { response: { offset: 5, results: [], meta: {
      'COUNT(*)': '14', n: '13', d: '10', 'MIN(OrdineVista)': '-2147483648', MaxOrdine: '2147483647', s: '38', a: '2.7143',
      'SUM(IconaImmagineId)': '659', 'AVG(IconaImmagineId)': '47.0714', 'MIN(Descrizione)': '50% off', 'MAX(Descrizione)': 'uno, due',
      'MIN(IsDisattiva)': 'false', 'MAX(IsDisattiva)': 'true', 'FIRST(Descrizione)': 'Città', 'LAST(Descrizione)': 'axb', 'FIRST(IsDisattiva)': 'false',
    } } },
  }],
  ['string MIN/MAX are stored values, ties by Id', { given: { take: 0, descrizioneStartsWith: 'c', include: 'min(descrizione) lo, max(descrizione) hi, count(distinct descrizione) k' }, want: { response: { offset: 0, results: [], meta: { lo: 'Città', hi: 'CITTA ', k: '2' } } } }],
  ['MAX picks the lowest Id among equal values', { dto: sr, given: { take: 0, recapitoStartsWith: 'p', include: 'MAX(Recapito), MIN(Recapito)' }, want: { response: { offset: 0, results: [], meta: { 'MAX(Recapito)': 'perché', 'MIN(Recapito)': 'perché' } } } }],
  ['FIRST/LAST follow the full order; a NULL value leaves the key out', {
    given: { take: 0, orderBy: 'Descrizione', include: 'FIRST(Descrizione), LAST(Descrizione), FIRST(Id), LAST(Id)' },
    want: { response: { offset: 0, results: [], meta: { 'LAST(Descrizione)': 'uno, due', 'FIRST(Id)': '7', 'LAST(Id)': '11' } } },
  }],
  ['AVG exact: halves and negatives', {
    given: { take: 0, idIn: [3, 13], include: 'AVG(OrdineVista), AVG(IconaImmagineId) i, SUM(OrdineVista)' },
    want: { response: { offset: 0, results: [], meta: { 'AVG(OrdineVista)': '-1073741824.5', i: '65', 'SUM(OrdineVista)': '-2147483649' } } },
  }],
  ['AVG rounds to 4 decimals', { given: { take: 0, idIn: [4, 5, 6], include: 'AVG(OrdineVista)' }, want: { response: { offset: 0, results: [], meta: { 'AVG(OrdineVista)': '4.6667' } } } }],
  ['no rows: counts are 0, the rest is left out', {
    given: { idIn: [], include: 'Total, COUNT(*), COUNT(DISTINCT Descrizione), SUM(Id), AVG(Id), MIN(Id), MAX(Descrizione), FIRST(Id), LAST(Descrizione)' },
    want: { response: { offset: 0, total: 0, results: [], meta: { 'COUNT(*)': '0', 'COUNT(DISTINCT Descrizione)': '0' } } },
  }],
  ['the key is the item as written, trimmed', { given: { take: 0, include: '  max(ordineVista)  ,  count( * )' }, want: { response: { offset: 0, results: [], meta: { 'max(ordineVista)': '2147483647', 'count( * )': '14' } } } }],
];

forEachDialect('query shaping', (dialect) => {
  let t: TestDb;
  before(async () => {
    t = await createTestDb(dialect);
    await loadFixtures(t.db);
  });
  after(async () => t?.drop());

  for (const [name, { dto, given, want, ctx }] of cases) {
    it(name, async () => {
      const r = await runQuery(t.db, dto ?? cg, given, testContext(ctx));
      if ('ids' in want) expect(idsOf(r)).to.deep.equal(want.ids);
      else expect(r.ok ? { ...r.value.response, ...(r.value.response.next ? { next: cursor } : {}) } : r.error).to.deep.equal(want.response);
    });
  }
});
