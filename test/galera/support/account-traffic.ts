// The steady mix the Galera suite drives through the service nodes, as a balancer spreads it:
// registrations with unique user names, sign-ins of registered users, refreshes of the refresh
// tokens they hold, and an Admin's searches. Every request is recorded (when, which node, its
// status or transport error), and every write the client saw acknowledged is kept in a ledger
// to check against each database node. A write answered with an error has an unknown outcome
// (the commit may have happened before the answer failed): it is kept aside, never reused, and
// asked about afterwards (probeUnknown) to count writes done although refused ("ghosts").
import crypto from 'node:crypto';
import { sleep } from './galera-cluster.js';
import { seededRandom } from '../../../src/db/seeded-random.js';

export type Op = 'register' | 'sign-in' | 'refresh' | 'query';
export const writeOps: readonly Op[] = ['register', 'sign-in', 'refresh'];

export interface Rec {
  readonly op: Op;
  /** The service node that answered (after a refused connection, the next one). */
  readonly node: number;
  readonly start: number;
  readonly end: number;
  readonly status?: number;
  readonly errorCode?: string;
  /** Transport failure: the cause's code (ECONNREFUSED, UND_ERR_SOCKET, TimeoutError...). */
  readonly error?: string;
}

export const acknowledged = (r: Rec) => r.status === 200 || r.status === 201;
/** `503`, `401`, `ERR:UND_ERR_SOCKET`... */
export const outcomeOf = (r: Rec) => (r.status !== undefined ? String(r.status) : `ERR:${r.error}`);

interface Held {
  readonly token: string;
  readonly session: string;
}

const sha256 = (token: string) => crypto.createHash('sha256').update(token, 'utf8').digest('hex');

export class AccountTraffic {
  readonly records: Rec[] = [];
  /** Acknowledged registrations: user name (lower case, as stored in user_name_key) -> when. */
  readonly users = new Map<string, number>();
  /** Acknowledged sessions (register with autoLogin, sign-in): id -> when. */
  readonly sessions = new Map<string, number>();
  /** Acknowledged refresh tokens, by SHA-256 (the stored form) -> session. */
  readonly issued = new Map<string, string>();
  /** Acknowledged spends (a refresh answered 200), by SHA-256 -> when. */
  readonly spent = new Map<string, number>();
  /** Spent tokens themselves, for the replay probe. */
  readonly spentTokens: Array<Held & { at: number }> = [];
  /** Sessions the test revoked on purpose (a replayed spent token). */
  readonly revoked = new Set<string>();
  /** Writes answered with an error: their outcome is unknown until probed. */
  readonly unknownRegistrations: string[] = [];
  readonly unknownRefreshes: Held[] = [];
  /** Probed: refused writes that had been done all the same, and ones that had not. */
  readonly ghosts = { registrations: 0, refreshes: 0 };
  readonly notDone = { registrations: 0, refreshes: 0 };
  private readonly live: Held[] = [];
  private readonly registered: string[] = [];
  private readonly tag = crypto.randomBytes(3).toString('hex');
  private n = 0;
  private k = 0;
  private readonly random: () => number;
  private readonly password = 'galera-password-1';

  constructor(private readonly nodes: () => readonly string[], private readonly adminToken: string, seed: number) {
    this.random = seededRandom(seed);
  }

  /** `concurrency` client loops until `stop()`, each waiting `pauseMs` between requests; `only`: loops of that one operation. */
  async run(concurrency: number, stop: () => boolean, pauseMs = 10, only?: Op): Promise<void> {
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (!stop()) {
        await this.step(only);
        await sleep(pauseMs);
      }
    }));
  }

  private pick(): Op {
    const x = this.random();
    if (x < 0.3) return 'register';
    if (x < 0.45) return this.registered.length > 0 ? 'sign-in' : 'register';
    if (x < 0.7) return this.live.length > 0 ? 'refresh' : 'register';
    return 'query';
  }

  private async step(only?: Op): Promise<void> {
    const op = only ?? this.pick();
    if (op === 'register') {
      const userName = `g${this.tag}-${this.n++}`;
      const { rec, body } = await this.send(op, 'POST', '/register', { userName, password: this.password, autoLogin: true });
      if (acknowledged(rec)) {
        this.users.set(userName, rec.end);
        this.registered.push(userName);
        this.hold(String(body['refreshToken']), String(body['sessionId']), rec.end);
      } else {
        this.unknownRegistrations.push(userName);
      }
    } else if (op === 'sign-in') {
      const userName = this.registered[Math.floor(this.random() * this.registered.length)]!;
      const { rec, body } = await this.send(op, 'POST', '/auth/credentials', { userName, password: this.password });
      if (acknowledged(rec)) this.hold(String(body['refreshToken']), String(body['sessionId']), rec.end);
    } else if (op === 'refresh') {
      // Taken out of the pool: no two loops present one token.
      const held = this.live.splice(Math.floor(this.random() * this.live.length), 1)[0]!;
      const { rec, body } = await this.send(op, 'POST', '/access-token', { refreshToken: held.token });
      if (acknowledged(rec)) {
        this.spent.set(sha256(held.token), rec.end);
        this.spentTokens.push({ ...held, at: rec.end });
        this.hold(String(body['refreshToken']), held.session, rec.end);
      } else {
        this.unknownRefreshes.push(held);
      }
    } else {
      await this.send(op, 'GET', '/json/reply/SoggettoRecapitoQuery?take=5', undefined, this.adminToken);
    }
  }

  private hold(token: string, session: string, at: number): void {
    this.sessions.set(session, this.sessions.get(session) ?? at);
    this.issued.set(sha256(token), session);
    this.live.push({ token, session });
  }

  /** One request to the next node in turn; a refused connection goes to the next node, as a balancer retries it. */
  async send(op: Op, method: 'GET' | 'POST', route: string, body?: unknown, bearer?: string): Promise<{ rec: Rec; body: Record<string, unknown> }> {
    const nodes = this.nodes();
    const first = this.k++ % nodes.length;
    let rec: Rec | undefined;
    let parsed: Record<string, unknown> = {};
    for (let tried = 0; tried < nodes.length; tried++) {
      const node = (first + tried) % nodes.length;
      const start = performance.now();
      try {
        const res = await fetch(nodes[node] + route, {
          method,
          headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(15_000),
        });
        const text = await res.text();
        try {
          parsed = JSON.parse(text) as Record<string, unknown>;
        } catch { /* not JSON */ }
        const errorCode = (parsed['responseStatus'] as { errorCode?: string } | undefined)?.errorCode;
        rec = { op, node, start, end: performance.now(), status: res.status, ...(errorCode ? { errorCode } : {}) };
        break;
      } catch (err) {
        const e = err as { name?: string; cause?: { code?: string; name?: string } };
        rec = { op, node, start, end: performance.now(), error: e.cause?.code ?? e.cause?.name ?? e.name ?? String(err) };
        if (rec.error !== 'ECONNREFUSED') break;
      }
    }
    this.records.push(rec!);
    return { rec: rec!, body: parsed };
  }

  /**
   * Asks about every write answered with an error, once the cluster is whole again: the
   * same registration again (200: it had not been done; 409: it had, a ghost) and the same
   * refresh token again (200: not spent; 401: it had been spent, a ghost, and its session
   * is now revoked).
   */
  async probeUnknown(): Promise<void> {
    for (const userName of this.unknownRegistrations.splice(0)) {
      const { rec } = await this.send('register', 'POST', '/register', { userName, password: this.password });
      if (acknowledged(rec)) {
        this.notDone.registrations++;
        this.users.set(userName, rec.end);
        this.registered.push(userName);
      } else if (rec.status === 409) {
        this.ghosts.registrations++;
        this.users.set(userName, rec.end);
        this.registered.push(userName);
      }
    }
    for (const held of this.unknownRefreshes.splice(0)) {
      const { rec, body } = await this.send('refresh', 'POST', '/access-token', { refreshToken: held.token });
      if (acknowledged(rec)) {
        this.notDone.refreshes++;
        this.spent.set(sha256(held.token), rec.end);
        this.spentTokens.push({ ...held, at: rec.end });
        this.hold(String(body['refreshToken']), held.session, rec.end);
      } else if (rec.status === 401) {
        this.ghosts.refreshes++;
        this.revoke(held.session);
      }
    }
  }

  /**
   * Presents a token whose spend was acknowledged (the latest before `before`): the answer
   * should be 401, and the session is revoked from then on, so its live tokens leave the pool.
   */
  async replaySpent(before = Infinity): Promise<{ status: string; spentAt: number } | undefined> {
    const candidates = this.spentTokens.filter((t) => t.at < before && !this.revoked.has(t.session));
    const victim = candidates[candidates.length - 1];
    if (!victim) return undefined;
    this.revoke(victim.session);
    const { rec } = await this.send('refresh', 'POST', '/access-token', { refreshToken: victim.token });
    // Not a request of the mix: kept out of the fault's figures.
    this.records.pop();
    return { status: outcomeOf(rec), spentAt: victim.at };
  }

  private revoke(session: string): void {
    this.revoked.add(session);
    for (let i = this.live.length - 1; i >= 0; i--) if (this.live[i]!.session === session) this.live.splice(i, 1);
  }
}

/** What one database node holds of the ledger. */
export interface NodeCheck {
  readonly node: number;
  readonly acknowledged: number;
  readonly found: number;
  readonly missing: { users: number; sessions: number; tokens: number; spends: number };
  /** Acknowledged users stored more than once; live sessions with more than one unspent token. */
  readonly doubled: { users: number; sessionsWithTwoLiveTokens: number };
  readonly rows: { app_user: number; auth_session: number; refresh_token: number };
}

export type Query = <T>(sql: string) => Promise<T[]>;

export async function checkNode(node: number, query: Query, t: AccountTraffic): Promise<NodeCheck> {
  const users = new Map((await query<{ k: string; n: number }>('SELECT user_name_key AS k, COUNT(*) AS n FROM impianti.app_user GROUP BY user_name_key')).map((r) => [String(r.k), Number(r.n)]));
  const sessions = new Set((await query<{ id: string }>('SELECT id FROM impianti.auth_session')).map((r) => String(r.id)));
  const tokens = await query<{ h: string; s: string; spent: number }>('SELECT token_hash AS h, session_id AS s, spent_at IS NOT NULL AS spent FROM impianti.refresh_token');
  const spentOf = new Map(tokens.map((r) => [String(r.h), Number(r.spent) === 1]));
  const liveBySession = new Map<string, number>();
  for (const r of tokens) if (Number(r.spent) !== 1) liveBySession.set(String(r.s), (liveBySession.get(String(r.s)) ?? 0) + 1);
  const missing = {
    users: [...t.users.keys()].filter((u) => !users.has(u)).length,
    sessions: [...t.sessions.keys()].filter((s) => !sessions.has(s)).length,
    tokens: [...t.issued.keys()].filter((h) => !spentOf.has(h)).length,
    spends: [...t.spent.keys()].filter((h) => spentOf.get(h) !== true).length,
  };
  const acknowledgedWrites = t.users.size + t.sessions.size + t.issued.size + t.spent.size;
  return {
    node,
    acknowledged: acknowledgedWrites,
    found: acknowledgedWrites - Object.values(missing).reduce((a, b) => a + b, 0),
    missing,
    doubled: {
      users: [...t.users.keys()].filter((u) => (users.get(u) ?? 0) > 1).length,
      sessionsWithTwoLiveTokens: [...t.sessions.keys()].filter((s) => !t.revoked.has(s) && (liveBySession.get(s) ?? 0) > 1).length,
    },
    rows: { app_user: users.size === 0 ? 0 : [...users.values()].reduce((a, b) => a + b, 0), auth_session: sessions.size, refresh_token: tokens.length },
  };
}
