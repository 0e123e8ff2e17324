// The seed of the random tests (test/support/property-seed.ts): printed on every run, the
// same values again under the printed seed, named in a failure; and no fast-check property
// in test/ runs without it.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { assertProperty, seededRandomOf } from '../support/property-seed.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
// A variable of this suite's own: a FC_SEED the caller set must not decide these checks.
const variable = 'PROPERTY_SEED_TEST';

/** What `work` prints with console.log, and what it returns. */
async function printed<T>(work: () => T | Promise<T>): Promise<{ lines: string[]; value: T }> {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => void lines.push(args.join(' '));
  try {
    return { lines, value: await work() };
  } finally {
    console.log = log;
  }
}

/** The integers a 20-run property draws, and the seed its run printed. */
async function drawnIntegers(): Promise<{ seed: string; values: number[] }> {
  const values: number[] = [];
  const { lines } = await printed(() => assertProperty(fc.property(fc.integer(), (v) => void values.push(v)), { numRuns: 20 }, variable));
  const seed = lines.map((l) => new RegExp(`${variable}=(-?\\d+)`).exec(l)?.[1]).find((s) => s !== undefined);
  expect(seed, `a printed ${variable}=<seed>: ${JSON.stringify(lines)}`).to.be.a('string');
  return { seed: seed!, values };
}

describe('the seed of the random tests', () => {
  afterEach(() => delete process.env[variable]);

  it('prints the seed a property ran with, and draws the same values again under it', async () => {
    const first = await drawnIntegers();
    process.env[variable] = first.seed;
    expect(await drawnIntegers()).to.deep.equal(first);
    process.env[variable] = String(Number(first.seed) + 1);
    expect((await drawnIntegers()).values, 'another seed, other values').to.not.deep.equal(first.values);
  });

  it('names FC_SEED by default, and replays a seeded source of numbers without fast-check', async () => {
    const { lines } = await printed(() => assertProperty(fc.property(fc.boolean(), () => true), { numRuns: 1 }));
    expect(lines.join('\n')).to.match(/FC_SEED=-?\d+/);
    const run = await printed(() => seededRandomOf(variable));
    const seed = new RegExp(`${variable}=(-?\\d+)`).exec(run.lines.join('\n'))?.[1];
    process.env[variable] = seed;
    const again = (await printed(() => seededRandomOf(variable))).value;
    const draw = (r: () => number) => Array.from({ length: 5 }, r);
    expect(draw(again)).to.deep.equal(draw(run.value));
  });

  it('heads the failure of a property, sync or async, with the variable and seed that replay it', async () => {
    process.env[variable] = '12345';
    const failures: string[] = [];
    await printed(async () => {
      try {
        assertProperty(fc.property(fc.integer(), () => false), {}, variable);
      } catch (err) {
        failures.push((err as Error).message);
      }
      await assertProperty(fc.asyncProperty(fc.integer(), async () => false), {}, variable).catch((err: Error) => failures.push(err.message));
    });
    expect(failures).to.have.length(2);
    for (const m of failures) expect(m.split('\n')[0]).to.equal(`${variable}=12345 replays this run`);
  });

  it('refuses a seed that is no 32-bit integer, naming the variable', () => {
    for (const bad of ['abc', '1.5', String(2 ** 40)]) {
      process.env[variable] = bad;
      expect(() => seededRandomOf(variable), bad).to.throw(`${variable} must be a 32-bit integer, got "${bad}"`);
    }
  });

  it('runs every fast-check property of test/ through assertProperty', () => {
    const sources = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const p = path.join(dir, e.name);
      return e.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
    });
    const helper = path.join(root, 'test/support/property-seed.ts');
    const unseeded = sources(path.join(root, 'test'))
      .filter((f) => f !== helper)
      .flatMap((f) => fs.readFileSync(f, 'utf8').split('\n').flatMap((line, i) => (/\bfc\.(assert|check)\(/.test(line) ? [`${path.relative(root, f)}:${i + 1}`] : [])));
    expect(unseeded, 'fc.assert or fc.check called without the printed seed').to.deep.equal([]);
  });
});
