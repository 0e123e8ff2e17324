// The app_user and app_user_role tables. Uniqueness is left to the unique indexes on
// user_name_key and email_key: a duplicate insert fails inside the database and becomes
// 409 AlreadyExists here, so no check-then-insert race exists.
import type { Knex } from 'knex';
import { ApiError } from '../errors/api-error.js';
import { emailKey, looksLikeEmail, userNameKey } from './account-rules.js';
import { idOf } from './db-values.js';
import { uniqueViolation, violates } from '../db/driver-errors.js';
import { isRole, type Role } from './roles.js';

export interface NewUser {
  readonly userName: string | undefined;
  readonly email: string | undefined;
  readonly firstName?: string | undefined;
  readonly lastName?: string | undefined;
  readonly displayName?: string | undefined;
  readonly meta?: Readonly<Record<string, string>> | undefined;
}

export interface StoredUser {
  readonly id: string;
  readonly userName: string | undefined;
  readonly email: string | undefined;
  readonly displayName: string | undefined;
  readonly passwordHash: string;
}

/** Inserts the user and its roles with `trx`; a taken name or e-mail throws 409 naming the field. */
export async function insertUser(trx: Knex.Transaction, user: NewUser, passwordHash: string, roles: readonly string[], now: Date): Promise<string> {
  let id: unknown;
  try {
    [id] = await trx('app_user').insert({
      user_name: user.userName ?? null,
      user_name_key: user.userName === undefined ? null : userNameKey(user.userName),
      email: user.email ?? null,
      email_key: user.email === undefined ? null : emailKey(user.email),
      first_name: user.firstName ?? null,
      last_name: user.lastName ?? null,
      display_name: user.displayName ?? null,
      password_hash: passwordHash,
      meta: user.meta ? JSON.stringify(user.meta) : null,
      created_at: now,
    });
  } catch (err) {
    const v = uniqueViolation(err);
    if (!v) throw err;
    throw alreadyExists(violates(v, 'email_key') ? 'Email' : 'UserName');
  }
  const userId = idOf(id);
  if (roles.length > 0) await trx('app_user_role').insert([...new Set(roles)].map((role) => ({ user_id: userId, role })));
  return userId;
}

const alreadyExists = (fieldName: 'UserName' | 'Email'): ApiError =>
  ApiError.validation([{ errorCode: 'AlreadyExists', fieldName, message: `${fieldName} already exists` }]);

/**
 * Throws 409 when the user name or e-mail is taken already. Only a fast path: two
 * registrations racing both pass it, and the unique indexes decide (insertUser).
 */
export async function refuseTaken(db: Knex, user: NewUser): Promise<void> {
  const keys = { userName: user.userName === undefined ? undefined : userNameKey(user.userName), email: user.email === undefined ? undefined : emailKey(user.email) };
  if (keys.userName === undefined && keys.email === undefined) return;
  const q = db('app_user').first('user_name_key', 'email_key');
  if (keys.userName !== undefined) q.orWhere('user_name_key', keys.userName);
  if (keys.email !== undefined) q.orWhere('email_key', keys.email);
  const row = (await q) as { user_name_key: string | null; email_key: string | null } | undefined;
  if (row) throw alreadyExists(keys.userName !== undefined && row.user_name_key === keys.userName ? 'UserName' : 'Email');
}

/** Finds a user by user name or, when the login holds an @, by e-mail; case-insensitively. */
export async function findUser(db: Knex, login: string): Promise<StoredUser | undefined> {
  const where = looksLikeEmail(login) ? { email_key: emailKey(login) } : { user_name_key: userNameKey(login) };
  const row = await db('app_user').where(where).first('id', 'user_name', 'email', 'first_name', 'last_name', 'display_name', 'password_hash');
  if (!row) return undefined;
  const fullName = [row.first_name, row.last_name].filter(Boolean).join(' ');
  return {
    id: idOf(row.id),
    userName: row.user_name ?? undefined,
    email: row.email ?? undefined,
    displayName: row.display_name || fullName || row.user_name || row.email || undefined,
    passwordHash: row.password_hash,
  };
}

/** The user's roles; a row an operator wrote with a name the service does not know grants nothing. */
export async function rolesOf(db: Knex, userId: string): Promise<Role[]> {
  const rows: Array<{ role: string }> = await db('app_user_role').where({ user_id: userId }).select('role');
  return rows.map((r) => r.role).filter(isRole).sort();
}

export async function addRoles(db: Knex, userId: string, roles: readonly string[]): Promise<void> {
  if (roles.length === 0) return;
  // INSERT IGNORE on MySQL, ON CONFLICT DO NOTHING on SQLite: assigning a held role is a no-op.
  await db('app_user_role').insert([...new Set(roles)].map((role) => ({ user_id: userId, role }))).onConflict(['user_id', 'role']).ignore();
}

export async function removeRoles(db: Knex, userId: string, roles: readonly string[]): Promise<void> {
  if (roles.length === 0) return;
  await db('app_user_role').where({ user_id: userId }).whereIn('role', [...roles]).delete();
}

export interface UserListing {
  readonly id: string;
  readonly userName: string | undefined;
  readonly email: string | undefined;
  readonly roles: string[];
}

/** Every user with its roles, for the CLI; never the hash. */
export async function listUsers(db: Knex): Promise<UserListing[]> {
  const users: Array<{ id: unknown; user_name: string | null; email: string | null }> = await db('app_user').orderBy('id').select('id', 'user_name', 'email');
  const roleRows: Array<{ user_id: unknown; role: string }> = await db('app_user_role').orderBy('role').select('user_id', 'role');
  return users.map((u) => ({
    id: idOf(u.id),
    userName: u.user_name ?? undefined,
    email: u.email ?? undefined,
    roles: roleRows.filter((r) => idOf(r.user_id) === idOf(u.id)).map((r) => r.role),
  }));
}
