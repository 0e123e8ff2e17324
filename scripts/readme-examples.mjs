#!/usr/bin/env node
// Runs the README's curl examples against the built service, so the documentation cannot
// drift from the API. A block fenced as ```sh example is run; its `# expect: NNN` line is
// the HTTP status every curl in it must get. Blocks run in order in one bash process, so
// shell variables (tokens) carry over exactly as when a reader pastes them one by one.
//   node scripts/readme-examples.mjs [README.md]   (after `npx tsc -p .`; exit 0 when all pass)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readmeBase = 'http://localhost:8080';

/** The ```sh example blocks of the README, each with its expected status. */
export function extractExamples(markdown, name = 'README.md') {
  const blocks = [];
  const fence = /^```sh example[ \t]*\n([\s\S]*?)^```[ \t]*$/gm;
  for (const m of markdown.matchAll(fence)) {
    const code = m[1];
    const line = markdown.slice(0, m.index).split('\n').length;
    const expect = /^# expect: (\d{3})\b/m.exec(code);
    if (!expect) throw new Error(`${name}:${line}: an example block needs a "# expect: <status>" line`);
    blocks.push({ line, code, status: Number(expect[1]) });
  }
  if (blocks.length === 0) throw new Error(`${name} has no \`\`\`sh example blocks`);
  return blocks;
}

/** The admin credentials the README tells readers to start with, so the run uses the same. */
export function adminCredentials(markdown) {
  const m = /ADMIN_USERNAME=(\S+) ADMIN_PASSWORD='([^']+)' make run/.exec(markdown);
  if (!m) throw new Error("README.md must show ADMIN_USERNAME=<name> ADMIN_PASSWORD='<password>' make run");
  return { user: m[1], password: m[2] };
}

// `curl` as a function: the real curl plus -D to a temp file, whose last status line is
// recorded per block. Reading the status from the headers leaves the example's own
// output (body, -i, -w) untouched. A file, not a variable: $(curl ...) runs in a subshell.
const preamble = (statusFile) => `set -euo pipefail
__statuses=${JSON.stringify(statusFile)}
curl() {
  local headers rc=0
  headers=$(mktemp)
  command curl -D "$headers" "$@" || rc=$?
  printf '%s %s\\n' "$__block" "$(sed -n 's/^HTTP\\/[0-9.]* \\([0-9][0-9][0-9]\\).*/\\1/p' "$headers" | tail -n 1)" >> "$__statuses"
  rm -f "$headers"
  return $rc
}
`;

function script(blocks, baseUrl, statusFile) {
  const parts = [preamble(statusFile)];
  blocks.forEach((b, i) => {
    parts.push(`__block=${i}\nprintf '\\n@@example %d\\n' ${i}\n${b.code.split(readmeBase).join(baseUrl)}`);
  });
  parts.push("printf '\\n@@end\\n'\n");
  return parts.join('\n');
}

async function startService(dir, admin) {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    SQLITE_FILE: path.join(dir, 'impianti.sqlite'),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ADMIN_USERNAME: admin.user,
    ADMIN_PASSWORD: admin.password,
  };
  const seeded = spawnSync(process.execPath, [path.join(root, 'dist/src/cli/seed-demo.js')], { env, encoding: 'utf8' });
  if (seeded.status !== 0) throw new Error(`demo seed failed:\n${seeded.stderr}`);
  const child = spawn(process.execPath, [path.join(root, 'dist/src/server/main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start in 30 s:\n${log}`)), 30_000);
    const onData = (chunk) => {
      log += chunk;
      // main.ts logs {"port":N,...,"msg":"listening"} once the socket is bound.
      const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`the service exited with ${code}:\n${log}`)));
  });
  return { baseUrl: `http://127.0.0.1:${port}`, stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }) };
}

function runBash(text, cwd) {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', text], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', HOME: cwd } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, output }); });
  });
}

export async function main(readme = path.join(root, 'README.md')) {
  const markdown = fs.readFileSync(readme, 'utf8');
  const name = path.relative(process.cwd(), readme) || readme;
  const blocks = extractExamples(markdown, name);
  const admin = adminCredentials(markdown);
  for (const f of ['dist/src/server/main.js', 'dist/src/cli/seed-demo.js']) {
    if (!fs.existsSync(path.join(root, f))) throw new Error(`${f} is missing: build first (npx tsc -p .)`);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-readme-'));
  const service = await startService(dir, admin);
  try {
    const statusFile = path.join(dir, 'statuses');
    fs.writeFileSync(statusFile, '');
    const { code, output } = await runBash(script(blocks, service.baseUrl, statusFile), dir);
    const got = new Map();
    for (const line of fs.readFileSync(statusFile, 'utf8').split('\n').filter(Boolean)) {
      const [i, status] = line.split(' ');
      got.set(Number(i), [...(got.get(Number(i)) ?? []), Number(status)]);
    }
    const outputs = output.split(/\n@@example (\d+)\n/);
    const outputOf = (i) => outputs[outputs.indexOf(String(i)) + 1]?.split('\n@@')[0] ?? '';
    let failed = 0;
    blocks.forEach((b, i) => {
      const statuses = got.get(i) ?? [];
      const ok = statuses.length > 0 && statuses.every((s) => s === b.status);
      if (!ok) failed++;
      const title = b.code.split('\n').find((l) => l.trim() && !l.startsWith('#')) ?? '';
      process.stdout.write(`${ok ? 'ok' : 'not ok'} ${i + 1} ${name}:${b.line} expect ${b.status}, got ${statuses.join(',') || 'no response'}: ${title.trim().slice(0, 90)}\n`);
      if (!ok) process.stdout.write(outputOf(i).replace(/^/gm, '    ') + '\n');
    });
    if (code !== 0 || !output.includes('@@end')) {
      failed++;
      process.stdout.write(`not ok: the examples stopped early (bash exit ${code})\n${output.slice(-2000)}\n`);
    }
    process.stdout.write(`${blocks.length - Math.min(failed, blocks.length)}/${blocks.length} README examples passed\n`);
    return failed === 0 ? 0 : 1;
  } finally {
    await service.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv[2]).then((code) => { process.exitCode = code; }, (err) => { process.stderr.write(`readme-examples: ${err.message}\n`); process.exitCode = 1; });
}
