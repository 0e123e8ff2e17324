// The vocabulary of the contract suite: a case is one named exchange (or a short story of
// them) with the outcome the contract promises; cases share the accounts they create
// through SuiteState, in the order the suite lists them.

export interface CallOptions {
  readonly json?: unknown;
  readonly form?: Record<string, string>;
  /** Sent as-is, with headers['content-type'] if given. */
  readonly body?: string;
  readonly headers?: Record<string, string>;
  readonly token?: string;
}

export interface CheckedResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** Parsed JSON when the answer is JSON. `any`: cases read the shapes the schema already checked. */
  readonly body: any;
}

export interface Session {
  readonly userName: string;
  readonly password: string;
  bearerToken: string;
  refreshToken: string;
  roles: readonly string[];
}

export interface SuiteState {
  /** Makes this run's user names unique, so the suite can run again on the same deployment. */
  readonly runId: string;
  user?: Session;
  admin?: Session;
}

export interface CaseContext {
  readonly state: SuiteState;
  readonly impiantoId: number;
  /** Credentials of an Admin account; cases that need them are skipped when absent. */
  readonly admin: { readonly userName: string; readonly password: string } | undefined;
  /** One request; its answer is checked against the contract and any violation is recorded. */
  call(method: string, path: string, options?: CallOptions): Promise<CheckedResponse>;
}

export interface ContractCase {
  /** `<operationId>: what the contract promises`. */
  readonly name: string;
  /** The operation the case covers (for a 405, the route's operation). */
  readonly operationId: string;
  /** positive: a 2xx answer is expected. */
  readonly kind: 'positive' | 'negative';
  /** Cases that need an Admin token are skipped without admin credentials. */
  readonly needsAdmin?: boolean;
  run(ctx: CaseContext): Promise<void>;
}

export type CaseOutcome = 'pass' | 'fail' | 'skip';

export interface CaseResult {
  readonly name: string;
  readonly operationId: string;
  readonly outcome: CaseOutcome;
  /** Why it failed (expectations and contract violations) or why it was skipped. */
  readonly notes: readonly string[];
  readonly violations: number;
  readonly ms: number;
}

export interface SuiteReport {
  readonly baseUrl: string;
  readonly results: readonly CaseResult[];
  /** operationIds of the contract without both a positive and a negative case. */
  readonly uncovered: readonly string[];
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly violations: number;
  /** True when nothing failed and every operation is covered. */
  readonly ok: boolean;
}
