// The bench's scripts are plain JavaScript that only `make bench` runs: a name one of them
// uses but never imports or declares would surface minutes into a run. The compiler, reading
// them as JavaScript, finds each such name.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const bench = path.join(root, 'scripts/bench');
// Cannot find name; no value in scope for a shorthand property; cannot find name, did you mean.
const unresolved = /error (TS2304|TS18004|TS2552):/;

describe('bench scripts', () => {
  it('use no name they neither import nor declare', function () {
    this.timeout(120_000);
    const files = fs.readdirSync(bench).filter((f) => f.endsWith('.mjs')).map((f) => path.join(bench, f));
    const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
    const r = spawnSync(process.execPath, [tsc, '--allowJs', '--checkJs', '--noEmit', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', ...files], { encoding: 'utf8', cwd: root });
    expect(r.error).to.equal(undefined);
    expect(r.stdout.split('\n').filter((l) => unresolved.test(l))).to.deep.equal([]);
  });
});
