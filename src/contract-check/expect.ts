// Expectations inside a case. A broken one ends the case as failed (CaseFailure); a case
// that cannot run on this deployment ends as skipped (CaseSkipped) with the reason.
import type { CheckedResponse, Session, SuiteState } from './suite-types.js';

export class CaseFailure extends Error {}
export class CaseSkipped extends Error {}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CaseFailure(message);
}

export function skip(reason: string): never {
  throw new CaseSkipped(reason);
}

export function expectStatus(r: CheckedResponse, status: number): void {
  check(r.status === status, `expected status ${status}, got ${r.status}: ${r.text.slice(0, 300)}`);
}

/** The ResponseStatus envelope of a failure (design.md §3); the schema is checked separately. */
export function expectError(r: CheckedResponse, status: number, errorCode: string, fieldName?: string): void {
  expectStatus(r, status);
  const rs = r.body?.responseStatus;
  check(rs?.errorCode === errorCode, `expected errorCode ${errorCode}, got ${String(rs?.errorCode)}`);
  if (fieldName !== undefined) {
    const names: string[] = (rs.errors ?? []).map((e: { fieldName: string }) => e.fieldName);
    check(names.includes(fieldName), `expected a field error naming ${fieldName}, got [${names.join(', ')}]`);
  }
}

export function needUser(state: SuiteState): Session {
  return state.user ?? fail('needs the user an earlier case registers and signs in, and that failed');
}

export function needAdmin(state: SuiteState): Session {
  return state.admin ?? fail('needs the admin session, and the admin sign-in failed');
}

function fail(message: string): never {
  throw new CaseFailure(message);
}
