// The hashing bound: at most HASH_CONCURRENCY run, at most HASH_QUEUE wait, then 503.
import { expect } from 'chai';
import { limitHasher, type PasswordHasher } from '../../src/auth/password-hasher.js';
import { createSemaphore, QueueFullError } from '../../src/auth/semaphore.js';
import { ApiError } from '../../src/errors/api-error.js';

/** A hasher whose calls finish only when the test says so. */
function gatedHasher() {
  const gates: Array<() => void> = [];
  let running = 0;
  let peak = 0;
  const gated = async <T>(value: T) => {
    running++;
    peak = Math.max(peak, running);
    await new Promise<void>((resolve) => gates.push(resolve));
    running--;
    return value;
  };
  const hasher: PasswordHasher = { hash: (p) => gated(`h:${p}`), verify: (h, p) => gated(h === `h:${p}`) };
  const openAll = async () => {
    while (gates.length > 0) {
      gates.shift()!();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { hasher, openAll, peak: () => peak };
}

describe('auth semaphore', () => {
  it('runs at most `concurrency` tasks and hands slots to waiters in order', async () => {
    const s = createSemaphore(2, 10);
    const order: number[] = [];
    const gates: Array<() => void> = [];
    const tasks = [0, 1, 2, 3].map((i) => s.run(async () => { order.push(i); await new Promise<void>((r) => gates.push(r)); }));
    await new Promise((r) => setImmediate(r));
    expect([s.active, s.waiting]).to.deep.equal([2, 2]);
    while (gates.length) { gates.shift()!(); await new Promise((r) => setImmediate(r)); }
    await Promise.all(tasks);
    expect(order).to.deep.equal([0, 1, 2, 3]);
    expect([s.active, s.waiting]).to.deep.equal([0, 0]);
  });

  it('refuses beyond the waiting line and frees a slot when a task throws', async () => {
    const s = createSemaphore(1, 1);
    let release!: () => void;
    const first = s.run(() => new Promise<void>((r) => (release = r)));
    const second = s.run(async () => { throw new Error('boom'); });
    await new Promise((r) => setImmediate(r));
    await s.run(async () => 1).then(() => expect.fail('should be refused'), (e) => expect(e).to.be.instanceOf(QueueFullError));
    release();
    await first;
    await second.then(() => expect.fail('should reject'), (e) => expect((e as Error).message).to.equal('boom'));
    expect(await s.run(async () => 42)).to.equal(42);
  });

  it('answers 503 ServiceUnavailable with Retry-After when the hash queue is full', async () => {
    const g = gatedHasher();
    const hasher = limitHasher(g.hasher, 2, 3);
    const accepted = [1, 2, 3, 4, 5].map((i) => hasher.hash(`pw${i}`));
    await new Promise((r) => setImmediate(r));
    const refused = await hasher.verify('x', 'y').then(() => undefined, (e: unknown) => e);
    expect(refused).to.be.instanceOf(ApiError);
    expect((refused as ApiError).status).to.equal(503);
    expect((refused as ApiError).code).to.equal('ServiceUnavailable');
    expect((refused as ApiError).headers).to.have.property('Retry-After');
    await g.openAll();
    expect(await Promise.all(accepted)).to.deep.equal(['h:pw1', 'h:pw2', 'h:pw3', 'h:pw4', 'h:pw5']);
    expect(g.peak()).to.equal(2);
  });
});
