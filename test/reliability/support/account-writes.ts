// A write load of account lifecycles (register with a session, refresh, sign in, log out)
// that keeps a ledger of every write the client saw acknowledged, with when, and checks a
// database against it: each acknowledged write present, and nothing half-written (a user
// without its roles, a live session without its refresh token). The loops survive the
// service dying under them: a request that fails is simply not in the ledger.
import crypto from 'node:crypto';
import { sleep } from './traffic.js';

/** When a write was acknowledged (performance.now()). */
type At = number;

export interface Ledger {
  readonly users: Map<string, At>;
  readonly sessions: Map<string, At>;
  readonly revoked: Map<string, At>;
  /** Refresh tokens issued, by SHA-256 (the stored form). */
  readonly tokens: Map<string, At>;
  readonly spent: Map<string, At>;
}

export const newLedger = (): Ledger => ({ users: new Map(), sessions: new Map(), revoked: new Map(), tokens: new Map(), spent: new Map() });
export const writesIn = (l: Ledger, before = Infinity): number =>
  [l.users, l.sessions, l.revoked, l.tokens, l.spent].reduce((n, m) => n + [...m.values()].filter((at) => at < before).length, 0);
const hash = (token: string) => crypto.createHash('sha256').update(token, 'utf8').digest('hex');

async function post(url: string, body: unknown, bearer?: string): Promise<Record<string, string> | undefined> {
  try {
    const res = await fetch(url, {
      method: 'POST', body: JSON.stringify(body), signal: AbortSignal.timeout(10_000),
      headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    });
    const json = (await res.json()) as Record<string, string>;
    return res.status === 200 ? json : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `concurrency` loops of account lifecycles against `base()` (the service's current URL)
 * until `stop()`; a failed step starts the next lifecycle after a short pause.
 */
export async function accountWrites(base: () => string, ledger: Ledger, concurrency: number, stop: () => boolean): Promise<void> {
  const tag = crypto.randomBytes(3).toString('hex');
  let n = 0;
  const lifecycle = async (): Promise<boolean> => {
    const userName = `w${tag}-${n++}`;
    const password = 'password-of-a-writer';
    const reg = await post(`${base()}/register`, { userName, password, autoLogin: true });
    if (!reg) return false;
    const now = performance.now();
    ledger.users.set(userName.toLowerCase(), now);
    ledger.sessions.set(reg['sessionId']!, now);
    ledger.tokens.set(hash(reg['refreshToken']!), now);
    const refreshed = await post(`${base()}/access-token`, { refreshToken: reg['refreshToken'] });
    if (!refreshed) return false;
    ledger.spent.set(hash(reg['refreshToken']!), performance.now());
    ledger.tokens.set(hash(refreshed['refreshToken']!), performance.now());
    const signIn = await post(`${base()}/auth/credentials`, { userName, password });
    if (!signIn) return false;
    ledger.sessions.set(signIn['sessionId']!, performance.now());
    ledger.tokens.set(hash(signIn['refreshToken']!), performance.now());
    const out = await post(`${base()}/auth/logout`, {}, signIn['bearerToken']);
    if (!out) return false;
    ledger.revoked.set(signIn['sessionId']!, performance.now());
    return true;
  };
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (!stop()) if (!(await lifecycle())) await sleep(50);
  }));
}

/** Runs one SQL text with positional `?` bindings and returns its rows. */
export type Query = (sql: string) => Promise<Array<Record<string, unknown>>>;

export interface LedgerCheck {
  readonly acknowledged: number;
  /** Acknowledged writes the database lacks, by kind. */
  readonly lost: Readonly<Record<'users' | 'sessions' | 'revocations' | 'tokens' | 'spends', number>>;
  readonly usersWithoutRoles: number;
  readonly liveSessionsWithoutToken: number;
}

export const lostTotal = (c: LedgerCheck) => Object.values(c.lost).reduce((a, b) => a + b, 0);

/** The ledger's writes acknowledged before `before` against the database `query` reads. */
export async function checkLedger(query: Query, ledger: Ledger, before = Infinity): Promise<LedgerCheck> {
  const acked = <T>(m: Map<string, At>) => [...m].filter(([, at]) => at < before).map(([k]) => k) as T[];
  const users = new Set((await query('SELECT user_name_key AS k FROM app_user')).map((r) => String(r['k'])));
  const sessions = new Map((await query('SELECT id, revoked_at FROM auth_session')).map((r) => [String(r['id']), r['revoked_at'] != null]));
  const tokens = new Map((await query('SELECT token_hash, spent_at FROM refresh_token')).map((r) => [String(r['token_hash']), r['spent_at'] != null]));
  const count = async (sql: string) => Number(Object.values((await query(sql))[0]!)[0]);
  return {
    acknowledged: writesIn(ledger, before),
    lost: {
      users: acked<string>(ledger.users).filter((u) => !users.has(u)).length,
      sessions: acked<string>(ledger.sessions).filter((s) => !sessions.has(s)).length,
      revocations: acked<string>(ledger.revoked).filter((s) => sessions.get(s) !== true).length,
      tokens: acked<string>(ledger.tokens).filter((t) => !tokens.has(t)).length,
      spends: acked<string>(ledger.spent).filter((t) => tokens.get(t) !== true).length,
    },
    usersWithoutRoles: await count('SELECT COUNT(*) AS n FROM app_user u WHERE NOT EXISTS (SELECT 1 FROM app_user_role r WHERE r.user_id = u.id)'),
    liveSessionsWithoutToken: await count('SELECT COUNT(*) AS n FROM auth_session s WHERE s.revoked_at IS NULL AND NOT EXISTS (SELECT 1 FROM refresh_token t WHERE t.session_id = s.id)'),
  };
}
