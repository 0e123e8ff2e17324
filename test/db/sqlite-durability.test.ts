// The embedded SQLite file's durability settings (design.md §8): WAL, and synchronous FULL,
// so a commit the service acknowledged survives a crash of the process and of the machine.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, disconnect } from '../../src/db/connect.js';

describe('SQLite durability settings', () => {
  it('runs every pooled connection in WAL mode with synchronous FULL', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-durability-'));
    const db = connect({ sqliteFile: path.join(dir, 'd.sqlite') });
    try {
      const value = async (sql: string) => Object.values(((await db.knex.raw(sql)) as Array<Record<string, unknown>>)[0]!)[0];
      // 2 = FULL (1 would be NORMAL, which may lose the last commits on power loss).
      expect(await value('PRAGMA synchronous')).to.equal(2);
      expect(await value('PRAGMA journal_mode')).to.equal('wal');
    } finally {
      await disconnect(db);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
