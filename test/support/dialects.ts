// The engines a run covers: DIALECTS=sqlite,mysql (default sqlite). Every suite that
// touches the database runs once per dialect with the same expectations.
import type { Dialect } from '../../src/db/dialect.js';

export const dialects: readonly Dialect[] = (process.env['DIALECTS'] ?? 'sqlite')
  .split(',')
  .map((d) => d.trim())
  .filter((d): d is Dialect => {
    if (d !== 'sqlite' && d !== 'mysql') throw new Error(`DIALECTS: unknown dialect "${d}"`);
    return true;
  });

/** The MySQL server the tests use; each test database is created on it and dropped after. */
export const mysqlTestUrl = process.env['MYSQL_TEST_URL'] ?? 'mysql://root@127.0.0.1:3306/test';

export function forEachDialect(title: string, body: (dialect: Dialect) => void): void {
  for (const dialect of dialects) describe(`${title} [${dialect}]`, () => body(dialect));
}
