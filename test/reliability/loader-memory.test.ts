// `npm run load` streams (design.md §8): its peak memory stays under one bound whatever the
// file's size. Two generated files, one five times the other, load under the same bound, on
// SQLite and on a private MariaDB; a loader that held the file (about 1 KB of memory a row
// when it did) passes 200 MB on the larger and fails here. The peak is the kernel's
// (getrusage ru_maxrss), which the command prints with its rows per second.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { rowSource } from '../../src/db/seed-bulk.js';
import { createTestDb } from '../support/db.js';
import { runCli } from '../support/run-cli.js';
import { PrivateMariaDb } from './support/private-mariadb.js';

// Measured 111–154 MB at 200,000 rows: FTS5 builds the substring index (design.md §8) in
// memory before it writes it, at the load's commit. A loader holding the file passes 200 MB.
const boundMb = 175;
const sizes = [40_000, 200_000];

/** A CSV of `rows` deterministic contacts with ids from `firstId`, written as a stream. */
async function generate(file: string, rows: number, firstId: number): Promise<void> {
  const source = rowSource('soggetto_recapito', 7, { id: firstId, soggettoId: 1 });
  const out = fs.createWriteStream(file);
  out.write(`${source.columns.join(',')}\n`);
  let text = '';
  for (let i = 0; i < rows; i++) {
    text += `${source.next().map((v) => (v === null ? '' : typeof v === 'string' && /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : String(v))).join(',')}\n`;
    if (text.length > 1 << 16) {
      if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      text = '';
    }
  }
  await new Promise((resolve) => out.end(text, () => resolve(undefined)));
}

for (const dialect of ['sqlite', 'mysql'] as const) {
  describe(`operator loading: memory [${dialect}]`, function () {
    this.timeout(300_000);
    let dir: string;
    let server: PrivateMariaDb | undefined;
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-load-mem-'));
      if (dialect === 'mysql') {
        server = await PrivateMariaDb.create();
        await server.start();
      }
    });
    after(async () => {
      await server?.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it(`loads ${sizes.join(' and ')} rows each under ${boundMb} MB of peak memory`, async () => {
      const peaks: number[] = [];
      for (const rows of sizes) {
        // Each file into an empty table of its own: the loader's memory is the question, not the server's upkeep of indexes.
        const target = await createTestDb(dialect, server ? { server: `${server.url}/mysql` } : {});
        try {
          const file = path.join(dir, `recapiti-${rows}.csv`);
          await generate(file, rows, 1);
          const env: Record<string, string> = target.databaseUrl ? { DATABASE_URL: target.databaseUrl } : { SQLITE_FILE: target.sqliteFile! };
          const r = await runCli('load', ['soggetto_recapito', file, '--progress-every', '600'], env);
          expect([r.code, r.stderr]).to.deep.equal([0, '']);
          const summary = new RegExp(`^${rows} rows loaded into soggetto_recapito in [\\d.]+ s: \\d+ rows/s, peak memory (\\d+) MB$`, 'm').exec(r.stdout);
          expect(summary, r.stdout).to.not.equal(null);
          peaks.push(Number(summary![1]));
          fs.rmSync(file);
          const count = await target.knex('soggetto_recapito').count({ n: '*' }).first();
          expect(Number(count?.['n'])).to.equal(rows);
        } finally {
          await target.drop();
        }
      }
      expect(peaks.every((mb) => mb < boundMb), `peaks ${peaks.join(', ')} MB`).to.equal(true);
    });
  });
}
