#!/usr/bin/env node
// Builds generated/ from spec/ (openapi.yaml + the query tables):
//   node scripts/generate.mjs [--root <dir>]          write generated/openapi.json, api.d.ts, query-catalog.ts
//   node scripts/generate.mjs --check [--root <dir>]  exit 1 listing stale files, write nothing
// Runs before any TypeScript build, so it is plain ESM; the logic lives in scripts/lib/.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOutputs, readInputs, staleFiles } from './lib/outputs.mjs';

function parseArgs(argv) {
  const args = { check: false, root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..') };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--check') args.check = true;
    else if (argv[i] === '--root' && argv[i + 1]) args.root = path.resolve(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]}; usage: generate.mjs [--check] [--root <dir>]`);
  }
  return args;
}

async function main() {
  const { check, root } = parseArgs(process.argv.slice(2));
  const outputs = await buildOutputs(await readInputs(root));
  const stale = await staleFiles(root, outputs);
  if (check) {
    if (stale.length === 0) return 0;
    console.error(`generated/ is stale; run \`npm run generate\`:\n${stale.map((f) => `  ${f}`).join('\n')}`);
    return 1;
  }
  for (const file of stale) {
    await fs.mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await fs.writeFile(path.join(root, file), outputs.get(file));
    console.log(`wrote ${file}`);
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(2);
  },
);
