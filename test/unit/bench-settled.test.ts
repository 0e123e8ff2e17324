// The bench times a start only once the service started before it has settled
// (scripts/bench/processes.mjs): the wait must outlast the second after /ready at which a
// service begins compiling its validators (src/http/validate-request.ts), and must not end
// while a process still burns CPU. Run in a child process, because processes.mjs installs
// its own signal handlers.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const processes = new URL(`file://${path.join(root, 'scripts/bench/processes.mjs')}`).href;

/** Milliseconds `settled` waited on a child that burns CPU for `burnMs`, then idles. */
function waitedOn(burnMs: number): number {
  const script = `
    import { spawn } from 'node:child_process';
    import { settled } from ${JSON.stringify(processes)};
    const child = spawn(process.execPath, ['-e', 'const end = Date.now() + ${burnMs}; while (Date.now() < end); setTimeout(() => {}, 30000)']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = performance.now();
    await settled(child.pid);
    console.log(Math.round(performance.now() - started));
    child.kill();`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(r.status, r.stderr).to.equal(0);
  return Number(r.stdout.trim());
}

describe('bench: a start waits for the service before it to settle', () => {
  it('waits longer than the second after which a service compiles its validators', function () {
    this.timeout(30_000);
    expect(waitedOn(0)).to.be.at.least(1000);
  });

  it('does not end while the process still uses CPU', function () {
    this.timeout(30_000);
    // Spawned 200 ms before the wait begins, the child burns for about 1.3 s more.
    expect(waitedOn(1500)).to.be.at.least(1000 + 1200);
  });
});
