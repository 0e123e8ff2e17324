// Runs the contract cases in order against one deployment. Every answer is judged against
// the spec by the shared response validator; a case fails on a broken expectation or on
// any contract violation in the answers it saw. Fails closed: an operation of the spec
// without both a positive and a negative case makes the run fail too.
import { randomBytes } from 'node:crypto';
import { contractCases } from './cases.js';
import { CaseFailure, CaseSkipped } from './expect.js';
import { exchange } from './http-exchange.js';
import { createResponseValidator } from './response-validator.js';
import { loadSpecDocument, specRoutes, type Json } from './spec-routes.js';
import type { CaseContext, CaseResult, ContractCase, SuiteReport, SuiteState } from './suite-types.js';

export interface SuiteOptions {
  readonly baseUrl: string;
  readonly admin?: { readonly userName: string; readonly password: string } | undefined;
  /** An Impianto that exists on the deployment, for the positive files cases (default 1). */
  readonly impiantoId?: number;
  readonly timeoutMs?: number;
  /** The contract to hold the deployment to (default the routes document, generated/openapi-routes.json: every route). */
  readonly document?: Json;
  readonly cases?: readonly ContractCase[];
}

export async function runContractSuite(options: SuiteOptions): Promise<SuiteReport> {
  const document = options.document ?? loadSpecDocument();
  const validate = createResponseValidator(document);
  const cases = options.cases ?? contractCases;
  const state: SuiteState = { runId: randomBytes(5).toString('hex') };
  const results: CaseResult[] = [];

  for (const c of cases) {
    const started = Date.now();
    const notes: string[] = [];
    let violations = 0;
    const ctx: CaseContext = {
      state,
      impiantoId: options.impiantoId ?? 1,
      admin: options.admin,
      async call(method, path, callOptions = {}) {
        const r = await exchange(options.baseUrl, method, path, callOptions, options.timeoutMs ?? 10_000);
        const verdict = validate({ method, path, ...r });
        violations += verdict.violations.length;
        notes.push(...verdict.violations.map((v) => `contract: ${method} ${path} -> ${r.status}: ${v}`));
        return { ...r, body: parseJson(r) };
      },
    };
    let outcome: CaseResult['outcome'] = 'pass';
    if (c.needsAdmin && !options.admin) {
      outcome = 'skip';
      notes.push('needs admin credentials (--admin-user, --admin-password-env)');
    } else {
      try {
        await c.run(ctx);
      } catch (err) {
        if (err instanceof CaseSkipped) outcome = 'skip';
        else outcome = 'fail';
        notes.push(err instanceof CaseFailure || err instanceof CaseSkipped ? err.message : `error: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (violations > 0) outcome = 'fail';
    }
    results.push({ name: c.name, operationId: c.operationId, outcome, notes, violations, ms: Date.now() - started });
  }

  // Every operation needs its cases; its variant routes run the same operation and are
  // proven to reach it by the route census (test/http/route-census.test.ts).
  const uncovered = specRoutes(document).operations.filter((o) => o.canonical).map((o) => o.operationId).filter((id) =>
    !(['positive', 'negative'] as const).every((kind) => cases.some((c) => c.operationId === id && c.kind === kind)));
  const count = (outcome: CaseResult['outcome']) => results.filter((r) => r.outcome === outcome).length;
  const failed = count('fail');
  return {
    baseUrl: options.baseUrl,
    results,
    uncovered,
    passed: count('pass'),
    failed,
    skipped: count('skip'),
    violations: results.reduce((n, r) => n + r.violations, 0),
    ok: failed === 0 && uncovered.length === 0,
  };
}

function parseJson(r: { headers: Headers; text: string }): unknown {
  if (!(r.headers.get('content-type') ?? '').includes('json') || r.text === '') return undefined;
  try {
    return JSON.parse(r.text) as unknown;
  } catch {
    return undefined;
  }
}
