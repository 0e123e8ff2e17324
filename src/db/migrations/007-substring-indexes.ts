// The substring index of every field the catalog marks `substringIndex` (design.md §7,
// "Substring search"), built over the rows already there and kept current by triggers
// from then on. On MySQL each DDL statement commits: the triggers come before the fill,
// so a row written meanwhile is indexed by one or the other (INSERT IGNORE takes both); and
// a run cut short leaves part of it, which the next run drops before it starts over.
import type { Knex } from 'knex';
import { searchCollation } from '../collation.js';
import { dialectOf } from '../dialect.js';
import {
  mysqlDropStatements, mysqlFillStatement, mysqlIndexStatements, runEach, sqliteDropStatements, sqliteFillStatement,
  sqliteIndexStatements, substringIndexes,
} from '../substring-index.js';

export const name = '007-substring-indexes';

export async function up(db: Knex): Promise<void> {
  if (dialectOf(db) === 'mysql') {
    const collation = await searchCollation(db);
    for (const index of substringIndexes()) {
      await runEach(db, [...mysqlDropStatements(index), ...mysqlIndexStatements(index, collation), mysqlFillStatement(index)]);
    }
    return;
  }
  for (const index of substringIndexes()) await runEach(db, [...sqliteIndexStatements(index), sqliteFillStatement(index)]);
}

export async function down(db: Knex): Promise<void> {
  const drop = dialectOf(db) === 'mysql' ? mysqlDropStatements : sqliteDropStatements;
  for (const index of substringIndexes()) await runEach(db, drop(index));
}
