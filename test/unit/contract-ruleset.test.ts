// Both served documents (the consumers' contract and the routes document, design.md §2)
// against Spectral's OpenAPI rules and the OWASP API Security Top 10 (2023) ruleset, pinned in package.json and run offline through the project's ruleset file
// (spectral-ruleset.mjs): any error fails, and every exception that file makes is listed,
// with its reason, in the design record (design.md §3). The figures by rule go to
// test-output/spectral.json.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');

interface Finding {
  readonly code: string;
  readonly severity: number;
  readonly path: readonly string[];
  readonly message: string;
}

const severities = ['error', 'warning', 'info', 'hint'];

const documents = ['generated/openapi.json', 'generated/openapi-routes.json'];

async function lint(file: string): Promise<Finding[]> {
  const spectral = path.join(root, 'node_modules/.bin/spectral');
  const args = ['lint', file, '--ruleset', 'spectral-ruleset.mjs', '--format', 'json', '--quiet'];
  // Spectral exits 1 when it finds an error; its report is on stdout either way.
  const { stdout } = await promisify(execFile)(spectral, args, { cwd: root, maxBuffer: 64 * 1024 * 1024 }).catch((e: { code: number; stdout: string; stderr: string }) => {
    if (e.code !== 1) throw new Error(`spectral failed (${e.code}): ${e.stderr}`);
    return e;
  });
  return JSON.parse(stdout) as Finding[];
}

describe('contract ruleset (Spectral, OWASP API Security 2023)', function () {
  this.timeout(120_000);
  const findings = new Map<string, Finding[]>();
  before(async () => {
    // The two lints share nothing but the ruleset: they run side by side.
    const linted = await Promise.all(documents.map(async (file) => [file, await lint(file)] as const));
    const figures: Record<string, { total: number; byRule: Record<string, Record<string, number>> }> = {};
    for (const [file, found] of linted) {
      findings.set(file, found);
      const byRule: Record<string, Record<string, number>> = {};
      for (const f of found) {
        const level = severities[f.severity] ?? String(f.severity);
        (byRule[level] ??= {})[f.code] = (byRule[level]?.[f.code] ?? 0) + 1;
      }
      figures[file] = { total: found.length, byRule };
    }
    fs.mkdirSync(path.join(root, 'test-output'), { recursive: true });
    fs.writeFileSync(path.join(root, 'test-output/spectral.json'), JSON.stringify(figures, null, 2));
  });

  for (const file of documents) {
    it(`finds no error in ${file}`, () => {
      const errors = findings.get(file)!.filter((f) => f.severity === 0).map((f) => `${f.code} at ${f.path.join('.')}: ${f.message}`);
      expect(errors).to.deep.equal([]);
    });
  }

  it('fails a contract that drops a bound', async () => {
    const document = JSON.parse(fs.readFileSync(path.join(root, 'generated/openapi.json'), 'utf8'));
    delete document.components.schemas.Register.properties.firstName.maxLength;
    // The one operation that reads the edited schema: linting the whole contract again would double the suite's time.
    document.paths = { '/register': document.paths['/register'] };
    fs.writeFileSync(path.join(root, 'test-output/spectral-mutant.json'), JSON.stringify(document));
    const errors = (await lint('test-output/spectral-mutant.json')).filter((f) => f.severity === 0);
    expect(errors.map((f) => `${f.code} ${f.path.join('.')}`)).to.include('owasp:api4:2023-string-limit components.schemas.Register.properties.firstName');
  });

  it('names each exception, with its reason, in the design record', () => {
    const ruleset = fs.readFileSync(path.join(root, 'spectral-ruleset.mjs'), 'utf8');
    const record = fs.readFileSync(path.join(root, 'spec/design.md'), 'utf8').replace(/\s+/g, ' ');
    const exceptions = [...ruleset.matchAll(/rule: '([^']+)',[\s\S]*?reason: '((?:[^'\\]|\\.)*)'/g)].map((m): [string, string] => [m[1]!, m[2]!.replace(/\\'/g, "'")]);
    expect(exceptions.length).to.be.greaterThan(5);
    const missing = exceptions.filter(([rule, reason]) => !record.includes(rule.replace(/^owasp:/, '')) || !record.includes(reason));
    expect(missing).to.deep.equal([]);
  });
});
