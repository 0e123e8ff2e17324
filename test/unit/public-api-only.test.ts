// Every library is used through its public API (design.md §8): no code in src/ reaches into
// Knex's client (its pool, its driver, its configuration), tarn's waiting line, an
// identifier Knex keeps on its connections, a member a library marks private with `_`, or
// assigns to a library object's members (Knex instances, their transactions, prototypes).
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const code = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'src'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => /\.(ts|mts|mjs|js)$/.test(f) && fs.existsSync(path.join(root, f)));

/** What private access looks like in a line of code, by what it reaches. */
const privateAccess: ReadonlyArray<[string, RegExp]> = [
  ["Knex's pool", /\.client\.pool\b/],
  ["Knex's driver", /\.client\.driver\b/],
  ["Knex's client configuration", /\.client\.config\b/],
  ["Knex's client, cast to reach its members", /\.client\s+as\b/],
  ["Knex's connection handling", /\.(acquire|release)Connection\(/],
  ["an id Knex keeps on a connection", /__knex/],
  ["tarn's waiting line", /\bpendingAcquires\b/],
  ['a member marked private', /[\w$)\]]\._[A-Za-z]\w*/],
  ['a prototype', /\.prototype\.[\w$]+\s*=[^=]/],
  ['a property defined on an object', /\bObject\.defineProperty\(/],
  ["a Knex instance's member", /\b(db|knex|trx)\.[\w$]+\s*=[^=>]/],
];

const offences = (line: string): string[] => privateAccess.filter(([, re]) => re.test(line)).map(([what]) => what);

describe('libraries through their public API only', () => {
  // Each form, assembled from its parts so that this file holds none of them as code.
  const cases: Array<[string, boolean]> = [
    [`const pool = (db.client as { pool: unknown }).pool;`, true],
    [['const pool = db', 'client', 'pool;'].join('.'), true],
    [['const Driver = db', 'client', 'driver;'].join('.'), true],
    [['const conn = await db', 'client', 'acquireConnection();'].join('.'), true],
    [`emit('query', { ${['__', 'knexUid'].join('')}: conn.id });`, true],
    [`for (const w of pool.${['pending', 'Acquires'].join('')}) w.reject(err);`, true],
    [`conn.${['_', 'released'].join('')} = false;`, true],
    [`db.${'client'} = other;`, true],
    [`res.statusCode = 200;`, false],
    [`const done = db === other;`, false],
  ];
  for (const [line, flagged] of cases) {
    it(`${flagged ? 'flags' : 'passes'}: ${line}`, () => expect(offences(line).length > 0).to.equal(flagged));
  }

  it('no line of src/ reaches into a library', () => {
    const found: string[] = [];
    for (const file of code) {
      fs.readFileSync(path.join(root, file), 'utf8').split('\n').forEach((line, i) => {
        const what = offences(line);
        if (what.length > 0) found.push(`${file}:${i + 1} (${what.join(', ')}): ${line.trim()}`);
      });
    }
    expect(code.length).to.be.greaterThan(100);
    expect(found).to.deep.equal([]);
  });
});
