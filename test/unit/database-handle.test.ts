// One handle per database (design.md §8, src/db/database.ts): connect() returns what a
// request needs of its database in one object, the dialect known from what it was given,
// and what a module builds once per database hangs off that handle; nothing in src/ keeps
// a table keyed by a Knex instance or tells the engines apart by what Knex renders.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { connect, disconnect } from '../../src/db/connect.js';
import { partOf, perDatabase } from '../../src/db/database.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const code = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'src'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f.endsWith('.ts') && fs.existsSync(path.join(root, f)));

describe('one handle per database', () => {
  it('keeps no table keyed by a Knex instance and probes no dialect', () => {
    // Assembled from its parts, so that this file holds none of the forms it looks for.
    const sideTable = new RegExp(['(?:Weak)?Map<', 'Knex\\b|\\bdialect', 'Of\\('].join(''));
    const found = code.filter((f) => sideTable.test(fs.readFileSync(path.join(root, f), 'utf8')));
    expect(code.length).to.be.greaterThan(100);
    expect(found).to.deep.equal([]);
  });

  it('knows its dialect from what connect() was given, and builds each part once per handle', async () => {
    const a = connect({ sqliteFile: ':memory:' });
    const b = connect({ sqliteFile: ':memory:' });
    try {
      expect([a.dialect, b.dialect]).to.deep.equal(['sqlite', 'sqlite']);
      let built = 0;
      const part = perDatabase((database) => ({ n: ++built, knex: database.knex }));
      expect(partOf(a, part)).to.equal(partOf(a, part));
      expect(partOf(a, part).knex).to.equal(a.knex);
      expect(partOf(b, part)).to.not.equal(partOf(a, part));
      expect(built).to.equal(2);
    } finally {
      await Promise.all([disconnect(a), disconnect(b)]);
    }
  });
});
