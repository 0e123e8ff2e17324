// Every operator on every family against real databases: one expected id list per case,
// the same for SQLite and MySQL (design.md §7 semantics).
import { expect } from 'chai';
import { runQuery } from '../../src/query/run-query.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';
import { cg, sr, testContext } from '../support/query-catalog.js';
import { idsOf, loadFixtures, MAX, MIN } from '../support/query-fixtures.js';

const all = (...except: number[]) => Array.from({ length: 14 }, (_, i) => i + 1).filter((i) => !except.includes(i));

const cases: Array<[string, { dto?: typeof sr; given: Record<string, unknown>; want: number[] }]> = [
  // integer family
  ['int =', { given: { ordineVista: 5 }, want: [1, 2] }],
  ['int = int32 min', { given: { iconaImmagineId: MIN }, want: [11] }],
  ['int >= int32 max', { given: { ordineVistaGreaterThanOrEqualTo: MAX }, want: [12] }],
  ['int >', { given: { ordineVistaGreaterThan: 4 }, want: [1, 2, 5, 6, 12] }],
  ['int <', { given: { ordineVistaLessThan: 0 }, want: [3, 13] }],
  ['int <= int32 min', { given: { ordineVistaLessThanOrEqualTo: MIN }, want: [3] }],
  ['int <>', { given: { ordineVistaNotEqualTo: 5 }, want: all(1, 2) }],
  ['int Between inclusive', { given: { ordineVistaBetween: [3, 5] }, want: [1, 2, 9, 10, 11, 14] }],
  ['int Between low > high', { given: { ordineVistaBetween: [5, 3] }, want: [] }],
  ['int Between at the bounds', { given: { iconaImmagineIdBetween: [MIN, 0] }, want: [11, 12] }],
  ['int In', { given: { ordineVistaIn: [7, MAX, 99] }, want: [5, 6, 12] }],
  ['int empty In matches nothing', { given: { idIn: [] }, want: [] }],
  ['key filters', { given: { idGreaterThan: 3, idLessThanOrEqualTo: 5 }, want: [4, 5] }],
  ['filters AND together', { given: { tipoCaratteristicaSezioneId: 5, ordineVistaGreaterThan: 0 }, want: [11, 12] }],
  ['int on the other DTO, bounds', { dto: sr, given: { soggettoIdLessThanOrEqualTo: MIN }, want: [7] }],
  ['int In on the other DTO', { dto: sr, given: { soggettoIdIn: [MAX, 2], tipoRecapitoIdNotEqualTo: 1 }, want: [4, 8] }],
  // string family: case- and accent-insensitive, trailing spaces significant
  ['str = folds case and accents', { given: { descrizione: 'citta' }, want: [1, 2] }],
  ['str = trailing space is significant', { given: { descrizione: 'CITTÀ ' }, want: [3] }],
  ['str = accented value finds plain', { given: { descrizione: 'PERCHÉ' }, want: [4, 5] }],
  ['str = Niccolò', { given: { descrizione: 'niccolo' }, want: [6] }],
  ['str StartsWith', { given: { descrizioneStartsWith: 'CITT' }, want: [1, 2, 3] }],
  ['str StartsWith escapes %', { given: { descrizioneStartsWith: '5%' }, want: [] }],
  ['str StartsWith with a literal %', { given: { descrizioneStartsWith: '50%' }, want: [8] }],
  ['str StartsWith escapes _', { given: { descrizioneStartsWith: 'a_' }, want: [9] }],
  ['str StartsWith with a backslash', { given: { descrizioneStartsWith: 'back\\s' }, want: [10] }],
  ['str EndsWith keeps trailing spaces', { given: { descrizioneEndsWith: 'a ' }, want: [3] }],
  ['str EndsWith accent-insensitive', { given: { descrizioneEndsWith: 'O' }, want: [6] }],
  ['str Contains comma', { given: { descrizioneContains: ', ' }, want: [11] }],
  ['str Contains %', { given: { descrizioneContains: '%' }, want: [8] }],
  ['str Contains _', { given: { descrizioneContains: '_' }, want: [9] }],
  ['str Contains \\', { given: { descrizioneContains: '\\' }, want: [10] }],
  ['str Contains folds', { given: { descrizioneContains: 'SS' }, want: [12, 13] }],
  ['str Like _ is one character', { given: { descrizioneLike: 'a_b' }, want: [9, 14] }],
  ['str Like \\_ is a literal _', { given: { descrizioneLike: 'a\\_b' }, want: [9] }],
  ['str Like % prefix', { given: { descrizioneLike: 'C%' }, want: [1, 2, 3] }],
  ['str Like escaped %', { given: { descrizioneLike: '%\\%%' }, want: [8] }],
  ['str Like without % is whole-value, no padding', { given: { descrizioneLike: 'citta' }, want: [1, 2] }],
  ['str Like escaped backslash', { given: { descrizioneLike: 'back\\\\slash' }, want: [10] }],
  ['str Like % never matches NULL', { given: { descrizioneLike: '%' }, want: all(7) }],
  ['str Between inclusive, folded', { given: { descrizioneBetween: ['CITTA', 'Perché'] }, want: [1, 2, 3, 4, 5, 6] }],
  ['str Between low > high', { given: { descrizioneBetween: ['z', 'a'] }, want: [] }],
  ['str In folds', { given: { descrizioneIn: ['CITTÀ', 'rossi', 'nope'] }, want: [1, 2, 12, 13] }],
  ['str In with a comma in an item', { given: { descrizioneIn: ['uno, due'] }, want: [11] }],
  ['str empty In matches nothing', { given: { descrizioneIn: [] }, want: [] }],
  ['str = on the other DTO, trailing space', { dto: sr, given: { recapito: 'rossi' }, want: [2] }],
  ['str StartsWith on the other DTO', { dto: sr, given: { recapitoStartsWith: 'Rossi' }, want: [2, 3] }],
  ['str Contains comma, other DTO', { dto: sr, given: { recapitoContains: 'roma, ' }, want: [5] }],
  ['str = accents both sides', { dto: sr, given: { recapito: 'perche' }, want: [7, 8] }],
  ['codice = folds', { dto: sr, given: { codiceEsterno: 'A1' }, want: [1, 3] }],
  ['codice Like escaped _', { dto: sr, given: { codiceEsternoLike: 'b\\_2' }, want: [4] }],
  ['codice EndsWith after %', { dto: sr, given: { codiceEsternoEndsWith: '%3' }, want: [5] }],
  ['codice Contains \\', { dto: sr, given: { codiceEsternoContains: '\\' }, want: [6] }],
  ['codice In, NULL never matches', { dto: sr, given: { codiceEsternoIn: ['z', 'A1'] }, want: [1, 3, 7] }],
  ['codice Between', { dto: sr, given: { codiceEsternoBetween: ['a1', 'B_2'] }, want: [1, 3, 4] }],
  // boolean family
  ['bool = true', { given: { isDisattiva: true }, want: [2, 5, 9, 13] }],
  ['bool = false', { given: { isDisattiva: false }, want: all(2, 5, 9, 13) }],
];

forEachDialect('query operators', (dialect) => {
  let t: TestDb;
  before(async () => {
    t = await createTestDb(dialect);
    await loadFixtures(t.db);
  });
  after(async () => t?.drop());

  for (const [name, { dto, given, want }] of cases) {
    it(name, async () => {
      expect(idsOf(await runQuery(t.db, dto ?? cg, given, testContext()))).to.deep.equal(want);
    });
  }
});
