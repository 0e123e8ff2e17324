// Every column beyond the contract's has a default (design.md §8), so an operator's own
// INSERT of the contract's columns succeeds: impianto's contract column is its id, and
// `nome` (ours) defaults to ''. SQLite cannot change a column's default in place; the table
// is rebuilt the way SQLite documents (foreign keys off around it, so impianto_file's rows
// are neither cascaded away nor left pointing nowhere: the check below proves it).
import type { Knex } from 'knex';
import type { Database } from '../database.js';

export const name = '004-operator-defaults';
// PRAGMA foreign_keys is a no-op inside a transaction: this migration opens its own.
export const config = { transaction: false };

export async function up(db: Knex, database: Database): Promise<void> {
  if (database.dialect === 'mysql') {
    await db.raw("ALTER TABLE impianto MODIFY nome VARCHAR(200) NOT NULL DEFAULT ''");
    return;
  }
  await rebuild(db, "''");
}

export async function down(db: Knex, database: Database): Promise<void> {
  if (database.dialect === 'mysql') {
    await db.raw('ALTER TABLE impianto MODIFY nome VARCHAR(200) NOT NULL');
    return;
  }
  await rebuild(db, undefined);
}

async function rebuild(db: Knex, nomeDefault: string | undefined): Promise<void> {
  await db.raw('PRAGMA foreign_keys = OFF');
  try {
    await db.transaction(async (trx) => {
      await trx.raw(`CREATE TABLE impianto_rebuilt (id integer not null primary key autoincrement, nome varchar(200) not null${nomeDefault === undefined ? '' : ` default ${nomeDefault}`})`);
      await trx.raw('INSERT INTO impianto_rebuilt (id, nome) SELECT id, nome FROM impianto');
      await trx.raw('DROP TABLE impianto');
      await trx.raw('ALTER TABLE impianto_rebuilt RENAME TO impianto');
      const broken = (await trx.raw('PRAGMA foreign_key_check')) as unknown[];
      if (broken.length > 0) throw new Error(`rebuilding impianto broke ${broken.length} foreign keys`);
    });
  } finally {
    await db.raw('PRAGMA foreign_keys = ON');
  }
}
