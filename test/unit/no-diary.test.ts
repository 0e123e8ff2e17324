// Comments in code say why in the present tense (design.md §0): none in src/ or scripts/
// cites a dated entry or a numbered session of the bench's history, or sends the reader
// to the bench's README to learn why the code is as it is. History lives in git.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const code = execFileSync('git', ['ls-files', 'src', 'scripts'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => /\.(ts|mts|mjs|js|sh)$/.test(f) && fs.existsSync(path.join(root, f)));

const ordinal = '(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\\d+(?:st|nd|rd|th))';
/** What a citation of the bench's history looks like in a comment. */
const diary: readonly RegExp[] = [
  /scripts\/bench\/README/,
  new RegExp(`\\b${ordinal}[- ]session\\b`, 'i'),
  /\b20\d\d-\d\d-\d\d\s*[,;)"]/,
  /README,? "[^"]*\b20\d\d/,
];

/** The comment text of a line of code: after `//`, inside a block comment, or after a shell `#`. */
function commentOf(line: string, file: string): string | undefined {
  const t = line.trim();
  if (t.startsWith('*') || t.startsWith('/*')) return t;
  if (file.endsWith('.sh') && t.startsWith('#')) return t;
  const at = line.indexOf('// ');
  return at >= 0 && !line.slice(0, at).includes('://') ? line.slice(at) : t.startsWith('//') ? t : undefined;
}

const citesHistory = (comment: string) => diary.some((re) => re.test(comment));

describe('code without a diary', () => {
  // Each form the rule names, assembled from its parts so that this file holds no such comment.
  const day = ['2026', '11', '25'].join('-');
  const session = (nth: string) => [nth, 'session'].join(' ');
  const cases: Array<[string, boolean]> = [
    [`// see ${['scripts', 'bench', 'README.md'].join('/')}`, true],
    [`// measured (${day}, in the bench)`, true],
    [`// measured (README, "${day} figures")`, true],
    [`// as the ${session('eighth')} found`, true],
    [`// as the ${session('12th')} found`, true],
    ['/** 2026-11-20 10:15:30.000 — the text written for a Date on both engines. */', false],
    ['// Rejects 2026-02-30 and 25:00 instead of letting Date.UTC roll them over.', false],
    ['// revoking a revoked session changes nothing and still answers {}.', false],
  ];
  for (const [comment, cites] of cases) {
    it(`${cites ? 'flags' : 'passes'}: ${comment}`, () => expect(citesHistory(comment)).to.equal(cites));
  }

  it('no comment in src/ or scripts/ cites the bench\'s history', () => {
    const found: string[] = [];
    for (const file of code) {
      read(file).split('\n').forEach((line, i) => {
        const comment = commentOf(line, file);
        if (comment !== undefined && citesHistory(comment)) found.push(`${file}:${i + 1}: ${comment.trim()}`);
      });
    }
    expect(code.length).to.be.greaterThan(100);
    expect(found).to.deep.equal([]);
  });
});

function read(file: string): string {
  return fs.readFileSync(path.join(root, file), 'utf8');
}
