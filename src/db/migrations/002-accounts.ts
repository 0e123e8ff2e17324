// Users, roles, sessions and refresh tokens (design.md §4, §5). Uniqueness of user
// names and e-mails is enforced by unique indexes on normalized keys, so concurrent
// registrations race inside the database, not in application code.
import type { Knex } from 'knex';
import type { Database } from '../database.js';

export const name = '002-accounts';

export async function up(db: Knex, database: Database): Promise<void> {
  const mysql = database.dialect === 'mysql';
  // The keys are already lower-cased by the application; a binary collation makes the
  // index compare them exactly, as SQLite does (utf8mb4_unicode_ci would also equate
  // "ß" with "ss" and ignore trailing spaces, so the engines would disagree).
  const key = (t: Knex.CreateTableBuilder, column: string, length: number, index: string) => {
    const c = t.string(column, length).nullable();
    if (mysql) c.collate('utf8mb4_bin');
    c.unique({ indexName: index });
  };
  await db.schema.createTable('app_user', (t) => {
    t.increments('id');
    t.string('user_name', 36).nullable();
    key(t, 'user_name_key', 36, 'ux_app_user_user_name_key');
    t.string('email', 254).nullable();
    key(t, 'email_key', 254, 'ux_app_user_email_key');
    t.string('first_name', 100).nullable();
    t.string('last_name', 100).nullable();
    t.string('display_name', 100).nullable();
    t.string('password_hash', 255).notNullable();
    // Up to 20 x (64 + 1024) code points of 4 bytes: more than TEXT's 64 KiB on MySQL.
    t.text('meta', 'mediumtext').nullable();
    t.datetime('created_at', { precision: 3 }).notNullable();
    if (mysql) t.charset('utf8mb4');
  });
  await db.schema.createTable('app_user_role', (t) => {
    t.integer('user_id').unsigned().notNullable().references('id').inTable('app_user').onDelete('CASCADE');
    t.string('role', 32).notNullable();
    t.primary(['user_id', 'role']);
  });
  await db.schema.createTable('auth_session', (t) => {
    t.string('id', 64).primary();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('app_user').onDelete('CASCADE');
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.datetime('revoked_at', { precision: 3 }).nullable();
    t.index(['user_id'], 'ix_auth_session_user_id');
  });
  await db.schema.createTable('refresh_token', (t) => {
    // SHA-256 of the token in hex: the token itself is never stored.
    t.string('token_hash', 64).primary();
    t.string('session_id', 64).notNullable().references('id').inTable('auth_session').onDelete('CASCADE');
    t.datetime('expires_at', { precision: 3 }).notNullable();
    t.datetime('spent_at', { precision: 3 }).nullable();
    t.index(['session_id'], 'ix_refresh_token_session_id');
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['refresh_token', 'auth_session', 'app_user_role', 'app_user']) await db.schema.dropTableIfExists(table);
}
