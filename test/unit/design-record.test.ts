// The design record (spec/design.md) is the only document code may cite: every
// `design.md §N` in code, tests, scripts and the spec names a section that exists, every test
// file the record gives as proof exists, and nothing cites documents outside the repository.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const record = fs.readFileSync(path.join(root, 'spec/design.md'), 'utf8');
const sections = new Set([...record.matchAll(/^## (\d+)\. /gm)].map((m) => Number(m[1])));
const tracked = execFileSync('git', ['ls-files', 'src', 'test', 'scripts', 'spec', 'Makefile'], { cwd: root, encoding: 'utf8' })
  .split('\n').filter((f) => f && f !== 'spec/design.md' && f !== 'test/unit/design-record.test.ts' && fs.existsSync(path.join(root, f)));
const read = (f: string) => fs.readFileSync(path.join(root, f), 'utf8');

describe('design record', () => {
  it('has its thirteen sections, numbered in order', () => {
    expect([...sections]).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('every citation in the repository names a section that exists', () => {
    const broken: string[] = [];
    let citations = 0;
    for (const file of tracked) {
      for (const m of read(file).matchAll(/design\.md((?:,? ?§\d+)+)/g)) {
        for (const n of m[1]!.matchAll(/§(\d+)/g)) {
          citations++;
          if (!sections.has(Number(n[1]))) broken.push(`${file}: ${m[0]}`);
        }
      }
    }
    expect(broken).to.deep.equal([]);
    expect(citations, 'the code cites the record').to.be.greaterThan(80);
  });

  it('nothing cites a document outside the repository', () => {
    // The documents' names are capitalised; `decisions` is an ordinary word.
    const outside = tracked.filter((f) => /DECISIONS|STYLE §|STYLE\.md/.test(read(f)) || /seed[- ]?(spec|§)/i.test(read(f)));
    expect(outside).to.deep.equal([]);
  });

  it('every test the record gives as proof exists', () => {
    const proofs = [...record.matchAll(/`(test\/[\w/.-]+\.ts)`/g)].map((m) => m[1]!);
    expect(proofs.length).to.be.greaterThan(20);
    expect(proofs.filter((p) => !fs.existsSync(path.join(root, p)))).to.deep.equal([]);
  });
});
