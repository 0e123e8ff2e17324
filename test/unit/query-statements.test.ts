// The statement cache (src/query/statements.ts): whatever shape and values a query has,
// the text and bindings it runs are exactly what Knex renders for it, whether they come
// from Knex (first of a shape) or from the cache (every later one).
import { expect } from 'chai';
import fc from 'fast-check';
import knex, { type Knex } from 'knex';
import type { Dialect } from '../../src/db/dialect.js';
import { render } from '../../src/query/render.js';
import type { SelectParts } from '../../src/query/select-parts.js';
import { compile } from '../../src/query/run-query.js';
import { marker, prepare, templateFrom } from '../../src/db/prepared.js';
import { createStatementCache, toKnex } from '../../src/query/statements.js';
import { assertProperty } from '../support/property-seed.js';
import { requestOf } from '../support/query-arbitraries.js';
import { cg, sr, testContext } from '../support/query-catalog.js';

const clients: Record<Dialect, Knex> = {
  mysql: knex({ client: 'mysql2' }),
  sqlite: knex({ client: 'better-sqlite3', useNullAsDefault: true }),
};
const ctx = testContext();

function statementsOf(request: Record<string, unknown>, dto = sr, dialect: Dialect = 'mysql'): SelectParts[] {
  const planned = compile(dto, request, ctx);
  if (!planned.ok) throw new Error(JSON.stringify(planned.error.errors));
  const r = render(dialect, planned.value, ctx);
  return [...r.page, r.summary, r.estimate?.capped, r.estimate?.engine?.query, ...r.aggregates.map((a) => (a.source.kind === 'pick' ? a.source.query : undefined))].filter((p) => p !== undefined);
}

describe('query statement cache', () => {
  for (const dialect of ['mysql', 'sqlite'] as const) {
    for (const dto of [cg, sr]) {
      it(`gives Knex's own text and bindings for 1,000 random ${dto.operation} queries [${dialect}]`, () => {
        // A small cache shared by all runs, so shapes repeat, hit and get evicted.
        const cache = createStatementCache(clients[dialect], 50);
        let statements = 0;
        assertProperty(
          fc.property(requestOf(dto), (request) => {
            for (const parts of statementsOf(request, dto, dialect)) {
              statements++;
              const { sql, bindings } = toKnex(clients[dialect], parts).toSQL();
              expect(cache.statement(parts)).to.deep.equal({ sql, bindings });
              expect(cache.size).to.be.at.most(50);
            }
          }),
          { numRuns: 1000 },
        );
        expect(statements).to.be.above(1000);
      });
    }
  }

  it('binds each request its own values, in the shape it shares', () => {
    const cache = createStatementCache(clients.mysql);
    const first = cache.statement(statementsOf({ soggettoIdIn: [7, 8], recapitoStartsWith: 'a', skip: 5, take: 9 })[0]!);
    const second = cache.statement(statementsOf({ soggettoIdIn: [3, 4], recapitoStartsWith: 'b_', skip: 6, take: 2 })[0]!);
    expect(cache.size).to.equal(1);
    expect(second.sql).to.equal(first.sql);
    // LIMIT is one past Take: the extra row tells whether a further page exists.
    expect(first.bindings).to.deep.equal([7, 8, 'a%', '\\', 10, 5]);
    expect(second.bindings).to.deep.equal([3, 4, 'b\\_%', '\\', 3, 6]);
  });

  it('keeps values that equal the paging, a column name or each other apart', () => {
    const cache = createStatementCache(clients.mysql);
    cache.statement(statementsOf({ soggettoIdIn: [1, 2], recapito: 'x', skip: 3, take: 4 })[0]!);
    const tricky = statementsOf({ soggettoIdIn: [20, 20], recapito: 'recapito', skip: 20, take: 19 })[0]!;
    const got = cache.statement(tricky);
    expect(got.sql).to.equal(toKnex(clients.mysql, tricky).toSQL().sql);
    expect(got.bindings).to.deep.equal([20, 20, 'recapito', 20, 20]);
    expect(cache.size).to.equal(1);
  });

  it('tells apart shapes that differ only in paging, In length or the field', () => {
    const cache = createStatementCache(clients.sqlite);
    const shapes = [
      { soggettoIdIn: [1, 2] },
      { soggettoIdIn: [1, 2, 3] },
      { soggettoIdIn: [] },
      { tipoRecapitoIdIn: [1, 2] },
      { soggettoIdIn: [1, 2], skip: 1 },
      { soggettoIdIn: [1, 2], take: 0, include: 'Total' },
      { recapitoStartsWith: '' },
      { recapitoStartsWith: 'a' },
    ];
    for (const request of shapes) {
      for (const parts of statementsOf(request, sr, 'sqlite')) expect(cache.statement(parts), JSON.stringify(request)).to.deep.equal(pick(toKnex(clients.sqlite, parts).toSQL()));
    }
    expect(cache.size).to.equal(shapes.length);
  });

  describe('templates (src/db/prepared.ts): what Knex rendered with markers for the values', () => {
    it('keeps where each marker landed, and the constants Knex added', () =>
      expect(templateFrom('select 1 where a = ? and b = ? limit ?', [marker(1), marker(0), 1], 2)).to.deep.equal({
        sql: 'select 1 where a = ? and b = ? limit ?',
        sources: [{ value: 1 }, { value: 0 }, { constant: 1 }],
      }));
    it('refuses a value left out', () => expect(templateFrom('a = ?', [marker(0)], 2)).to.equal(undefined));
    it('refuses a value bound twice', () => expect(templateFrom('a = ? or a = ?', [marker(0), marker(0)], 1)).to.equal(undefined));
    it('refuses a marker it did not hand out', () => expect(templateFrom('a = ? and b = ?', [marker(0), marker(3)], 1)).to.equal(undefined));
    it('refuses a value written into the text', () => expect(templateFrom(`a = ${marker(0)} and b = ?`, [marker(0)], 1)).to.equal(undefined));

    it('a prepared query binds each call its values where Knex put them', () => {
      const db = clients.mysql;
      const q = prepare(2, ([a, b]) => db('t').where('x', b!).where('y', a!).first('z'));
      expect(q([10, 20])).to.deep.equal({ sql: 'select `z` from `t` where `x` = ? and `y` = ? limit ?', bindings: [20, 10, 1] });
      expect(q([7, 8]).bindings).to.deep.equal([8, 7, 1]);
    });
    it('a prepared query that leaves a value out fails at first use', () => {
      const db = clients.mysql;
      const q = prepare(1, () => db('t').where('x', 5));
      expect(() => q([1])).to.throw(/rendered a prepared query unexpectedly/);
    });
  });

  after(async () => Promise.all(Object.values(clients).map((c) => c.destroy())));
});

function pick({ sql, bindings }: { sql: string; bindings: readonly unknown[] }) {
  return { sql, bindings };
}
