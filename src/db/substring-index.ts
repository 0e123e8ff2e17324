// The substring index of a string field (design.md §7, "Substring search"): what serves
// Contains and EndsWith. Its name, which fields have one (the generated catalog), and the
// SQL that builds it on each engine, kept current by the engine's own triggers so that
// every write path (the loader, `db sql --write`, restore, an operator's own SQL) keeps it.
// - SQLite: a contentless FTS5 table with the trigram tokenizer over fold(column).
// - MySQL/MariaDB: a table of (trigram, key), each trigram three characters of the column
//   under the column's collation, so that the collation's equality finds it folded.
import type { Knex } from 'knex';
import { queryDtos } from '../../generated/query-catalog.js';
import { foldFunction } from './fold.js';

export interface SubstringIndex {
  readonly table: string;
  readonly column: string;
  /** The table's key column: the FTS5 rowid, the trigram table's second column. */
  readonly key: string;
  /** The FTS5 table (SQLite) or the trigram table (MySQL). */
  readonly name: string;
}

/** Terms shorter than this many characters have no trigram: they are answered by the scan (design.md §7). */
export const trigramLength = 3;

export const substringIndexName = (table: string, column: string): string => `sx_${table}_${column}`;

/** What this module reads of a catalog entry (the query floor's QueryDtoSpec, seen from below). */
interface CatalogTable {
  readonly table: string;
  readonly primaryKey: string;
  readonly fields: ReadonlyArray<{ readonly name: string; readonly column: string; readonly substringIndex?: boolean }>;
}

/** Every field the catalog marks `substringIndex`, in spec order. */
export function substringIndexes(): SubstringIndex[] {
  return Object.values<CatalogTable>(queryDtos).flatMap((dto) => {
    const key = dto.fields.find((f) => f.name === dto.primaryKey)!.column;
    return dto.fields
      .filter((f) => f.substringIndex === true)
      .map((f) => ({ table: dto.table, column: f.column, key, name: substringIndexName(dto.table, f.column) }));
  });
}

const trigger = (index: SubstringIndex, event: 'ai' | 'ad' | 'au'): string => `${index.name}_${event}`;

/**
 * SQLite: the FTS5 table holds fold(column) under the rowid of its row. `case_sensitive 1`
 * because the text is folded already; contentless with `contentless_delete`, so a row leaves
 * by its rowid alone. Table and column names come from the catalog (snake_case only).
 */
export function sqliteIndexStatements(index: SubstringIndex): string[] {
  const { table, column, key, name } = index;
  const insert = (row: 'new') => `INSERT INTO "${name}" (rowid, folded) SELECT ${row}."${key}", ${foldFunction}(${row}."${column}") WHERE ${row}."${column}" IS NOT NULL;`;
  return [
    `CREATE VIRTUAL TABLE "${name}" USING fts5(folded, content='', contentless_delete=1, tokenize='trigram case_sensitive 1')`,
    `CREATE TRIGGER "${trigger(index, 'ai')}" AFTER INSERT ON "${table}" BEGIN ${insert('new')} END`,
    `CREATE TRIGGER "${trigger(index, 'ad')}" AFTER DELETE ON "${table}" BEGIN DELETE FROM "${name}" WHERE rowid = old."${key}"; END`,
    `CREATE TRIGGER "${trigger(index, 'au')}" AFTER UPDATE OF "${key}", "${column}" ON "${table}" BEGIN DELETE FROM "${name}" WHERE rowid = old."${key}"; ${insert('new')} END`,
  ];
}

/** SQLite: the index of the rows already in the table. */
export const sqliteFillStatement = ({ table, column, key, name }: SubstringIndex): string =>
  `INSERT INTO "${name}" (rowid, folded) SELECT "${key}", ${foldFunction}("${column}") FROM "${table}" WHERE "${column}" IS NOT NULL`;

export const sqliteDropStatements = (index: SubstringIndex): string[] => [
  ...(['ai', 'ad', 'au'] as const).map((e) => `DROP TRIGGER IF EXISTS "${trigger(index, e)}"`),
  `DROP TABLE IF EXISTS "${index.name}"`,
];

/**
 * MySQL: one row per distinct trigram of a row's value. The trigram column has the field's
 * collation (case- and accent-insensitive, NO PAD), so trigrams equal under it are one row
 * (INSERT IGNORE) and a folded lookup finds them. A trigger walks the value's characters;
 * MySQL 8 has no sequence tables, so a loop serves both engines.
 */
export function mysqlIndexStatements(index: SubstringIndex, collation: string): string[] {
  const { table, column, key, name } = index;
  const each = (row: 'NEW' | 'OLD', statement: string) =>
    `BEGIN DECLARE i INT DEFAULT 1; DECLARE n INT DEFAULT COALESCE(CHAR_LENGTH(${row}.\`${column}\`), 0) - ${trigramLength - 1}; ` +
    `WHILE i <= n DO ${statement}; SET i = i + 1; END WHILE; END`;
  const gram = (row: 'NEW' | 'OLD') => `SUBSTRING(${row}.\`${column}\`, i, ${trigramLength})`;
  const add = `INSERT IGNORE INTO \`${name}\` (gram, \`${key}\`) VALUES (${gram('NEW')}, NEW.\`${key}\`)`;
  const remove = `DELETE FROM \`${name}\` WHERE gram = ${gram('OLD')} AND \`${key}\` = OLD.\`${key}\``;
  return [
    `CREATE TABLE \`${name}\` (gram VARCHAR(${trigramLength}) CHARACTER SET utf8mb4 COLLATE ${collation} NOT NULL, \`${key}\` INT UNSIGNED NOT NULL, PRIMARY KEY (gram, \`${key}\`)) ENGINE=InnoDB`,
    `CREATE TRIGGER \`${trigger(index, 'ai')}\` AFTER INSERT ON \`${table}\` FOR EACH ROW ${each('NEW', add)}`,
    `CREATE TRIGGER \`${trigger(index, 'ad')}\` AFTER DELETE ON \`${table}\` FOR EACH ROW ${each('OLD', remove)}`,
    // Two loops in one body: the old value's trigrams go, then the new value's come.
    `CREATE TRIGGER \`${trigger(index, 'au')}\` AFTER UPDATE ON \`${table}\` FOR EACH ROW BEGIN ` +
      `IF NOT (OLD.\`${key}\` <=> NEW.\`${key}\`) OR NOT (BINARY OLD.\`${column}\` <=> BINARY NEW.\`${column}\`) THEN ` +
      `${each('OLD', remove)}; ${each('NEW', add)}; END IF; END`,
  ];
}

/** MySQL: the index of the rows already in the table, in the primary key's order. */
export const mysqlFillStatement = ({ table, column, key, name }: SubstringIndex): string =>
  `INSERT IGNORE INTO \`${name}\` (gram, \`${key}\`) SELECT SUBSTRING(t.\`${column}\`, n.i, ${trigramLength}), t.\`${key}\` FROM \`${table}\` t ` +
  `JOIN (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) SELECT i FROM n) n ON n.i <= CHAR_LENGTH(t.\`${column}\`) - ${trigramLength - 1}`;

export const mysqlDropStatements = (index: SubstringIndex): string[] => [
  ...(['ai', 'ad', 'au'] as const).map((e) => `DROP TRIGGER IF EXISTS \`${trigger(index, e)}\``),
  `DROP TABLE IF EXISTS \`${index.name}\``,
];

/** Runs statements in order: DDL one at a time, as both engines want it. */
export async function runEach(db: Knex | Knex.Transaction, statements: readonly string[]): Promise<void> {
  for (const sql of statements) await db.raw(sql);
}
