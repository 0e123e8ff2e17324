// Password hashing in a child process at the lowest CPU priority (design.md §5): what it
// answers, that every thread of it runs at the lowest priority (SCHED_IDLE, else nice 19), that it survives the child's death,
// and that it neither outlives the service nor keeps the service's process alive.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import * as ScryptModule from 'scrypt-kdf';
import { createScryptHasher } from '../../src/auth/password-hasher.js';
import { ApiError } from '../../src/errors/api-error.js';
import { createProcessHasher, lowPriorityLauncher, type ProcessHasher } from '../../src/auth/process-hasher.js';
import { requireOfMachine } from '../support/machine.js';
import os from 'node:os';
import path from 'node:path';

const Scrypt = ((ScryptModule as unknown as { default?: typeof ScryptModule }).default ?? ScryptModule) as typeof ScryptModule;
const params = { logN: 4, r: 8, p: 1 };
const alive = (pid: number) => fs.existsSync(`/proc/${pid}`);
/** Field `n` (1-based, as in proc(5)) of /proc/<pid>/task/<tid>/stat, for each thread. */
const threadStat = (pid: number, n: number) =>
  fs.readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[n - 3]);
  });
const niceOf = (pid: number) => new Set(threadStat(pid, 19));
const policyOf = (pid: number) => new Set(threadStat(pid, 41));
const SCHED_OTHER = 0;
const SCHED_IDLE = 5;
const hasChrt = lowPriorityLauncher(process.env['PATH'])[0] === 'chrt';

describe('auth process hasher', function () {
  this.timeout(20_000);
  let hasher: ProcessHasher;
  beforeEach(() => {
    hasher = createProcessHasher(params, 2);
  });
  afterEach(() => hasher.close());

  it('hashes and verifies in a child process, in the same format as scrypt-kdf in-process', async () => {
    expect(hasher.pid).to.equal(undefined);
    const hash = await hasher.hash('correct-horse');
    expect(hasher.pid).to.be.a('number').and.not.equal(process.pid);
    expect(Scrypt.viewParams(hash)).to.deep.equal(params);
    expect(await Scrypt.verify(hash, 'correct-horse')).to.equal(true);
    const local = await createScryptHasher(params).hash('other-horse');
    expect(await hasher.verify(local, 'other-horse')).to.equal(true);
    expect(await hasher.verify(local, 'other-horsE')).to.equal(false);
    expect(await hasher.verify('not-a-scrypt-key', 'x')).to.equal(false);
  });

  it('runs every thread of the child under SCHED_IDLE, the libuv threads scrypt runs on included', async function () {
    requireOfMachine(fs.existsSync('/proc/self/task'), 'reading thread policies needs /proc (Linux)');
    requireOfMachine(hasChrt, 'chrt (util-linux) is not on the PATH');
    // Two hashes at once make the child start its thread pool.
    await Promise.all([hasher.hash('a-password'), hasher.hash('b-password')]);
    expect(threadStat(hasher.pid!, 41).length).to.be.greaterThan(2);
    expect(policyOf(hasher.pid!)).to.deep.equal(new Set([SCHED_IDLE]));
    expect(policyOf(process.pid)).to.deep.equal(new Set([SCHED_OTHER]));
  });

  it('falls back to nice 19 for every thread where chrt is missing', async function () {
    requireOfMachine(fs.existsSync('/proc/self/task'), 'reading thread priorities needs /proc (Linux)');
    const nice = ['/usr/bin/nice', '/bin/nice'].find((f) => fs.existsSync(f));
    requireOfMachine(nice !== undefined, 'nice (coreutils) is in neither /usr/bin nor /bin');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'no-chrt-'));
    fs.symlinkSync(nice!, path.join(dir, 'nice'));
    const saved = process.env['PATH'];
    process.env['PATH'] = dir;
    try {
      expect(lowPriorityLauncher(dir)).to.deep.equal(['nice', '-n', '19']);
      await Promise.all([hasher.hash('a-password'), hasher.hash('b-password')]);
    } finally {
      process.env['PATH'] = saved;
      fs.rmSync(dir, { recursive: true });
    }
    expect(threadStat(hasher.pid!, 19).length).to.be.greaterThan(2);
    expect(niceOf(hasher.pid!)).to.deep.equal(new Set([19]));
    expect(policyOf(hasher.pid!)).to.deep.equal(new Set([SCHED_OTHER]));
  });

  it("gives the child none of the service's environment (no secrets)", async function () {
    requireOfMachine(fs.existsSync('/proc/self/environ'), "reading the child's environment needs /proc (Linux)");
    process.env['HASHER_TEST_SECRET'] = 'not-for-the-child';
    try {
      await hasher.hash('y-password');
      const environ = fs.readFileSync(`/proc/${hasher.pid!}/environ`, 'utf8').split('\0').filter(Boolean);
      // Node adds NODE_CHANNEL_* for the IPC channel itself; glibc splits GLIBC_TUNABLES in place.
      const names = environ.map((kv) => kv.split('=')[0]!).filter((name) => !name.startsWith('NODE_CHANNEL_') && !name.startsWith('glibc.'));
      expect(names.sort()).to.deep.equal(['GLIBC_TUNABLES', 'PATH', 'UV_THREADPOOL_SIZE']);
      // One libuv thread per hash allowed at once (the hasher was made with 2).
      expect(environ).to.include('UV_THREADPOOL_SIZE=2');
    } finally {
      delete process.env['HASHER_TEST_SECRET'];
    }
  });

  it('fails the hash in flight with a 503 when the child dies, says why, and starts a new child for the next', async () => {
    await hasher.hash('warm-up');
    const first = hasher.pid!;
    const reasons: string[] = [];
    const slow = createProcessHasher({ logN: 16, r: 8, p: 4 }, 1, (reason) => reasons.push(reason));
    try {
      const inFlight = slow.hash('takes-a-while');
      await new Promise((resolve) => setTimeout(resolve, 300));
      process.kill(slow.pid!, 'SIGKILL');
      let failure: unknown;
      await inFlight.catch((err: unknown) => (failure = err));
      expect(failure).to.be.instanceOf(ApiError);
      expect((failure as ApiError).status).to.equal(503);
      expect(reasons).to.deep.equal(['password hashing process exited (SIGKILL) with 1 hashes in flight']);
      expect(slow.pid).to.equal(undefined);
    } finally {
      await slow.close();
    }
    process.kill(first, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const hash = await hasher.hash('after-the-death');
    expect(hasher.pid).to.be.a('number').and.not.equal(first);
    expect(await Scrypt.verify(hash, 'after-the-death')).to.equal(true);
  });

  it('stops the child on close(), and close() without a child resolves', async () => {
    await hasher.close();
    await hasher.hash('x-password');
    const pid = hasher.pid!;
    expect(alive(pid)).to.equal(true);
    await hasher.close();
    expect(hasher.pid).to.equal(undefined);
    expect(alive(pid)).to.equal(false);
  });

  it('never keeps the service process alive, and the child ends with it', async () => {
    const script = `
      import { createProcessHasher } from ${JSON.stringify(new URL('../../src/auth/process-hasher.js', import.meta.url).href)};
      const hasher = createProcessHasher(${JSON.stringify(params)}, 1);
      await hasher.hash('exit-by-itself');
      console.log(hasher.pid);`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { timeout: 10_000 });
    const child = Number(stdout.trim());
    expect(child).to.be.greaterThan(0);
    for (let i = 0; i < 50 && alive(child); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive(child)).to.equal(false);
  });
});
