// A PasswordHasher whose scrypt runs in a child process at the lowest CPU priority
// (hash-process.ts; design.md §5). The child is started on the first hash, not at start-up,
// and again after it dies; a hash in flight when it dies fails with a 503 (try again), the
// next one gets a new child. Between requests the channel is unref'd, so an idle child
// never keeps the service's process alive.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hashingBusy } from './auth-errors.js';
import type { PasswordHasher, ScryptParams } from './password-hasher.js';

type HashCall = { readonly op: 'hash'; readonly password: string } | { readonly op: 'verify'; readonly hash: string; readonly password: string };
export type HashRequest = HashCall & { readonly id: number };
export type HashReply = { readonly id: number; readonly value: string | boolean } | { readonly id: number; readonly error: string };

const entry = fileURLToPath(new URL('./hash-process.js', import.meta.url));

/**
 * The command that starts node at the lowest priority, so that every thread node creates
 * inherits it (lowering it from inside would miss the threads started before the first line
 * runs). SCHED_IDLE (`chrt --idle 0`, util-linux) runs the child only on a CPU nothing else
 * wants, and gives the CPU up at once when a query wakes; where chrt is missing, nice 19.
 */
export function lowPriorityLauncher(pathVariable: string | undefined): readonly [string, ...string[]] {
  const found = (pathVariable ?? '').split(path.delimiter).some((dir) => {
    try {
      fs.accessSync(path.join(dir, 'chrt'), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  return found ? ['chrt', '--idle', '0'] : ['nice', '-n', '19'];
}

/**
 * The child's whole environment: none of the service's (its secrets included). glibc keeps
 * the 32 MiB a hash needs mapped between hashes instead of mapping it anew: 8,000 page faults
 * less a hash, a third less system time under a flood (design.md §5). It keeps it per libuv
 * thread, so the pool has exactly one thread per hash the semaphore lets run: with libuv's
 * default of 4, one hash at a time kept 4 buffers (180 MB peak instead of about 80).
 */
function childEnv(concurrency: number): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    UV_THREADPOOL_SIZE: String(Math.min(1024, concurrency)),
    GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=134217728:glibc.malloc.trim_threshold=1073741824',
  };
}

export interface ProcessHasher extends PasswordHasher {
  /** The child's pid while one runs (for tests). */
  readonly pid: number | undefined;
  close(): Promise<void>;
}

/** A running child and the answers it owes. */
interface Child {
  readonly process: ChildProcess;
  readonly pending: Map<number, Pending>;
}

interface Pending {
  resolve(value: string | boolean): void;
  reject(err: unknown): void;
}

/**
 * Removes the answer owed for `id`, if still owed; with none left owed, the channel stops
 * keeping the service's process alive (whether the answer came or the request never left).
 */
function take(child: Child, id: number): Pending | undefined {
  const p = child.pending.get(id);
  if (!p) return undefined;
  child.pending.delete(id);
  if (child.pending.size === 0) child.process.channel?.unref();
  return p;
}

/** `onLost` hears why a child died with hashes in flight (the service logs it). */
export function createProcessHasher(params: ScryptParams, concurrency: number, onLost: (reason: string) => void = () => {}): ProcessHasher {
  let current: Child | undefined;
  let nextId = 1;

  const start = (): Child => {
    const [command, ...args] = lowPriorityLauncher(process.env['PATH']);
    const c = spawn(command, [...args, process.execPath, entry, JSON.stringify(params)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: childEnv(concurrency) });
    const child: Child = { process: c, pending: new Map() };
    c.on('message', (reply: HashReply) => {
      const p = take(child, reply.id);
      if (!p) return;
      if ('error' in reply) p.reject(new Error(`password hashing failed: ${reply.error}`));
      else p.resolve(reply.value);
    });
    const lost = (reason: string) => {
      if (current === child) current = undefined;
      if (child.pending.size === 0) return;
      onLost(`password hashing process ${reason} with ${child.pending.size} hashes in flight`);
      for (const p of child.pending.values()) p.reject(hashingBusy());
      child.pending.clear();
    };
    c.on('exit', (code, signal) => lost(`exited (${signal ?? code})`));
    c.on('error', (err) => lost(`failed: ${err.message}`));
    c.unref();
    return child;
  };

  const call = (request: HashCall) =>
    new Promise<string | boolean>((resolve, reject) => {
      const child = (current ??= start());
      const id = nextId++;
      child.pending.set(id, { resolve, reject });
      child.process.channel?.ref();
      child.process.send({ ...request, id }, (err) => {
        if (err && take(child, id)) reject(err);
      });
    });

  return {
    get pid() {
      return current?.process.pid;
    },
    hash: async (password) => (await call({ op: 'hash', password })) as string,
    verify: async (hash, password) => (await call({ op: 'verify', hash, password })) as boolean,
    async close() {
      const c = current?.process;
      current = undefined;
      if (!c?.connected) return;
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.disconnect();
      });
    },
  };
}
