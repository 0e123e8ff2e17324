// The bench's child processes (the service, with its workers when WORKERS > 1, the floor
// and the baseline): start and time to /ready, CPU and peak memory read from /proc, stop.
// Every child's process tree is killed when the bench exits, however it exits.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

const children = new Set();

function killAll() {
  for (const child of children) for (const pid of treeOf(child.pid)) kill(pid, 'SIGKILL');
}
process.on('exit', killAll);
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) {
  process.on(signal, () => {
    killAll();
    process.exit(code);
  });
}

function kill(pid, signal) {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function ready(port) {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(1000) });
    return res.status === 200;
  } catch {
    return false;
  }
}

const chunk = Buffer.allocUnsafe(1 << 20);

/**
 * Reads a file through, leaving its pages in the page cache: this machine's kernel pages out
 * file pages left untouched for about a minute, and what the bench times next would time the
 * disk reading them back.
 */
export function readThrough(file) {
  const fd = fs.openSync(file, 'r');
  try {
    while (fs.readSync(fd, chunk, 0, chunk.length, null) > 0);
  } finally {
    fs.closeSync(fd);
  }
}

/** readThrough of node's binary and of every code file under `dirs`: what a start loads. */
export function warmPageCache(dirs) {
  readThrough(process.execPath);
  for (const dir of dirs.filter((d) => fs.existsSync(d))) {
    for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (e.isFile() && /\.(?:[cm]?js|json|node)$/.test(e.name)) readThrough(`${e.parentPath}/${e.name}`);
    }
  }
}

/** Starts `node <args>` with `env` added, logging to `logFile`; resolves once /ready answers 200. */
export async function startNode({ args, env, logFile, nodeOptions = [], warm = [] }) {
  warmPageCache(warm);
  const port = await freePort();
  const log = fs.openSync(logFile, 'w');
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeOptions, ...args], { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  children.add(child);
  child.once('exit', () => children.delete(child));
  while (performance.now() - started < 30_000) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}; see ${logFile}`);
    if (await ready(port)) return { child, port, readyMs: Math.round(performance.now() - started) };
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  child.kill('SIGKILL');
  throw new Error(`${args.join(' ')} was not ready within 30 s; see ${logFile}`);
}

/** SIGTERM, then SIGKILL to the whole tree after `graceMs`; resolves once the child has exited. */
export function stop(child, graceMs = 12_000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const tree = treeOf(child.pid);
  return new Promise((resolve) => {
    const timer = setTimeout(() => tree.forEach((pid) => kill(pid, 'SIGKILL')), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** `pid` and its descendants (a cluster's workers, the password-hashing process). */
export function treeOf(pid) {
  let tasks = [];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const kids = tasks.flatMap((tid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
  return [pid, ...kids.flatMap(treeOf)];
}

/** CPU seconds (user + system) a process has used so far; 0 once it is gone. */
export function cpuSeconds(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Peak resident set size (VmHWM) of a live process, in MB. */
export function peakRssMb(pid) {
  try {
    const kb = Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Math.round((kb / 1024) * 10) / 10;
  } catch {
    return 0;
  }
}

/**
 * Resolves once the tree of `pid` has used no CPU for 1.5 s (or after 10 s): a service
 * compiles work left for after /ready in the background, and a request timed meanwhile
 * measures both.
 */
export async function settled(pid) {
  const cpu = () => treeOf(pid).reduce((sum, p) => sum + cpuSeconds(p), 0);
  const deadline = performance.now() + 10_000;
  let last = cpu();
  let quietSince = performance.now();
  while (performance.now() < deadline && performance.now() - quietSince < 1500) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = cpu();
    if (now - last > 0.01) quietSince = performance.now();
    last = now;
  }
}
