// The README's curl examples run against a fresh server (scripts/readme-examples.mjs), so
// `make test` fails when the documentation and the API part ways; and the runner itself
// fails when an example gets another status than the one it states.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const runner = path.join(root, 'scripts/readme-examples.mjs');

function run(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [runner, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('README examples', function () {
  this.timeout(180_000);
  let dir: string;
  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-readme-test-')); });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const readme = (body: string) => {
    const file = path.join(dir, `README-${Math.random().toString(36).slice(2)}.md`);
    fs.writeFileSync(file, `# t\n\n\`\`\`sh\nADMIN_USERNAME=admin ADMIN_PASSWORD='Password-di-prova-1' make run\n\`\`\`\n\n${body}`);
    return file;
  };

  it('every example in README.md gets the status it states', async () => {
    const r = await run([]);
    expect(r.code, r.output).to.equal(0);
    expect(r.output).to.match(/^(\d+)\/\1 README examples passed$/m);
  });

  it('fails, naming the example, when a status differs', async () => {
    const r = await run([readme('```sh example\n# expect: 404\ncurl -s http://localhost:8080/health\n```\n\n```sh example\n# expect: 200\ncurl -s http://localhost:8080/ready\n```\n')]);
    expect(r.code).to.equal(1);
    expect(r.output).to.match(/^not ok 1 \S+:7 expect 404, got 200: curl -s http:\/\/localhost:8080\/health$/m);
    expect(r.output).to.match(/^ok 2 /m).and.match(/^1\/2 README examples passed$/m);
  });

  it('refuses an example block without an expected status', async () => {
    const r = await run([readme('```sh example\ncurl -s http://localhost:8080/health\n```\n')]);
    expect(r.code).to.equal(1);
    expect(r.output).to.match(/:7: an example block needs a "# expect: <status>" line/);
  });
});
