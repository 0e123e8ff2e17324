// Before a timed start the bench reads the code the start loads into the page cache
// (scripts/bench/processes.mjs), since this machine pages out file pages idle for a
// minute. Counted with the process's own read counter (/proc/self/io rchar), which counts
// every byte read, from the cache or the disk. Run in a child process, because
// processes.mjs installs its own signal handlers.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const processes = new URL(`file://${path.join(root, 'scripts/bench/processes.mjs')}`).href;

/** Bytes warmPageCache read over `dirs`, beyond node's own binary. */
function bytesWarmed(dirs: string[]): number {
  const script = `
    import fs from 'node:fs';
    import { warmPageCache } from ${JSON.stringify(processes)};
    const rchar = () => Number(/rchar:\\s+(\\d+)/.exec(fs.readFileSync('/proc/self/io', 'utf8'))[1]);
    const before = rchar();
    warmPageCache(${JSON.stringify(dirs)});
    const after = rchar();
    // The second reading of /proc/self/io is itself counted: read its size once more to subtract it.
    const probe = fs.readFileSync('/proc/self/io').length;
    console.log(after - before - probe - fs.statSync(process.execPath).size);`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(r.status, r.stderr).to.equal(0);
  return Number(r.stdout.trim());
}

describe('bench: the code a timed start loads is read into the page cache first', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-warm-'));
    fs.mkdirSync(path.join(dir, 'pkg/lib'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'a.js'), 'x'.repeat(1000));
    fs.writeFileSync(path.join(dir, 'pkg/package.json'), 'x'.repeat(2000));
    fs.writeFileSync(path.join(dir, 'pkg/lib/b.mjs'), 'x'.repeat(300));
    fs.writeFileSync(path.join(dir, 'pkg/lib/c.cjs'), 'x'.repeat(200));
    fs.writeFileSync(path.join(dir, 'pkg/lib/addon.node'), 'x'.repeat(50));
    fs.writeFileSync(path.join(dir, 'pkg/README.md'), 'x'.repeat(4000));
    fs.writeFileSync(path.join(dir, 'data.sqlite'), 'x'.repeat(8000));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads every code file under the directories, however deep, and nothing else', function () {
    this.timeout(30_000);
    expect(bytesWarmed([dir])).to.be.within(3550 - 32, 3550 + 32);
  });

  it('skips a directory that does not exist', function () {
    this.timeout(30_000);
    expect(bytesWarmed([path.join(dir, 'missing'), path.join(dir, 'pkg/lib')])).to.be.within(550 - 32, 550 + 32);
  });
});
