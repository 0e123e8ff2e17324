// The query catalog for tests: the generated whitelist, a builder for throwaway DTOs
// (the same derivation as scripts/generate.mjs: every operator of a field's family
// becomes a filter), and the engine context the tests run with.
import { limits, operators, queryDtos } from '../../generated/query-catalog.js';
import type { Family, QueryDtoSpec } from '../../src/query/catalog-types.js';
import { engineContext, type EngineContext } from '../../src/query/engine-context.js';

export { limits, operators, queryDtos };

const camel = (name: string) => name[0]!.toLowerCase() + name.slice(1);

export function defineQueryDto(
  operation: string,
  record: string,
  table: string,
  fields: ReadonlyArray<{ name: string; column: string; family: Family; nullable: boolean }>,
): QueryDtoSpec {
  const full = fields.map((f) => ({ ...f, property: camel(f.name) }));
  const filters = full.flatMap((f) =>
    operators
      .filter((o) => o.families.includes(f.family))
      .map((o) => ({ name: f.name + o.suffix, property: camel(f.name + o.suffix), field: f.name, operator: o.kind })),
  );
  return { operation, record, table, primaryKey: full[0]!.name, fields: full, filters };
}

export const cg: QueryDtoSpec = queryDtos.CaratteristicaGruppoQuery;
export const sr: QueryDtoSpec = queryDtos.SoggettoRecapitoQuery;

export const testConfig = { defaultTake: 100, maxTake: 1000, includeTotal: false, queryTimeoutMs: 5000, cursorSecret: 'a test secret of at least thirty-two bytes', estimateExactUpTo: 10_000 };

export function testContext(overrides: Partial<typeof testConfig> = {}): EngineContext {
  return engineContext({ ...testConfig, ...overrides }, operators);
}
