// Runs the real built service (node dist/src/server/main.js) as a child process, the way it runs
// in production, and reads what the load and fault tests measure from /proc: resident
// memory and open file descriptors. Its log goes to a file, so a full pipe can never
// stall the service under load.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from './private-mariadb.js';

export const jwtSecret = 'reliability-secret-that-is-at-least-32-bytes';
const main = path.resolve('dist/src/server/main.js');
// Node's own flags from `npm start` (the heap settings it is deployed with).
const nodeFlags = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start
  .split(/\s+/)
  .filter((arg) => arg.startsWith('--'));
const running = new Set<ChildProcess>();
// A test that throws half-way must not leave a service behind.
process.once('exit', () => { for (const c of running) c.kill('SIGKILL'); });

export interface ServiceProcess {
  readonly url: string;
  readonly pid: number;
  readonly logFile: string;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exit: Promise<number | null>;
  readonly alive: () => boolean;
  signal(name: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL after `ms`; resolves with the exit code. */
  stop(ms?: number): Promise<number | null>;
  /** VmRSS in KiB. */
  rssKb(): number;
  openFds(): number;
  /** Established TCP connections of the process to `port` on this host (its pooled database connections). */
  connectionsTo(port: number): number;
}

/**
 * `port`: a fixed one, as a balancer's list of nodes has, so a restarted node comes back
 * where it was; `append`: keep the log of its earlier run; `readyMs`: how long it may take
 * to answer /health (30 s).
 */
export async function startService(env: Record<string, string>, logFile: string, options: { port?: number; append?: boolean; readyMs?: number } = {}): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const log = fs.openSync(logFile, options.append ? 'a' : 'w');
  const child = spawn(process.execPath, [...nodeFlags, main], {
    env: { PATH: process.env['PATH'] ?? '', PORT: String(port), HOST: '127.0.0.1', JWT_SECRET: jwtSecret, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  running.add(child);
  let alive = true;
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => { alive = false; running.delete(child); resolve(code); }));
  const url = `http://127.0.0.1:${port}`;
  const readyMs = options.readyMs ?? 30_000;
  const until = Date.now() + readyMs;
  for (;;) {
    if (!alive) throw new Error(`the service exited during start-up:\n${fs.readFileSync(logFile, 'utf8')}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > until) throw new Error(`the service did not answer /health within ${readyMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const pid = child.pid!;
  return {
    url, pid, logFile, exit,
    alive: () => alive,
    signal: (name) => void child.kill(name),
    async stop(ms = 15_000) {
      if (!alive) return exit;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), ms);
      const code = await exit;
      clearTimeout(t);
      return code;
    },
    rssKb: () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN),
    openFds: () => fs.readdirSync(`/proc/${pid}/fd`).length,
    connectionsTo: (port) => connectionsTo(pid, port),
  };
}

/** Joins the process's socket inodes (/proc/PID/fd) with the kernel's TCP table (/proc/net/tcp). */
function connectionsTo(pid: number, port: number): number {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch { /* closed meanwhile */ }
  }
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  let n = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(table)) continue;
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // cols: sl local_address rem_address st ... inode (10th); st 01 = ESTABLISHED.
      if (cols.length > 9 && cols[2]!.endsWith(`:${hexPort}`) && cols[3] === '01' && inodes.has(cols[9]!)) n++;
    }
  }
  return n;
}

/** Lines of the service's log at level error or worse (pino: 50+), parsed. */
export function errorLines(logFile: string): Array<Record<string, unknown>> {
  return fs.readFileSync(logFile, 'utf8').split('\n').filter(Boolean).flatMap((l) => {
    try {
      const line = JSON.parse(l) as Record<string, unknown>;
      return Number(line['level']) >= 50 ? [line] : [];
    } catch {
      return [{ raw: l }];
    }
  });
}
