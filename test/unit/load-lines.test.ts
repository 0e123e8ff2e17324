// The first stage of `npm run load` (src/cli/load-lines.ts) sees the file in chunks cut
// anywhere, also inside a multi-byte character or a byte order mark: whatever the cut, the
// same bytes come out (less a UTF-8 BOM), or the same problem on the same line.
import { expect } from 'chai';
import { Readable } from 'node:stream';
import { LineGuard } from '../../src/cli/load-lines.js';
import { LoadStop } from '../../src/cli/load-problem.js';

async function through(bytes: Buffer, chunk: number, maxLineBytes = 64): Promise<{ out: string; lines: number; endsWithNewline: boolean } | string> {
  const pieces = [];
  for (let i = 0; i < bytes.length; i += chunk) pieces.push(bytes.subarray(i, i + chunk));
  const guard = new LineGuard(maxLineBytes);
  const out: Buffer[] = [];
  try {
    for await (const b of Readable.from(pieces).pipe(guard) as AsyncIterable<Buffer>) out.push(b);
  } catch (err) {
    if (err instanceof LoadStop) return `${err.problem.line}: ${err.problem.message.split(':')[0]}`;
    throw err;
  }
  return { out: Buffer.concat(out).toString('utf8'), lines: guard.lines, endsWithNewline: guard.endsWithNewline };
}

const utf8 = (s: string) => Buffer.from(s, 'utf8');
const cases: Array<[string, { given: Buffer; want: ReturnType<typeof through> extends Promise<infer T> ? T : never }]> = [
  ['plain lines', { given: utf8('a,b\nc,d\n'), want: { out: 'a,b\nc,d\n', lines: 2, endsWithNewline: true } }],
  ['accents and emoji', { given: utf8('città\n😀,è\n'), want: { out: 'città\n😀,è\n', lines: 2, endsWithNewline: true } }],
  ['a UTF-8 byte order mark', { given: utf8('\uFEFFid\n1\n'), want: { out: 'id\n1\n', lines: 2, endsWithNewline: true } }],
  ['no line break at the end', { given: utf8('id\n1'), want: { out: 'id\n1', lines: 1, endsWithNewline: false } }],
  ['a Latin-1 byte on line 3', { given: Buffer.concat([utf8('a\nb\nc'), Buffer.from([0xe0]), utf8('\nd\n')]), want: '3: not UTF-8' }],
  ['a truncated sequence at the end', { given: Buffer.concat([utf8('a\nb'), Buffer.from([0xe2, 0x82])]), want: '2: not UTF-8' }],
  ['a UTF-16 byte order mark', { given: Buffer.from([0xff, 0xfe, 0x61, 0x00]), want: '1: not UTF-8' }],
  ['a line over the bound', { given: utf8(`a\n${'x'.repeat(65)}\nb\n`), want: '2: a line longer than 64 bytes, the bound on one row' }],
  ['a last line over the bound', { given: utf8(`a\nb\n${'x'.repeat(200)}`), want: '3: a line longer than 64 bytes, the bound on one row' }],
];

describe('load: the line guard', () => {
  for (const [name, { given, want }] of cases) {
    it(`${name}, in chunks of 1, 2, 3, 7 and all bytes`, async () => {
      for (const chunk of [1, 2, 3, 7, given.length]) expect(await through(given, chunk), `chunks of ${chunk}`).to.deep.equal(want);
    });
  }
});
