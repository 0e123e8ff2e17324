// Duplicate-key errors of both drivers, as they are raised, are recognised and named.
import { expect } from 'chai';
import { lostNode, mayRunAgain, noConnectionInTime, translateDbError, uniqueViolation, violates } from '../../src/db/driver-errors.js';

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

describe('driver errors: writes that may run again', () => {
  const e = (props: Record<string, unknown>) => Object.assign(new Error('x'), props);
  // [what, error, before COMMIT was sent, after it]
  const table: Array<[string, unknown, boolean, boolean]> = [
    ['a deadlock victim', e({ code: 'ER_LOCK_DEADLOCK', errno: 1213 }), true, true],
    ["Galera's certification conflict (errno only)", e({ errno: 1213 }), true, true],
    ['a lock wait given up', e({ code: 'ER_LOCK_WAIT_TIMEOUT', errno: 1205 }), true, true],
    ['SQLite busy', e({ code: 'SQLITE_BUSY' }), true, true],
    ['a commit a Galera node could not replicate (no primary component)', e({ code: 'ER_ERROR_DURING_COMMIT', errno: 1180 }), true, true],
    ['a lost connection', e({ code: 'PROTOCOL_CONNECTION_LOST', fatal: true }), true, false],
    ['a reset connection', e({ code: 'ECONNRESET', errno: -104 }), true, false],
    ['a node outside the primary component', e({ code: 'ER_UNKNOWN_COM_ERROR', errno: 1047 }), true, false],
    ['a server shutting down', e({ code: 'ER_SERVER_SHUTDOWN', errno: 1053 }), true, false],
    ['any fatal driver error', e({ fatal: true }), true, false],
    ['a unique violation', e({ code: 'ER_DUP_ENTRY', errno: 1062 }), false, false],
    ['a syntax error (a bug)', e({ code: 'ER_PARSE_ERROR', errno: 1064 }), false, false],
    ['a plain error', new Error('boom'), false, false],
  ];
  for (const [name, err, before, after] of table) {
    it(`${name}: ${before ? 'runs again' : 'answered'} before COMMIT, ${after ? 'runs again' : 'answered'} after`, () => {
      expect([mayRunAgain(err, false), mayRunAgain(err, true)]).to.deep.equal([before, after]);
    });
  }
});

describe('driver errors: a read that may go to another node', () => {
  const e = (props: Record<string, unknown>) => Object.assign(new Error('x'), props);
  it('knows a lost node and a wait in vain for a connection, also behind the ApiError they were answered as', () => {
    const cases = [e({ code: 'ECONNRESET' }), e({ code: 'ECONNREFUSED' }), e({ code: 'ER_UNKNOWN_COM_ERROR', errno: 1047 }), e({ code: 'POOL_ACQUIRE_TIMEOUT' }), e({ code: 'ER_PARSE_ERROR' })];
    const seen = (f: (x: unknown) => boolean) => cases.map((c) => [f(c), f(translateDbError(c))]);
    expect(seen(lostNode)).to.deep.equal([[true, true], [true, true], [true, true], [false, false], [false, false]]);
    expect(seen(noConnectionInTime)).to.deep.equal([[false, false], [false, false], [false, false], [true, true], [false, false]]);
  });
});

describe('driver errors: translation', () => {
  const table: Array<[string, unknown, string, number]> = [
    ['MariaDB statement timeout', Object.assign(new Error('max_statement_time exceeded'), { errno: 1969 }), 'QueryTimeout', 503],
    ['refused connection', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 'ServiceUnavailable', 503],
    ['lost connection', Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST' }), 'ServiceUnavailable', 503],
    ['a Galera node outside the primary component', Object.assign(new Error('WSREP has not yet prepared node for application use'), { code: 'ER_UNKNOWN_COM_ERROR', errno: 1047 }), 'ServiceUnavailable', 503],
    ['a commit a Galera node could not replicate', Object.assign(new Error('Error while appending streaming replication fragment'), { code: 'ER_ERROR_DURING_COMMIT', errno: 1180 }), 'ServiceUnavailable', 503],
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
