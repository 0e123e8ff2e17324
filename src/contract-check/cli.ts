#!/usr/bin/env node
// npm run test:contract -- --base-url URL [--admin-user NAME --admin-password-env VAR]
//   [--impianto-id N] [--timeout-ms MS]
// Holds a running deployment to the routes document (generated/openapi-routes.json: every
// route, design.md §2). Exit 0: it conforms (skipped cases
// allowed); 1: a case failed, a response broke the contract or an operation is uncovered;
// 2: bad arguments. The admin password is read from an environment variable so it never
// appears in the process list or the shell history.
import { parseArgs } from 'node:util';
import { formatReport } from './report.js';
import { runContractSuite, type SuiteOptions } from './run-suite.js';

const usage = 'usage: npm run test:contract -- --base-url URL [--admin-user NAME --admin-password-env VAR] [--impianto-id N] [--timeout-ms MS]';

function optionsFrom(argv: readonly string[], env: NodeJS.ProcessEnv): SuiteOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      'base-url': { type: 'string' },
      'admin-user': { type: 'string' },
      'admin-password-env': { type: 'string' },
      'impianto-id': { type: 'string' },
      'timeout-ms': { type: 'string' },
    },
    strict: true,
  });
  const baseUrl = values['base-url'];
  if (!baseUrl || !/^https?:\/\//.test(baseUrl)) throw new UsageError('--base-url must be an http(s) URL');
  const user = values['admin-user'];
  const passwordEnv = values['admin-password-env'];
  if ((user === undefined) !== (passwordEnv === undefined)) throw new UsageError('--admin-user and --admin-password-env go together');
  let admin: SuiteOptions['admin'];
  if (user !== undefined && passwordEnv !== undefined) {
    const password = env[passwordEnv];
    if (!password) throw new UsageError(`the environment variable ${passwordEnv} (--admin-password-env) is not set`);
    admin = { userName: user, password };
  }
  return { baseUrl, admin, impiantoId: positive(values['impianto-id'], '--impianto-id', 1), timeoutMs: positive(values['timeout-ms'], '--timeout-ms', 10_000) };
}

class UsageError extends Error {}

function positive(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new UsageError(`${name} must be a positive integer, got "${raw}"`);
  return Number(raw);
}

async function main(): Promise<number> {
  let options: SuiteOptions;
  try {
    options = optionsFrom(process.argv.slice(2), process.env);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${usage}\n`);
    return 2;
  }
  const report = await runContractSuite(options);
  process.stdout.write(formatReport(report));
  return report.ok ? 0 : 1;
}

main().then(
  (code) => { process.exitCode = code; },
  (err: unknown) => {
    process.stderr.write(`contract check crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 2;
  },
);
