// The substring index (design.md §8, "Substring index"): one trigram table per string field
// the catalog marks (`substringIndex`), kept by the engine's own triggers so that every write
// path updates it, whoever writes. Answers are those of a scan:
// - MySQL: `(gram, id, pos)` rows, the gram under the column's collation, so a gram of the
//   term finds every stored gram the collation's LIKE would match, character by character;
//   the LIKE beside it decides. The position makes each row unique as it is built.
// - SQLite: a contentless FTS5 table with the trigram tokenizer over fold(column), rowid = id;
//   a phrase of the folded term holds exactly the rows whose folded text contains it.
import type { Knex } from 'knex';
import { queryDtoList } from '../../../generated/query-catalog.js';
import type { Dialect } from '../dialect.js';

export interface SubstringIndex {
  readonly table: string;
  readonly column: string;
  /** The trigram table (the catalog's name, so the generated whitelist holds it). */
  readonly index: string;
  /** The column's length: at most length - 2 grams per row. */
  readonly length: number;
}

export const substringIndexes: readonly SubstringIndex[] = queryDtoList.flatMap((dto) =>
  dto.fields.flatMap((f) => (f.substringIndex === undefined ? [] : [{ table: dto.table, column: f.column, index: f.substringIndex, length: f.length ?? 255 }])),
);

/** MySQL's positions table: 1..n, the start of each gram (portable where the Sequence engine is missing). */
export const positionsTable = 'substring_positions';

/**
 * The session variable the MySQL insert triggers test: set, they leave the gram rows to the
 * bulk build that follows a load into an empty table (src/cli/load-writer-mysql.ts).
 */
export const trigramsDeferredVariable = '@impianti_trigrams_deferred';

const events = ['ai', 'au', 'ad'] as const;

/** The triggers' names of one index, as the engines list them. */
export const trigramTriggerNames = (s: SubstringIndex): string[] => events.map((e) => `${s.index}_${e}`);

/** The grams of `row`'s column, as a SELECT of (gram, id, pos) rows, MySQL. */
const mysqlGramsOf = (s: SubstringIndex, row: 'NEW' | 'OLD') =>
  `SELECT SUBSTRING(${row}.\`${s.column}\`, p.n, 3), ${row}.id, p.n FROM ${positionsTable} p WHERE p.n <= CHAR_LENGTH(${row}.\`${s.column}\`) - 2`;

const mysqlDeleteOld = (s: SubstringIndex) =>
  `DELETE g FROM ${positionsTable} p JOIN \`${s.index}\` g ON g.gram = SUBSTRING(OLD.\`${s.column}\`, p.n, 3) AND g.id = OLD.id AND g.pos = p.n ` +
  `WHERE p.n <= CHAR_LENGTH(OLD.\`${s.column}\`) - 2`;

// IGNORE: a TRUNCATE of the table fires no trigger and leaves its rows' grams behind, which a
// reused id must not trip over (a stale gram only adds a candidate the LIKE turns away).
const mysqlInsertNew = (s: SubstringIndex) => `INSERT IGNORE INTO \`${s.index}\` (gram, id, pos) ${mysqlGramsOf(s, 'NEW')}`;

function mysqlTriggers(s: SubstringIndex): string[] {
  const [ai, au, ad] = trigramTriggerNames(s);
  // BINARY: a change the collation calls equal ('Rossi' -> 'ROSSI') may still change the grams' characters.
  const changed = `NOT (BINARY OLD.\`${s.column}\` <=> BINARY NEW.\`${s.column}\`) OR OLD.id <> NEW.id`;
  return [
    `CREATE TRIGGER \`${ai}\` AFTER INSERT ON \`${s.table}\` FOR EACH ROW IF ${trigramsDeferredVariable} IS NULL THEN ${mysqlInsertNew(s)}; END IF`,
    `CREATE TRIGGER \`${au}\` AFTER UPDATE ON \`${s.table}\` FOR EACH ROW IF ${changed} THEN ${mysqlDeleteOld(s)}; ${mysqlInsertNew(s)}; END IF`,
    `CREATE TRIGGER \`${ad}\` AFTER DELETE ON \`${s.table}\` FOR EACH ROW ${mysqlDeleteOld(s)}`,
  ];
}

function sqliteTriggers(s: SubstringIndex): string[] {
  const [ai, au, ad] = trigramTriggerNames(s);
  const insertNew = `INSERT INTO "${s.index}" (rowid, folded) SELECT NEW.id, fold(NEW."${s.column}") WHERE NEW."${s.column}" IS NOT NULL`;
  const deleteOld = `DELETE FROM "${s.index}" WHERE rowid = OLD.id`;
  return [
    `CREATE TRIGGER "${ai}" AFTER INSERT ON "${s.table}" BEGIN ${insertNew}; END`,
    `CREATE TRIGGER "${au}" AFTER UPDATE OF id, "${s.column}" ON "${s.table}" BEGIN ${deleteOld}; ${insertNew}; END`,
    `CREATE TRIGGER "${ad}" AFTER DELETE ON "${s.table}" BEGIN ${deleteOld}; END`,
  ];
}

/** The CREATE TRIGGER statements of one index. */
export const trigramTriggers = (dialect: Dialect, s: SubstringIndex): string[] => (dialect === 'mysql' ? mysqlTriggers(s) : sqliteTriggers(s));

/**
 * Fills an empty index from its table in one statement: the migration's and the loaders' bulk
 * build. The MySQL form reads the table as `t` and the positions as `p` (the fill of a range names them).
 */
export function fillStatement(dialect: Dialect, s: SubstringIndex): string {
  if (dialect === 'sqlite') return `INSERT INTO "${s.index}" (rowid, folded) SELECT id, fold("${s.column}") FROM "${s.table}" WHERE "${s.column}" IS NOT NULL`;
  // Each row, then its positions by a range of their key: left to itself the optimizer joins
  // every row with every position in a join buffer (at 1M contacts, 70 s against 51 s).
  return (
    `INSERT INTO \`${s.index}\` (gram, id, pos) SELECT SUBSTRING(t.\`${s.column}\`, p.n, 3), t.id, p.n ` +
    `FROM \`${s.table}\` t STRAIGHT_JOIN ${positionsTable} p FORCE INDEX (PRIMARY) ON p.n <= CHAR_LENGTH(t.\`${s.column}\`) - 2`
  );
}

/** The indexes of `table` among `indexes` (the catalog's by default). */
export const indexesOf = (table: string, indexes: readonly SubstringIndex[] = substringIndexes): SubstringIndex[] => indexes.filter((s) => s.table === table);

/** Creates one index's table (empty) on `db`. */
export async function createIndexTable(db: Knex, dialect: Dialect, s: SubstringIndex, collation: string | undefined): Promise<void> {
  if (dialect === 'sqlite') {
    // detail=full keeps the grams' positions: a phrase of them matches exactly the texts that hold the term.
    await db.raw(`CREATE VIRTUAL TABLE "${s.index}" USING fts5(folded, tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1)`);
    return;
  }
  await db.raw(
    `CREATE TABLE \`${s.index}\` (gram VARCHAR(3) CHARACTER SET utf8mb4 COLLATE ${collation} NOT NULL, id INT UNSIGNED NOT NULL, ` +
      `pos SMALLINT UNSIGNED NOT NULL, PRIMARY KEY (gram, id, pos)) ENGINE = InnoDB`,
  );
}

/** The largest position any of `indexes` needs. */
export const positionsNeeded = (indexes: readonly SubstringIndex[]): number => Math.max(3, ...indexes.map((s) => s.length));
