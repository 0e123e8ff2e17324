// render() and the statement cache: the SQL text and bindings per dialect that the engine
// runs (Knex renders them; no database needed). Each case is rendered twice, so the text
// comes once from Knex and once from the cache.
import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import type { Dialect } from '../../src/db/dialect.js';
import { render } from '../../src/query/render.js';
import type { RenderedQuery } from '../../src/query/select-parts.js';
import { createStatementCache, type Statement } from '../../src/query/statements.js';
import { compile } from '../../src/query/run-query.js';
import { cg, sr, testContext } from '../support/query-catalog.js';

const clients: Record<Dialect, Knex> = {
  mysql: knex({ client: 'mysql2' }),
  sqlite: knex({ client: 'better-sqlite3', useNullAsDefault: true }),
};

type Part = 'page' | 'summary' | 'pick';
interface Want { sql: Partial<Record<Dialect, string>>; bindings: Partial<Record<Dialect, unknown[]>> }

function sqlOf(db: Knex, r: RenderedQuery, part: Part): Statement | undefined {
  const source = part === 'pick' ? r.aggregates.find((a) => a.source.kind === 'pick')!.source : undefined;
  const parts = source?.kind === 'pick' ? source.query : part === 'page' ? r.page[0] : part === 'pick' ? undefined : r[part];
  if (parts === undefined) return undefined;
  const cache = createStatementCache(db);
  const first = cache.statement(parts);
  const again = cache.statement(parts);
  expect(again, 'from the cache').to.deep.equal(first);
  return first;
}

// `W` = where clause only; the test wraps it in the page query of `sr` with all fields.
const page = (where: string) => `select \`id\`, \`soggetto_id\`, \`tipo_recapito_id\`, \`recapito\`, \`codice_esterno\` from \`soggetto_recapito\` where ${where} order by \`id\` ASC limit ?`;

const cases: Array<[string, { dto?: typeof cg; given: Record<string, unknown>; part?: Part; want: Want }]> = [
  ['integer comparisons are plain on both', {
    given: { soggettoIdGreaterThanOrEqualTo: 1, soggettoIdNotEqualTo: 2, tipoRecapitoIdLessThan: 3 },
    want: { sql: { mysql: page('`soggetto_id` >= ? and `soggetto_id` <> ? and `tipo_recapito_id` < ?'), sqlite: page('`soggetto_id` >= ? and `soggetto_id` <> ? and `tipo_recapito_id` < ?') }, bindings: { mysql: [1, 2, 3, 101], sqlite: [1, 2, 3, 101] } },
  }],
  ['string equality: collation on MySQL, fold() and folded value on SQLite', {
    given: { recapito: 'Città ' },
    want: { sql: { mysql: page('`recapito` = ?'), sqlite: page('fold(`recapito`) = ?') }, bindings: { mysql: ['Città ', 101], sqlite: ['citta ', 101] } },
  }],
  ['StartsWith/EndsWith/Contains escape % _ \\ and bind the escape', {
    given: { recapitoStartsWith: '5%_\\', recapitoEndsWith: 'x', recapitoContains: 'Y' },
    want: {
      sql: { mysql: page('`recapito` LIKE ? ESCAPE ? and `recapito` LIKE ? ESCAPE ? and `recapito` LIKE ? ESCAPE ?') },
      bindings: { mysql: ['5\\%\\_\\\\%', '\\', '%x', '\\', '%Y%', '\\', 101] },
    },
  }],
  ['SQLite StartsWith adds a range on fold(col) for the expression index', {
    given: { recapitoStartsWith: 'Vià\\' },
    want: {
      sql: { sqlite: page('fold(`recapito`) >= ? AND fold(`recapito`) < ? AND fold(`recapito`) LIKE ? ESCAPE ?'), mysql: page('`recapito` LIKE ? ESCAPE ?') },
      bindings: { sqlite: ['via\\', 'via]', 'via\\\\%', '\\', 101], mysql: ['Vià\\\\%', '\\', 101] },
    },
  }],
  ['Like passes the pattern through (folded on SQLite)', {
    given: { codiceEsternoLike: 'À_\\%%' },
    want: { sql: { sqlite: page('fold(`codice_esterno`) LIKE ? ESCAPE ?') }, bindings: { mysql: ['À_\\%%', '\\', 101], sqlite: ['a_\\%%', '\\', 101] } },
  }],
  ['Between and In', {
    given: { soggettoIdBetween: [5, 1], recapitoIn: ['A', 'b'] },
    want: { sql: { mysql: page('`soggetto_id` BETWEEN ? AND ? and `recapito` IN (?, ?)'), sqlite: page('`soggetto_id` BETWEEN ? AND ? and fold(`recapito`) IN (?, ?)') }, bindings: { sqlite: [5, 1, 'a', 'b', 101] } },
  }],
  ['empty In is false', { given: { idIn: [] }, want: { sql: { mysql: page('1 = 0'), sqlite: page('1 = 0') }, bindings: { mysql: [101] } } }],
  ['booleans bound as 1/0', { dto: cg, given: { isDisattiva: false, fields: 'Id' }, want: { sql: { mysql: 'select `id` from `caratteristica_gruppo` where `is_disattiva` = ? order by `id` ASC limit ?' }, bindings: { mysql: [0, 101], sqlite: [0, 101] } } }],
  ['order: plain terms an index can serve, Id last in the last term\'s direction; the page reads the order\'s columns for its cursor and one row past Take', {
    given: { orderBy: 'Recapito,-SoggettoId', orderByDesc: 'CodiceEsterno', fields: 'Id', skip: 20, take: 5 },
    want: {
      sql: {
        mysql: 'select `id`, `recapito`, `soggetto_id`, `codice_esterno` from `soggetto_recapito` order by `recapito` ASC, `soggetto_id` DESC, `codice_esterno` DESC, `id` DESC limit ? offset ?',
        sqlite: 'select `id`, `recapito`, `soggetto_id`, `codice_esterno` from `soggetto_recapito` order by fold(`recapito`) ASC, `soggetto_id` DESC, fold(`codice_esterno`) DESC, `id` DESC limit ? offset ?',
      },
      bindings: { mysql: [6, 20] },
    },
  }],
  ['a deep skip on MySQL reads the keys through the index first; SQLite keeps the plain form', {
    given: { orderBy: 'Recapito', fields: 'Recapito', skip: 5000, take: 10 },
    want: {
      sql: {
        mysql: 'select `soggetto_recapito`.`recapito`, `soggetto_recapito`.`id` from `soggetto_recapito` inner join (select `id` from `soggetto_recapito` order by `recapito` ASC, `id` ASC limit ? offset ?) as `k` on `soggetto_recapito`.`id` = `k`.`id` order by `soggetto_recapito`.`recapito` ASC, `soggetto_recapito`.`id` ASC',
        sqlite: 'select `recapito`, `id` from `soggetto_recapito` order by fold(`recapito`) ASC, `id` ASC limit ? offset ?',
      },
      bindings: { mysql: [11, 5000], sqlite: [11, 5000] },
    },
  }],
  ['summary: total and column aggregates in one statement', {
    given: { include: 'Total,COUNT(*),COUNT(DISTINCT Recapito),SUM(SoggettoId),AVG(Id),MIN(Id)', soggettoId: 1 }, part: 'summary',
    want: {
      sql: {
        mysql: 'select COUNT(*) AS `total`, COUNT(*) AS `a0_0`, COUNT(DISTINCT `recapito`) AS `a1_0`, SUM(`soggetto_id`) AS `a2_0`, SUM(`id`) AS `a3_0`, COUNT(`id`) AS `a3_1`, MIN(`id`) AS `a4_0` from `soggetto_recapito` where `soggetto_id` = ?',
        sqlite: 'select COUNT(*) AS `total`, COUNT(*) AS `a0_0`, COUNT(DISTINCT fold(`recapito`)) AS `a1_0`, SUM(`soggetto_id`) AS `a2_0`, SUM(`id`) AS `a3_0`, COUNT(`id`) AS `a3_1`, MIN(`id`) AS `a4_0` from `soggetto_recapito` where `soggetto_id` = ?',
      },
      bindings: { mysql: [1] },
    },
  }],
  ['MAX of a string picks a stored value', {
    given: { include: 'MAX(Recapito)' }, part: 'pick',
    want: { sql: { sqlite: 'select `recapito` from `soggetto_recapito` where `recapito` is not null order by fold(`recapito`) DESC, `id` ASC limit ?' }, bindings: { sqlite: [1] } },
  }],
  ['LAST reverses the full order', {
    given: { include: 'LAST(SoggettoId)', orderBy: 'Recapito' }, part: 'pick',
    want: { sql: { mysql: 'select `soggetto_id` from `soggetto_recapito` order by `recapito` DESC, `id` DESC limit ?' }, bindings: {} },
  }],
  ['Take 0 runs no page query', { given: { take: 0 }, want: { sql: {}, bindings: {} } }],
];

describe('query render (SQL text)', () => {
  for (const [name, { dto, given, part, want }] of cases) {
    it(name, () => {
      const planned = compile(dto ?? sr, given, testContext());
      if (!planned.ok) throw planned.error;
      for (const dialect of ['mysql', 'sqlite'] as const) {
        const sql = sqlOf(clients[dialect], render(dialect, planned.value, testContext()), part ?? 'page');
        if (name.startsWith('Take 0')) expect(sql).to.equal(undefined);
        if (want.sql[dialect] !== undefined) expect(sql?.sql, dialect).to.equal(want.sql[dialect]);
        if (want.bindings[dialect] !== undefined) expect(sql?.bindings, dialect).to.deep.equal(want.bindings[dialect]);
      }
    });
  }

  it('keeps the page shapes of one remembered order apart by projection and dialect', () => {
    const ctx = testContext();
    const all = compile(sr, { orderBy: 'Recapito' }, ctx);
    const some = compile(sr, { orderBy: 'Recapito', fields: 'Id' }, ctx);
    if (!all.ok || !some.ok) throw new Error('planned');
    expect(some.value.order, 'the planner remembers the order').to.equal(all.value.order);
    for (const dialect of ['mysql', 'sqlite'] as const) {
      for (const [planned, columns] of [[all, ['id', 'soggetto_id', 'tipo_recapito_id', 'recapito', 'codice_esterno']], [some, ['id', 'recapito']]] as const) {
        const rendered = render(dialect, planned.value, ctx);
        expect(rendered.page[0]!.columns, dialect).to.deep.equal(columns);
        expect(rendered.cursorColumns, dialect).to.deep.equal(['recapito', 'id']);
        expect(rendered.page[0]!.order!.sql, dialect).to.match(dialect === 'mysql' ? /^\?\? ASC, \?\? ASC$/ : /^fold\(\?\?\) ASC, \?\? ASC$/);
      }
    }
  });

  it('no summary query without Total or column aggregates', () => {
    const planned = compile(sr, { include: 'FIRST(Id)' }, testContext());
    if (!planned.ok) throw planned.error;
    expect(render('sqlite', planned.value, testContext()).summary).to.equal(undefined);
  });

  after(async () => Promise.all(Object.values(clients).map((c) => c.destroy())));
});
