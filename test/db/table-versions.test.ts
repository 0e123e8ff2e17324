// Table versions (design.md §8, "Table versions"): every write path moves the version of the
// table it writes, so the entity tag of a query of that table changes — Knex's writes, a
// migration, the loader (which moves it once, and leaves the triggers as they were), `db sql
// --write`, the bulk seed, a restore of the SQLite file, an operator's own SQL and a dump restored on
// MariaDB — and the lookup the tags cost is one primary-key read on both engines.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import mysql from 'mysql2/promise';
import { queryDtos } from '../../generated/query-catalog.js';
import { loadConfig } from '../../src/config.js';
import { connect, disconnect } from '../../src/db/connect.js';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import * as tableVersionsMigration from '../../src/db/migrations/007-table-versions.js';
import { primaryOnly } from '../../src/db/reads/replicas.js';
import { seedBulk } from '../../src/db/seed-bulk.js';
import { triggerNames, versionedTables } from '../../src/db/table-versions/table-versions.js';
import { createQueryHandlers } from '../../src/handlers/query-handlers.js';
import type { OperationRequest } from '../../src/http/operation.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect, mysqlTestUrl } from '../support/dialects.js';
import { runCli } from '../support/run-cli.js';

const config = loadConfig({});
const request = { operationId: 'SoggettoRecapitoQueryGet', dto: { soggettoIdIn: [1, 2] }, fieldErrors: [], principal: null, bearer: () => null, clientIp: '127.0.0.1', format: 'json', nextPageUrl: () => undefined, announce: () => {} } as OperationRequest;

/** The ETag of one query of soggetto_recapito, as the handler answers it. */
async function tagOf(db: Database): Promise<string> {
  const answer = await createQueryHandlers({ reads: primaryOnly(db), config }).SoggettoRecapitoQueryGet(request as never);
  return answer.headers!['ETag']!;
}

const contact = (id: number) => ({ id, soggetto_id: 1 + (id % 2), tipo_recapito_id: 1, recapito: `c${id}@pec.it`, codice_esterno: null });

async function triggersOf({ knex: db, dialect }: Database): Promise<string[]> {
  const rows = dialect === 'mysql'
    ? ((await db.raw('SELECT TRIGGER_NAME AS name FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()')) as [Array<{ name: string }>])[0]
    : ((await db.raw("SELECT name FROM sqlite_master WHERE type = 'trigger'")) as Array<{ name: string }>);
  // The versions' own: the substring index keeps triggers of its own on the same tables.
  return rows.map((r) => r.name).filter((n) => n.startsWith('tv_')).sort();
}

const allTriggers = versionedTables.flatMap(triggerNames).sort();

forEachDialect('table versions', (dialect) => {
  let t: TestDb;
  let env: Record<string, string>;
  let dir: string;
  before(async () => {
    t = await createTestDb(dialect);
    env = t.sqliteFile ? { SQLITE_FILE: t.sqliteFile } : { DATABASE_URL: t.databaseUrl! };
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-versions-'));
    await t.knex('soggetto_recapito').insert([1, 2, 3].map(contact));
  });
  after(async () => {
    await t.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `write` and expects the tag to change, and to stay put on a read after it. */
  async function expectNewTag(write: () => Promise<unknown>): Promise<void> {
    const before = await tagOf(t.db);
    expect(await tagOf(t.db), 'no write, same tag').to.equal(before);
    await write();
    expect(await tagOf(t.db)).to.not.equal(before);
  }

  it('has the three triggers on every versioned table, and versions every query table of the catalog', async () => {
    expect(await triggersOf(t.db)).to.deep.equal(allTriggers);
    for (const dto of Object.values(queryDtos)) expect(versionedTables as readonly string[]).to.include(dto.table);
  });

  it('reads the versions by the primary key', async () => {
    const sql = "SELECT table_name, version FROM table_versions WHERE table_name IN ('soggetto_recapito') ORDER BY table_name";
    if (dialect === 'mysql') {
      const [plan] = ((await t.knex.raw(`EXPLAIN ${sql}`)) as [Array<{ key: string; type: string }>])[0];
      expect([plan!.key, plan!.type]).to.deep.equal(['PRIMARY', 'const']);
    } else {
      const plan = ((await t.knex.raw(`EXPLAIN QUERY PLAN ${sql}`)) as Array<{ detail: string }>).map((r) => r.detail);
      expect(plan).to.deep.equal(['SEARCH table_versions USING INDEX sqlite_autoindex_table_versions_1 (table_name=?)']);
    }
  });

  it("moves on Knex's inserts, updates and deletes, and not on another table's writes", async () => {
    await expectNewTag(() => t.knex('soggetto_recapito').insert(contact(4)));
    await expectNewTag(() => t.knex('soggetto_recapito').where({ id: 4 }).update({ recapito: 'nuovo@pec.it' }));
    await expectNewTag(() => t.knex('soggetto_recapito').where({ id: 4 }).delete());
    const before = await tagOf(t.db);
    await t.knex('caratteristica_gruppo').insert({ id: 1, descrizione: 'altro', tipo_caratteristica_sezione_id: 1, is_disattiva: false, icona_immagine_id: 1, ordine_vista: 1 });
    expect(await tagOf(t.db)).to.equal(before);
  });

  it('moves when a migration runs, and the migration creates the triggers again after its down()', async () => {
    await expectNewTag(async () => {
      await tableVersionsMigration.down(t.knex);
      expect(await triggersOf(t.db)).to.deep.equal([]);
      await t.knex('knex_migrations').where({ name: tableVersionsMigration.name }).delete();
      await migrate(t.db);
    });
    expect(await triggersOf(t.db)).to.deep.equal(allTriggers);
  });

  it('moves on a load, keeps the triggers, and leaves both as they were after a refused load', async () => {
    const good = path.join(dir, 'good.csv');
    fs.writeFileSync(good, 'id,soggetto_id,tipo_recapito_id,recapito\n10,1,1,a@pec.it\n11,2,1,b@pec.it\n');
    await expectNewTag(async () => expect((await runCli('load', ['soggetto_recapito', good], env)).code).to.equal(0));
    expect(await triggersOf(t.db)).to.deep.equal(allTriggers);
    const bad = path.join(dir, 'bad.csv');
    fs.writeFileSync(bad, 'id,soggetto_id,tipo_recapito_id,recapito\n12,1,1,c@pec.it\n10,1,1,dup@pec.it\n');
    const before = await tagOf(t.db);
    expect((await runCli('load', ['soggetto_recapito', bad], env)).code).to.equal(1);
    expect(await tagOf(t.db)).to.equal(before);
    expect(await triggersOf(t.db)).to.deep.equal(allTriggers);
    // Later writes move it row by row again: the loader's deferral ended with it.
    await expectNewTag(() => t.knex('soggetto_recapito').insert(contact(13)));
  });

  it('moves on the bulk seed, once per transaction, and leaves the triggers and the session as they were', async () => {
    await expectNewTag(() => seedBulk(t.db, { rows: 300, table: 'soggetto_recapito', batchRows: 100, batchesPerTransaction: 1 }));
    expect(await triggersOf(t.db)).to.deep.equal(allTriggers);
    // Every pooled connection the seed used moves the version again for the next write.
    for (let i = 0; i < 4; i++) await expectNewTag(() => t.knex('soggetto_recapito').insert(contact(100_000 + i)));
  });

  if (dialect === 'sqlite') {
    it('moves on db sql --write', async () => {
      await expectNewTag(async () => {
        const run = await runCli('db', ['sql', '--write'], env, "UPDATE soggetto_recapito SET recapito = 'sql@pec.it' WHERE id = 1;\n");
        expect([run.code, run.stderr]).to.deep.equal([0, '']);
      });
    });

    it('moves on a restore: no tag from before it matches after it, not even the backup\'s own', async () => {
      const backup = path.join(dir, 'backup.sqlite');
      const atBackup = await tagOf(t.db);
      expect((await runCli('backup', [backup], env)).code).to.equal(0);
      await t.knex('soggetto_recapito').insert(contact(200_020));
      const beforeRestore = await tagOf(t.db);
      // restore refuses while a connection holds the file: this suite's own first.
      await disconnect(t.db);
      const run = await runCli('restore', [backup], env);
      expect([run.code, run.stderr]).to.deep.equal([0, '']);
      const restored = connect({ sqliteFile: t.sqliteFile! });
      try {
        const after = await tagOf(restored);
        expect(after).to.not.equal(atBackup);
        expect(after).to.not.equal(beforeRestore);
        expect(await restored.knex('soggetto_recapito').where({ id: 200_020 }).first()).to.equal(undefined);
      } finally {
        await disconnect(restored);
      }
      const reopened = connect({ sqliteFile: t.sqliteFile! });
      t = { ...t, db: reopened, knex: reopened.knex };
    });
  }

  if (dialect === 'mysql') {
    it("moves on an operator's own SQL through a plain mysql2 connection", async () => {
      const conn = await mysql.createConnection(t.databaseUrl!);
      try {
        await expectNewTag(() => conn.query("INSERT INTO soggetto_recapito (id, soggetto_id, tipo_recapito_id, recapito) VALUES (200030, 1, 1, 'op@pec.it')"));
        await expectNewTag(() => conn.query("UPDATE soggetto_recapito SET recapito = 'op2@pec.it' WHERE id = 200030"));
        await expectNewTag(() => conn.query('REPLACE INTO soggetto_recapito (id, soggetto_id, tipo_recapito_id, recapito) VALUES (200030, 2, 1, "op3@pec.it")'));
        await expectNewTag(() => conn.query('DELETE FROM soggetto_recapito WHERE id = 200030'));
      } finally {
        await conn.end();
      }
    });

    it('gives a dump restored into a new database the tag of the dumped rows, and a new one after its first write', async () => {
      const atDump = await tagOf(t.db);
      const database = new URL(t.databaseUrl!).pathname.slice(1);
      const server = new URL(mysqlTestUrl);
      const client = ['-h', server.hostname, '-P', server.port || '3306', '-u', decodeURIComponent(server.username || 'root')];
      const dump = spawnSync('mariadb-dump', [...client, '--single-transaction', '--routines', '--triggers', database], { encoding: 'utf8', maxBuffer: 64 << 20 });
      expect(dump.status, dump.stderr).to.equal(0);
      await t.knex('soggetto_recapito').insert(contact(200_040));
      const copyName = `${database}_r`;
      const admin = connect({ databaseUrl: mysqlTestUrl, poolMax: 1 });
      try {
        await admin.knex.raw('CREATE DATABASE ?? CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci', [copyName]);
        const load = spawnSync('mariadb', [...client, copyName], { input: dump.stdout, encoding: 'utf8' });
        expect(load.status, load.stderr).to.equal(0);
        const url = new URL(t.databaseUrl!);
        url.pathname = `/${copyName}`;
        const copy = connect({ databaseUrl: url.toString() });
        try {
          // The same rows at the same versions: the client's copy of them is current.
          expect(await tagOf(copy)).to.equal(atDump);
          expect(await tagOf(copy)).to.not.equal(await tagOf(t.db));
          await copy.knex('soggetto_recapito').insert(contact(200_041));
          const written = await tagOf(copy);
          expect([atDump, await tagOf(t.db)]).to.not.include(written);
        } finally {
          await disconnect(copy);
        }
      } finally {
        await admin.knex.raw('DROP DATABASE IF EXISTS ??', [copyName]);
        await disconnect(admin);
      }
    });
  }
});
