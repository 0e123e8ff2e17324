// Duplicate-key errors of both drivers, as they are raised, are recognised and named.
import { expect } from 'chai';
import { isTransient, retryTransient, translateDbError, uniqueViolation, violates } from '../../src/db/driver-errors.js';

const mysql = (key: string) => Object.assign(new Error(`insert into app_user ... - Duplicate entry 'mario' for key '${key}'`), { code: 'ER_DUP_ENTRY', errno: 1062, sqlMessage: `Duplicate entry 'mario' for key '${key}'` });
const sqlite = (target: string, code = 'SQLITE_CONSTRAINT_UNIQUE') => Object.assign(new Error(`insert into app_user ... - UNIQUE constraint failed: ${target}`), { code });

describe('driver errors: unique violations', () => {
  const table: Array<[string, unknown, string | undefined]> = [
    ['MariaDB user name', mysql('ux_app_user_user_name_key'), 'user_name_key'],
    ['MySQL 8 e-mail (table-qualified)', mysql('app_user.ux_app_user_email_key'), 'email_key'],
    ['SQLite user name', sqlite('app_user.user_name_key'), 'user_name_key'],
    ['SQLite e-mail', sqlite('app_user.email_key'), 'email_key'],
    ['SQLite primary key', sqlite('app_user_role.user_id, app_user_role.role', 'SQLITE_CONSTRAINT_PRIMARYKEY'), 'role'],
    ['a foreign-key failure', Object.assign(new Error('FOREIGN KEY constraint failed'), { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' }), undefined],
    ['a plain error', new Error('Duplicate entry'), undefined],
    ['not an error', 'ER_DUP_ENTRY', undefined],
  ];
  for (const [name, err, column] of table) {
    it(`reads ${name}`, () => {
      const v = uniqueViolation(err);
      if (column === undefined) return void expect(v).to.equal(undefined);
      expect(v).to.not.equal(undefined);
      expect(violates(v!, column)).to.equal(true);
      expect(violates(v!, column === 'email_key' ? 'user_name_key' : 'email_key')).to.equal(false);
    });
  }
});

describe('driver errors: lost lock races', () => {
  const deadlock = () => Object.assign(new Error('Deadlock found when trying to get lock'), { code: 'ER_LOCK_DEADLOCK', errno: 1213 });

  it('retries a deadlock victim and returns the later success', async () => {
    let calls = 0;
    const value = await retryTransient(async () => {
      calls += 1;
      if (calls < 3) throw deadlock();
      return 'done';
    });
    expect([value, calls]).to.deep.equal(['done', 3]);
  });

  it('gives up after the last attempt with the driver error', async () => {
    let calls = 0;
    const err = await retryTransient(async () => { calls += 1; throw deadlock(); }, 2).catch((e: unknown) => e);
    expect([isTransient(err), calls]).to.deep.equal([true, 2]);
  });

  it('does not retry anything else', async () => {
    let calls = 0;
    const err = await retryTransient(async () => { calls += 1; throw new Error('boom'); }).catch((e: unknown) => e);
    expect([(err as Error).message, calls]).to.deep.equal(['boom', 1]);
  });
});

describe('driver errors: translation', () => {
  const table: Array<[string, unknown, string, number]> = [
    ['MariaDB statement timeout', Object.assign(new Error('max_statement_time exceeded'), { errno: 1969 }), 'QueryTimeout', 503],
    ['refused connection', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 'ServiceUnavailable', 503],
    ['lost connection', Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST' }), 'ServiceUnavailable', 503],
    ['pool acquire timeout', Object.assign(new Error('Knex: Timeout acquiring a connection'), { name: 'KnexTimeoutError' }), 'ServiceUnavailable', 503],
    ['prepared statements exhausted', Object.assign(new Error("Can't create more than max_prepared_stmt_count statements"), { code: 'ER_MAX_PREPARED_STMT_COUNT_REACHED', errno: 1461 }), 'ServiceUnavailable', 503],
    // The read pool's own (src/db/reads/mysql-read-pool.ts).
    ['read pool acquire timeout', Object.assign(new Error('No database connection within 2000 ms'), { code: 'POOL_ACQUIRE_TIMEOUT' }), 'ServiceUnavailable', 503],
    ['a syntax error (a bug)', Object.assign(new Error('You have an error in your SQL syntax'), { code: 'ER_PARSE_ERROR' }), 'InternalServerError', 500],
  ];
  for (const [name, err, code, status] of table) {
    it(`${name} -> ${status} ${code}, driver text kept off the message`, () => {
      const translated = translateDbError(err);
      expect([translated.code, translated.status, translated.cause]).to.deep.equal([code, status, err]);
      expect(translated.message).not.to.include((err as Error).message);
    });
  }
});
