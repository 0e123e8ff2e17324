// A counting semaphore with a bounded waiting line. Password hashing runs through it so
// that a burst of sign-ins queues up to a limit and is then refused (503) instead of
// piling up scrypt work and memory without end (design.md §5).

export class QueueFullError extends Error {
  constructor() {
    super('semaphore queue is full');
    this.name = 'QueueFullError';
  }
}

export interface Semaphore {
  /** Runs `task` once a slot is free; rejects with QueueFullError when the line is full. */
  run<T>(task: () => Promise<T>): Promise<T>;
  readonly active: number;
  readonly waiting: number;
}

export function createSemaphore(concurrency: number, maxWaiting: number): Semaphore {
  if (!(concurrency >= 1)) throw new RangeError('concurrency must be at least 1');
  let active = 0;
  const line: Array<() => void> = [];

  const acquire = (): Promise<void> => {
    if (active < concurrency) {
      active++;
      return Promise.resolve();
    }
    if (line.length >= maxWaiting) return Promise.reject(new QueueFullError());
    // The slot is handed over by release(), so `active` is not touched here.
    return new Promise((resolve) => line.push(resolve));
  };

  const release = (): void => {
    const next = line.shift();
    if (next) next();
    else active--;
  };

  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      await acquire();
      try {
        return await task();
      } finally {
        release();
      }
    },
    get active() {
      return active;
    },
    get waiting() {
      return line.length;
    },
  };
}
