// Instructions per request: what each server executes for one request of a kind, counted by
// callgrind (valgrind), user space, every thread of the process. Unlike time, the count does
// not move with the machine's speed: on this 2-core VM one pair of closed-loop rounds moves
// by ±20 %, a count by well under 1 %.
//
// It is not time. A server can run the same instructions slower (cache and TLB misses, a
// preempted thread), and the kernel's work (system calls, TCP on loopback) is not counted:
// the bench's closed-loop rounds stay what the targets are measured on; this says whether a
// gap there is work the service does or the machine running it.
import { execFile } from 'node:child_process';
import fs from 'node:fs';

/** valgrind's callgrind, or an error that says how to get it. */
export function checkValgrind() {
  return new Promise((resolve, reject) => {
    execFile('valgrind', ['--version'], (err, stdout) => {
      if (err) reject(new Error('--only instructions needs valgrind (Debian: apt-get install -y valgrind)'));
      else resolve(stdout.trim());
    });
  });
}

/** The command prefix that runs a server under callgrind, counting nothing until countWindows turns it on. */
export function callgrindWrapper(outFile) {
  return ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${outFile}`];
}

/**
 * Sends a command to the callgrind process `pid` (`-i on`, `-z` zero, `-d` dump).
 * callgrind_control finds the process by a file named after USER and HOST, so it must see
 * the environment the server was started with (the servers get HOST=127.0.0.1).
 */
function control(pid, args, env) {
  return new Promise((resolve, reject) => {
    execFile('callgrind_control', [...args, String(pid)], { env }, (err, stdout, stderr) => {
      if (err || /error|failed/i.test(stderr)) reject(new Error(`callgrind_control ${args.join(' ')} ${pid}: ${stderr || err?.message}`));
      else resolve();
    });
  });
}

/** The total of the counted events in a callgrind output file (`totals:` line, Ir). */
export function totalInstructions(file) {
  const m = /^totals: (\d+)/m.exec(fs.readFileSync(file, 'utf8'));
  if (!m) throw new Error(`no totals in ${file}`);
  return Number(m[1]);
}

/**
 * Instructions per request of `server` (started under callgrindWrapper(outFile)), over
 * `windows` runs of `window()` (which resolves the number of requests it had answered):
 * the total over all of them, and each window's own figure. The service's windows differ
 * (by up to half) where a major GC or a recompilation falls in one, work each request owes
 * its share of; the total over a few windows carries that share, a single window may not.
 */
export async function countWindows(server, env, outFile, window, windows = 3) {
  const pid = server.child.pid;
  await control(pid, ['-i', 'on'], env);
  const each = [];
  let instructions = 0;
  let requests = 0;
  for (let i = 1; i <= windows; i++) {
    await control(pid, ['-z'], env);
    const answered = await window();
    // Each dump holds what was counted since the last zero, in <outFile>.<n>.
    await control(pid, ['-d'], env);
    const counted = totalInstructions(`${outFile}.${i}`);
    each.push(Math.round(counted / answered));
    instructions += counted;
    requests += answered;
  }
  return { perRequest: Math.round(instructions / requests), windows: each };
}
