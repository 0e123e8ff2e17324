// How `npm run load` words a row the database refused (src/db/driver-errors.ts rowRefusal,
// src/cli/load-writer.ts refusal): the driver errors of both engines, as each driver raises
// them, give one message without the driver's text. A real full disk of each engine is in
// test/db/operator-loading-disk-full.test.ts.
import { expect } from 'chai';
import { rowRefusal } from '../../src/db/driver-errors.js';
import { refusal } from '../../src/cli/load-writer.js';

const mysql = (errno: number, code: string, sqlMessage: string) => Object.assign(new Error(sqlMessage), { errno, code, sqlMessage });
const sqlite = (code: string, message: string) => Object.assign(new Error(message), { code });

const cases: Array<[string, { given: Error; want: string }]> = [
  ['MariaDB duplicate key', { given: mysql(1062, 'ER_DUP_ENTRY', "Duplicate entry '7' for key 'PRIMARY'"), want: 'duplicate' }],
  ['SQLite duplicate key', { given: sqlite('SQLITE_CONSTRAINT_PRIMARYKEY', 'UNIQUE constraint failed: soggetto_recapito.id'), want: 'duplicate' }],
  ['MariaDB missing parent', { given: mysql(1452, 'ER_NO_REFERENCED_ROW_2', 'Cannot add or update a child row'), want: 'foreign-key' }],
  ['SQLite missing parent', { given: sqlite('SQLITE_CONSTRAINT_FOREIGNKEY', 'FOREIGN KEY constraint failed'), want: 'foreign-key' }],
  ['InnoDB cannot grow a tablespace', { given: mysql(1114, 'ER_RECORD_FILE_FULL', "The table 'soggetto_recapito' is full"), want: 'disk-full' }],
  ['MariaDB disk full', { given: mysql(1021, 'ER_DISK_FULL', 'Disk full (./x); waiting for someone to free some space...'), want: 'disk-full' }],
  ['MariaDB write error 28', { given: mysql(3, 'ER_ERROR_ON_WRITE', "Error writing file './x' (Errcode: 28 \"No space left on device\")"), want: 'disk-full' }],
  ['SQLite disk full', { given: sqlite('SQLITE_FULL', 'database or disk is full'), want: 'disk-full' }],
  ['MariaDB value too long', { given: mysql(1406, 'ER_DATA_TOO_LONG', "Data too long for column 'recapito' at row 3"), want: 'too-long' }],
  ['anything else', { given: mysql(1205, 'ER_LOCK_WAIT_TIMEOUT', 'Lock wait timeout exceeded'), want: 'other' }],
];

describe('load: a refused row', () => {
  for (const [name, { given, want }] of cases) it(`${name} is ${want}`, () => expect(rowRefusal(given)).to.equal(want));

  it('names the line, tells a duplicate in the table from one earlier in the file, and never repeats the driver', async () => {
    const dup = mysql(1062, 'ER_DUP_ENTRY', "Duplicate entry '7' for key 'PRIMARY'");
    expect(await refusal(dup, 12, 7, async () => true)).to.deep.equal({ line: 12, message: 'id 7 is already in the table' });
    expect(await refusal(dup, 12, 7, async () => false)).to.deep.equal({ line: 12, message: 'id 7 appears earlier in this file' });
    expect(await refusal(mysql(1114, 'ER_RECORD_FILE_FULL', "The table 'x' is full"), 40, 1, async () => false)).to.deep.equal({ line: 40, message: "the database's disk is full; nothing was written" });
    expect(await refusal(mysql(1205, 'ER_LOCK_WAIT_TIMEOUT', 'Lock wait timeout exceeded'), 3, 1, async () => false)).to.deep.equal({ line: 3, message: 'refused by the database (ER_LOCK_WAIT_TIMEOUT)' });
  });
});
