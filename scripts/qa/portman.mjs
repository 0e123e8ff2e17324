#!/usr/bin/env node
// QA's contract run against any deployment (README, "For QA"): converts the served
// /openapi.json into a Postman collection with Portman's contract tests (status, content
// type, JSON body, JSON schema with no undeclared property, required headers), then runs it
// with newman. The Portman config (scripts/qa/portman-config.json) signs in first with the
// admin, uses the bearer token for protected operations, carries the refresh token to
// GetAccessToken and registers unique users; JSON Lines answers get a line-by-line test of
// their own (json-lines-tests.mjs), and each body that may be a form is sent once more as
// one, its form example (form-variations.mjs).
//   npm run qa:portman -- --url URL --admin-user NAME --admin-password-env VAR [--report FILE] [--keep DIR]
// Exit 0 when every request answered, no assertion failed and every operation was requested.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import newman from 'newman';
import { formOperations, withFormVariations } from './form-variations.mjs';
import { jsonLinesOperations, withJsonLinesTests } from './json-lines-tests.mjs';
import { requestedOperations } from './operations-requested.mjs';
import { strictDocument } from './strict-document.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const usage = 'usage: portman.mjs --url URL --admin-user NAME --admin-password-env VAR [--report FILE] [--keep DIR]';

function parseArgs(argv) {
  const args = {};
  const names = { '--url': 'url', '--admin-user': 'adminUser', '--admin-password-env': 'passwordEnv', '--report': 'report', '--keep': 'keep' };
  for (let i = 0; i < argv.length; i++) {
    const name = names[argv[i]];
    if (!name || argv[i + 1] === undefined) throw new Error(`unknown or incomplete argument ${argv[i]}; ${usage}`);
    args[name] = argv[++i];
  }
  for (const required of ['url', 'adminUser', 'passwordEnv']) if (!args[required]) throw new Error(`--${required.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is required; ${usage}`);
  const password = process.env[args.passwordEnv];
  if (!password) throw new Error(`the environment variable ${args.passwordEnv} (--admin-password-env) is empty`);
  return { ...args, url: args.url.replace(/\/+$/, ''), password };
}

function runPortman(dir, documentFile, baseUrl, configFile, collectionFile) {
  const bin = path.join(path.dirname(createRequire(import.meta.url).resolve('@apideck/portman/package.json')), 'bin', 'portman');
  const args = [bin, '--local', documentFile, '--baseUrl', baseUrl, '--portmanConfigFile', configFile,
    '--postmanConfigFile', path.join(here, 'postman-config.json'), '--output', collectionFile, '--logAssignVariables', 'false'];
  return new Promise((resolve, reject) => {
    // Portman writes its working files under ./tmp: a directory of the run's own.
    const child = spawn(process.execPath, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 && fs.existsSync(collectionFile) ? resolve() : reject(new Error(`portman exited with ${code}:\n${output}`))));
  });
}

/** Tests Portman wrote as a console line instead of an assertion (a schema it could not compile). */
function disabledTests(collection) {
  const found = [];
  const walk = (items) => items.forEach((item) => {
    if (item.item) return walk(item.item);
    const exec = (item.event ?? []).filter((e) => e.listen === 'test').flatMap((e) => e.script?.exec ?? []).join('\n');
    if (/Response Validation - Disabled/.test(exec)) found.push(item.name);
  });
  walk(collection.item ?? []);
  return found;
}

function runNewman(collection, args) {
  return new Promise((resolve, reject) => {
    newman.run({
      collection,
      envVar: [{ key: 'adminUserName', value: args.adminUser }, { key: 'adminPassword', value: args.password }],
      reporters: ['cli'],
      timeoutRequest: 60_000,
    }, (err, summary) => (err ? reject(err) : resolve(summary)));
  });
}

export async function main(argv) {
  const args = parseArgs(argv);
  const started = Date.now();
  const served = await fetch(`${args.url}/openapi.json`);
  if (!served.ok) throw new Error(`GET ${args.url}/openapi.json answered ${served.status}`);
  const document = await served.json();
  const dir = args.keep ? path.resolve(args.keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-qa-'));
  fs.mkdirSync(dir, { recursive: true });
  try {
    const strict = strictDocument(document);
    const forms = formOperations(strict);
    const jsonLines = jsonLinesOperations(strict);
    const config = withFormVariations(withJsonLinesTests(JSON.parse(fs.readFileSync(path.join(here, 'portman-config.json'), 'utf8')), jsonLines), forms, jsonLines);
    const files = { document: path.join(dir, 'openapi.strict.json'), config: path.join(dir, 'portman-config.json'), collection: path.join(dir, 'collection.json') };
    fs.writeFileSync(files.document, JSON.stringify(strict));
    fs.writeFileSync(files.config, JSON.stringify(config, null, 2));
    await runPortman(dir, files.document, args.url, files.config, files.collection);
    const collection = JSON.parse(fs.readFileSync(files.collection, 'utf8'));
    const disabled = disabledTests(collection);
    const summary = await runNewman(collection, args);
    const requests = summary.run.executions.map((e) => ({ method: e.request.method, path: e.request.url.getPath() }));
    // The form variations' requests, as sent: a urlencoded body.
    const formRequests = summary.run.executions.filter((e) => e.request.body?.mode === 'urlencoded').length;
    const { requested, missing } = requestedOperations(document, requests, new URL(args.url).pathname.replace(/\/$/, ''));
    const { stats } = summary.run;
    const report = {
      requests: stats.requests.total,
      requestsFailed: stats.requests.failed,
      assertions: stats.assertions.total,
      failures: summary.run.failures.length,
      formVariations: forms.length,
      formRequests,
      operations: requested.length + missing.length,
      requested,
      missing,
      disabledTests: disabled,
      ms: Date.now() - started,
    };
    if (args.report) fs.writeFileSync(args.report, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`qa-portman: ${report.requests} requests (${formRequests} with a form body), ${report.assertions} assertions, ${report.failures} failures; `
      + `${requested.length}/${report.operations} operations requested${missing.length ? ` (missing: ${missing.join(', ')})` : ''}; ${report.ms} ms\n`);
    for (const name of disabled) process.stdout.write(`qa-portman: Portman disabled the schema test of "${name}"\n`);
    return report.failures === 0 && report.requestsFailed === 0 && missing.length === 0 && disabled.length === 0 && formRequests === forms.length ? 0 : 1;
  } finally {
    if (!args.keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err) => { process.stderr.write(`qa-portman: ${err.message}\n`); process.exitCode = 2; });
}
