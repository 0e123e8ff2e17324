// `npm run load` streams (design.md §8): its peak memory stays under one bound whatever the
// file's size. Two generated files, one five times the other, load under the same bound; a
// loader that held the file (about 1 KB of memory a row when it did) passes 200 MB on the
// larger and fails here. The peak is the kernel's (getrusage ru_maxrss), which the command
// prints with its rows per second.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { rowSource } from '../../src/db/seed-bulk.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';
import { runCli } from '../support/run-cli.js';

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

forEachDialect('operator loading: memory', (dialect) => {
  let t: TestDb | undefined;
  let dir: string;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-load-mem-'));
  });
  after(async () => {
    await t?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`loads ${sizes.join(' and ')} rows each under ${boundMb} MB of peak memory`, async function () {
    this.timeout(120_000);
    const peaks: number[] = [];
    for (const rows of sizes) {
      // Each file into an empty table of its own: the loader's memory is the question, not the server's upkeep of indexes.
      await t?.drop();
      t = await createTestDb(dialect);
      const env: Record<string, string> = t.databaseUrl ? { DATABASE_URL: t.databaseUrl } : { SQLITE_FILE: t.sqliteFile! };
      const file = path.join(dir, `recapiti-${rows}.csv`);
      await generate(file, rows, 1);
      const r = await runCli('load', ['soggetto_recapito', file, '--progress-every', '600'], env);
      expect([r.code, r.stderr]).to.deep.equal([0, '']);
      const summary = new RegExp(`^${rows} rows loaded into soggetto_recapito in [\\d.]+ s: \\d+ rows/s, peak memory (\\d+) MB$`, 'm').exec(r.stdout);
      expect(summary, r.stdout).to.not.equal(null);
      peaks.push(Number(summary![1]));
      fs.rmSync(file);
      const count = await t.db('soggetto_recapito').count({ n: '*' }).first();
      expect(Number(count?.['n'])).to.equal(rows);
    }
    expect(peaks.every((mb) => mb < boundMb), `peaks ${peaks.join(', ')} MB`).to.equal(true);
  });
});
