// Child processes of the bench: the service and the baseline. Each start is timed from
// spawn to the first 200 from /ready; every child is killed when the bench exits, however
// it exits.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';

const children = new Set();

function killAll() {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
}
process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function ready(port) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/ready', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.setTimeout(1000, () => req.destroy());
  });
}

const codeFile = /\.(?:[cm]?js|json|node)$/;
const chunk = Buffer.allocUnsafe(1 << 20);

/**
 * Reads a whole file through one reused buffer, which leaves its pages in the page cache.
 * This machine's kernel pages out file pages left untouched for about a minute (a DAMON
 * pageout scheme): what the bench times would otherwise include the disk reading them back.
 */
export function readThrough(file) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
    while (fs.readSync(fd, chunk, 0, chunk.length, null) > 0);
  } catch {
    // A file that vanished or cannot be read is one no server loads either.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Reads node's binary and every code file under `dirs` (readThrough): a start 150 s after
 * the last one read 8.9 MB of its modules from the disk, a start after this 0.2 MB.
 */
export function warmPageCache(dirs) {
  readThrough(process.execPath);
  for (const dir of dirs.filter((d) => fs.existsSync(d))) {
    for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && codeFile.test(entry.name)) readThrough(`${entry.parentPath}/${entry.name}`);
    }
  }
}

/**
 * Starts `node <args>` with `env` added, logging to `logFile`, and waits for /ready.
 * `wrapper` runs node under another program (`valgrind --tool=callgrind ...`), whose pid
 * is then node's own. `warm`: the directories whose code the start loads (warmPageCache).
 * Returns { child, port, readyMs, readyCpuMs, readyReadMb }: the CPU the process had used
 * and what it had read from the disk (not the page cache) when ready, which tell a slow
 * start spent on its own work from one spent waiting.
 */
export async function startNode({ args, env, logFile, port, nodeOptions = [], wrapper = [], readyWithinMs = 30_000, warm = [] }) {
  warmPageCache(warm);
  // The bench's own writes (a database it just seeded) are flushed first: a start timed
  // while the disk still writes them back waits on that, not on the service.
  spawnSync('sync');
  const log = fs.openSync(logFile, 'w');
  const started = performance.now();
  const command = [...wrapper, process.execPath, ...nodeOptions, ...args];
  const child = spawn(command[0], command.slice(1), { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  children.add(child);
  child.once('exit', () => children.delete(child));
  const deadline = started + readyWithinMs;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}; see ${logFile}`);
    if (await ready(port)) return { child, port, readyMs: Math.round(performance.now() - started), readyCpuMs: Math.round(cpuSeconds(child.pid) * 1000), readyReadMb: storageReadMb(child.pid) };
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  child.kill('SIGKILL');
  throw new Error(`${args.join(' ')} was not ready within ${readyWithinMs / 1000} s; see ${logFile}`);
}

/** One start, as `results.startup` keeps it. */
export function startRecord(where, started) {
  return { where, readyMs: started.readyMs, cpuMs: started.readyCpuMs, readMb: started.readyReadMb };
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the child has exited. */
export function stop(child, graceMs = 12_000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Peak resident set size (VmHWM) of a live process, in MB. */
export function peakRssMb(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return Math.round((kb / 1024) * 10) / 10;
}

export function rssMb(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return Math.round((kb / 1024) * 10) / 10;
}

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/**
 * Resolves once `pid` has used no CPU for `quietMs` (or after `withinMs`): a service compiles
 * its remaining request validators in the background a second after it is ready, about 0.7 s
 * of CPU, and a start timed meanwhile on the same two cores measures both. The quiet spell
 * outlasts that second, so the compile cannot begin after the wait has ended.
 */
export async function settled(pid, quietMs = 1500, withinMs = 10_000) {
  const deadline = performance.now() + withinMs;
  let last = cpuSeconds(pid);
  let quietSince = performance.now();
  while (performance.now() < deadline && performance.now() - quietSince < quietMs) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = cpuSeconds(pid);
    if (now - last > 0.01) quietSince = performance.now();
    last = now;
  }
}

/** MB a process has read from the storage device so far (page-cache hits excluded). */
export function storageReadMb(pid) {
  try {
    const io = fs.readFileSync(`/proc/${pid}/io`, 'utf8');
    return Math.round((Number(/read_bytes:\s+(\d+)/.exec(io)?.[1] ?? NaN) / 2 ** 20) * 10) / 10;
  } catch {
    return NaN;
  }
}

/** The pids of a process's children (the service's password-hashing process). */
export function childPids(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** The pid of the MySQL/MariaDB server behind `conn`, if it runs on this machine (its pid file is readable). */
export async function mysqldPid(conn) {
  try {
    const [[{ file }]] = await conn.query('SELECT @@pid_file AS file');
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return fs.existsSync(`/proc/${pid}`) ? pid : undefined;
  } catch {
    return undefined;
  }
}
