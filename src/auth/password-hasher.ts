// Password hashing with scrypt-kdf (design.md §5). scrypt runs on the libuv thread pool,
// so the event loop never blocks; the semaphore bounds how many hashes run and wait.
// The interface lets tests count calls (both sign-in failures must run a verification).
import crypto from 'node:crypto';
import * as ScryptModule from 'scrypt-kdf';
import { hashingBusy } from './auth-errors.js';
import { createSemaphore, QueueFullError } from './semaphore.js';

// The package's JS has only a default export (a class) while its typings declare named
// functions; this reads whichever exists, typed by the declarations.
const Scrypt = ((ScryptModule as unknown as { default?: typeof ScryptModule }).default ?? ScryptModule) as typeof ScryptModule;

export interface ScryptParams {
  readonly logN: number;
  readonly r: number;
  readonly p: number;
}

export interface PasswordHasher {
  /** A self-describing hash (parameters and salt inside), base64. */
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
  /** Stops what the hasher runs in the background, if anything. */
  close?(): Promise<void>;
}

export function createScryptHasher(params: ScryptParams): PasswordHasher {
  return {
    hash: async (password) => Buffer.from(await Scrypt.kdf(password, params)).toString('base64'),
    verify: async (hash, password) => {
      try {
        return await Scrypt.verify(hash, password);
      } catch {
        // A stored value that is not a scrypt key (hand-edited row) never matches.
        return false;
      }
    },
  };
}

/** Wraps a hasher so that at most `concurrency` run and `queue` wait; beyond that a 503 ApiError. */
export function limitHasher(inner: PasswordHasher, concurrency: number, queue: number): PasswordHasher {
  const semaphore = createSemaphore(concurrency, queue);
  const run = async <T>(task: () => Promise<T>): Promise<T> => {
    try {
      return await semaphore.run(task);
    } catch (err) {
      throw err instanceof QueueFullError ? hashingBusy() : err;
    }
  };
  return {
    hash: (password) => run(() => inner.hash(password)),
    verify: (hash, password) => run(() => inner.verify(hash, password)),
    close: async () => inner.close?.(),
  };
}

/**
 * A well-formed scrypt key with the configured parameters that no password matches. Its
 * header checksum is valid, so verify() runs the full scrypt before failing: an unknown
 * user costs the same time as a wrong password, without hashing anything at start-up.
 */
export function dummyHash(params: ScryptParams): string {
  const key = Buffer.alloc(96);
  key.write('scrypt', 0, 'latin1');
  key.writeUInt8(0, 6);
  key.writeUInt8(params.logN, 7);
  key.writeUInt32BE(params.r, 8);
  key.writeUInt32BE(params.p, 12);
  crypto.randomFillSync(key, 16, 32);
  crypto.createHash('sha256').update(key.subarray(0, 48)).digest().copy(key, 48, 0, 16);
  crypto.randomFillSync(key, 64, 32);
  return key.toString('base64');
}
