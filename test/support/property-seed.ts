// The seed of every random test: from FC_SEED (or a suite's own variable) or drawn once per
// run, printed before the test draws from it, and heading a property's failure message, so
// any red run replays with that variable set. Property tests call assertProperty, others
// draw from seededRandomOf.
import fc from 'fast-check';
import { seededRandom, type Random } from '../../src/db/seeded-random.js';

const drawn = new Map<string, number>();

/** The seed `variable` names in the environment, else one drawn for this run (a 32-bit integer, as fast-check's). */
export function propertySeed(variable = 'FC_SEED'): number {
  const given = process.env[variable];
  if (given !== undefined && given.trim() !== '') {
    const seed = Number(given);
    if (!Number.isInteger(seed) || seed !== (seed | 0)) throw new Error(`${variable} must be a 32-bit integer, got "${given}"`);
    return seed;
  }
  let seed = drawn.get(variable);
  if (seed === undefined) drawn.set(variable, (seed = (Date.now() ^ (Math.random() * 2 ** 32)) | 0));
  return seed;
}

/** Prints the seed where mocha's report shows it, between the titles of the tests. */
function announce(seed: number, variable: string): string {
  const replay = `${variable}=${seed}`;
  console.log(`      random seed ${seed} (${replay} replays it)`);
  return replay;
}

/** Names the seed first in a failure's message: a suite's reporter may replace fast-check's own report. */
function withSeed(err: unknown, replay: string): never {
  if (err instanceof Error) {
    err.message = `${replay} replays this run\n${err.message}`;
    throw err;
  }
  throw new Error(`${replay} replays this run: ${String(err)}`);
}

/**
 * fc.assert with the run's seed. `variable`: the environment variable that replays it
 * (FC_SEED unless a suite documents its own, as the fuzzing's FUZZ_SEED).
 */
export function assertProperty<Ts>(property: fc.IAsyncProperty<Ts>, params?: fc.Parameters<Ts>, variable?: string): Promise<void>;
export function assertProperty<Ts>(property: fc.IProperty<Ts>, params?: fc.Parameters<Ts>, variable?: string): void;
export function assertProperty<Ts>(property: fc.IRawProperty<Ts>, params: fc.Parameters<Ts> = {}, variable = 'FC_SEED'): void | Promise<void> {
  const seed = propertySeed(variable);
  const replay = announce(seed, variable);
  let run: void | Promise<void>;
  try {
    run = fc.assert(property, { ...params, seed });
  } catch (err) {
    withSeed(err, replay);
  }
  return run instanceof Promise ? run.catch((err: unknown) => withSeed(err, replay)) : run;
}

/** Numbers in [0, 1) from the run's seed, for a random test without fast-check. */
export function seededRandomOf(variable = 'FC_SEED'): Random {
  const seed = propertySeed(variable);
  announce(seed, variable);
  return seededRandom(seed);
}
