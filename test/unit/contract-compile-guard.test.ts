// The compiler guards the contract (design.md §0): on a copy of the project, each of these
// edits of the spec (or of the generator's query schemas), regenerated, makes the compiler (or
// the generator) fail in the file that must change, and the unedited copy compiles. The
// compiler runs in this process through TypeScript's API: the whole program once, then each
// edit checks the files it must break, reusing the unchanged files' syntax trees. The
// file:line each reports is written to test-output/compile-guard.json.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const run = (file: string, args: string[], cwd: string) =>
  promisify(execFile)(file, args, { cwd, maxBuffer: 16 * 1024 * 1024 }).then(() => ({ code: 0, output: '' }), (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, output: `${e.stdout}${e.stderr}` }));

interface Mutation {
  readonly name: string;
  /** The edited file; the spec unless named. */
  readonly file?: string;
  readonly edit: (text: string) => string;
  /** Where the failure must point. */
  readonly expected: RegExp;
  /** The files the compiler checks: those `expected` may name. */
  readonly checks: readonly string[];
}

const spec = 'spec/openapi.yaml';
const querySchemas = 'scripts/lib/query-schemas.mjs';

const replaceOnce = (spec: string, from: string | RegExp, to: string) => {
  const edited = spec.replace(from, to);
  if (edited === spec) throw new Error(`the mutation found nothing to edit: ${String(from)}`);
  return edited;
};

const mutations: Mutation[] = [
  {
    name: 'rename a property of the Register 200 response',
    edit: (s) => replaceOnce(replaceOnce(s, '      required: [userId]\n', '      required: [userIdentifier]\n'), "        userId: { $ref: '#/components/schemas/UserId' }", '        userIdentifier: { type: string, maxLength: 10 }'),
    expected: /src\/handlers\/account-register\.ts\(\d+,\d+\)/,
    checks: ['src/handlers/account-register.ts'],
  },
  {
    name: 'change ImpiantoId from integer to string',
    edit: (s) => replaceOnce(s, 'schema: { type: integer, format: int32, minimum: 1, maximum: 2147483647 }', 'schema: { type: string }'),
    expected: /src\/handlers\/impianti-files\.ts\(\d+,\d+\)/,
    checks: ['src/handlers/impianti-files.ts'],
  },
  {
    name: 'remove the GetImpiantoFilesRequest operation',
    edit: (s) => replaceOnce(s, /\n {2}\/impianti\/\{ImpiantoId\}\/files:\n[\s\S]*?(?=\n {2}# The two query operations)/, ''),
    expected: /src\/handlers\/impianti-files\.ts\(\d+,\d+\)/,
    checks: ['src/handlers/impianti-files.ts'],
  },
  {
    name: 'add a required property to the Authenticate request body',
    edit: (s) => replaceOnce(s, /( {4}Authenticate:\n {6}type: object\n {6}additionalProperties: false\n {6}x-case-insensitive-properties: true\n)( {6}properties:\n)/, '$1      required: [tenant]\n$2        tenant: { type: string }\n'),
    expected: /src\/handlers\/account-sign-in\.ts\(\d+,\d+\)/,
    checks: ['src/handlers/account-sign-in.ts'],
  },
  {
    name: 'rename a field in the SoggettoRecapito row schema',
    edit: (s) => replaceOnce(s, '  schemas:\n', '  schemas:\n    SoggettoRecapito:\n      type: object\n      properties:\n        indirizzo: { type: string }\n'),
    expected: /components\.schemas\.SoggettoRecapito is generated; remove it/,
    checks: [],
  },
  {
    name: 'rename the optional sessionId of the Register and Authenticate responses',
    edit: (s) => replaceOnce(s, /sessionId/g, 'sessionRef'),
    expected: /src\/handlers\/account-(register|sign-in)\.ts\(\d+,\d+\)/,
    checks: ['src/handlers/account-register.ts', 'src/handlers/account-sign-in.ts'],
  },
  {
    name: 'rename offset in the query response schema',
    file: querySchemas,
    edit: (s) => replaceOnce(replaceOnce(s, "required: ['offset', 'results']", "required: ['skipped', 'results']"), "      offset: { type: 'integer'", "      skipped: { type: 'integer'"),
    expected: /src\/handlers\/query-handlers\.ts\(\d+,\d+\)/,
    checks: ['src/handlers/query-handlers.ts'],
  },
  {
    name: 'retype a field of the query records (OrdineVista as a string)',
    file: querySchemas,
    edit: (s) => replaceOnce(s, 'const { maxLength, ...family } = catalog.families[f.family];', "const { maxLength, ...family } = f.property === 'ordineVista' ? { type: 'string' } : catalog.families[f.family];"),
    expected: /src\/handlers\/query-handlers\.ts\(\d+,\d+\)/,
    checks: ['src/handlers/query-handlers.ts'],
  },
];

describe('the compiler guards the contract', function () {
  this.timeout(600_000);
  let copy: string;
  const originals = new Map<string, string>();
  const figures: Array<{ mutation: string; reported: string }> = [];

  let program: ts.Program | undefined;
  before(async () => {
    copy = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-guard-'));
    for (const entry of ['spec', 'scripts', 'src', 'generated', 'tsconfig.json', 'package.json']) fs.cpSync(path.join(root, entry), path.join(copy, entry), { recursive: true });
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(copy, 'node_modules'));
    for (const file of [spec, querySchemas]) originals.set(file, fs.readFileSync(path.join(copy, file), 'utf8'));
  });
  after(() => {
    fs.rmSync(copy, { recursive: true, force: true });
    fs.mkdirSync(path.join(root, 'test-output'), { recursive: true });
    fs.writeFileSync(path.join(root, 'test-output/compile-guard.json'), JSON.stringify(figures, null, 2));
  });

  /** The service's own sources, as a developer's build compiles them: every error of `files` (all when undefined). */
  const compile = (files?: readonly string[]): string => {
    const parsed = ts.getParsedCommandLineOfConfigFile(path.join(copy, 'tsconfig.json'), { noEmit: true }, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } })!;
    // The copy holds src and generated only, so its tsconfig finds no tests.
    program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, ...(program ? { oldProgram: program } : {}) });
    const sources = files === undefined ? program.getSourceFiles() : files.map((f) => program!.getSourceFile(path.join(copy, f))!);
    const diagnostics = [...program.getOptionsDiagnostics(), ...(files === undefined ? program.getGlobalDiagnostics() : []), ...sources.flatMap((sf) => (sf === undefined ? [] : [...program!.getSyntacticDiagnostics(sf), ...program!.getSemanticDiagnostics(sf)]))];
    const missing = (files ?? []).filter((f, i) => sources[i] === undefined);
    return [...missing.map((f) => `${f}(1,1): the file is gone`), ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => copy, getNewLine: () => '\n' })].join('');
  };

  /**
   * The generator on the copy: in this process when only the spec is edited (its modules,
   * loaded once, are the copy's own and unchanged), as `make generate` runs it when the edit
   * is to the generator itself, whose modules a process loads once.
   */
  const generate = async (m?: Mutation): Promise<{ code: number; output: string }> => {
    if ((m?.file ?? spec) !== spec) return run(process.execPath, ['scripts/generate.mjs'], copy);
    const lib = (await import(pathToFileURL(path.join(copy, 'scripts/lib/outputs.mjs')).href)) as {
      readInputs(root: string): Promise<unknown>;
      buildOutputs(inputs: unknown): Promise<Map<string, string>>;
    };
    try {
      for (const [file, text] of await lib.buildOutputs(await lib.readInputs(copy))) fs.writeFileSync(path.join(copy, file), text);
      return { code: 0, output: '' };
    } catch (e) {
      return { code: 2, output: e instanceof Error ? e.message : String(e) };
    }
  };

  /** Regenerates with at most one file edited, then compiles: the generator's or the compiler's failure. */
  const build = async (m?: Mutation) => {
    for (const [file, text] of originals) fs.writeFileSync(path.join(copy, file), m && (m.file ?? spec) === file ? m.edit(text) : text);
    const generated = await generate(m);
    if (generated.code !== 0) return generated;
    const output = compile(m?.checks);
    return { code: output === '' ? 0 : 2, output };
  };

  it('the unedited copy regenerates and compiles', async () => {
    const r = await build();
    expect(r, r.output).to.deep.equal({ code: 0, output: '' });
  });

  for (const m of mutations) {
    it(`${m.name}: the build fails where the code must change`, async () => {
      const r = await build(m);
      expect(r.code, 'the build must fail').not.to.equal(0);
      expect(r.output).to.match(m.expected);
      figures.push({ mutation: m.name, reported: (m.expected.exec(r.output)?.[0] ?? '') + ' ' + (r.output.split('\n').find((l) => m.expected.test(l)) ?? '').slice(0, 300) });
    });
  }
});
