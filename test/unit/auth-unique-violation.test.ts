// Duplicate-key errors of both drivers, as they are raised, are recognised and named.
import { expect } from 'chai';
import { uniqueViolation, violates } from '../../src/auth/unique-violation.js';

const mysql = (key: string) => Object.assign(new Error(`insert into app_user ... - Duplicate entry 'mario' for key '${key}'`), { code: 'ER_DUP_ENTRY', errno: 1062, sqlMessage: `Duplicate entry 'mario' for key '${key}'` });
const sqlite = (target: string, code = 'SQLITE_CONSTRAINT_UNIQUE') => Object.assign(new Error(`insert into app_user ... - UNIQUE constraint failed: ${target}`), { code });

describe('auth unique violation', () => {
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
