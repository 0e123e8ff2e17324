// The answers of the bench's hand-written servers (baseline.mjs on node:http, floor.mjs on
// express): the token check, the role rules, and each request shape the mix sends mapped to
// fixed parameterized SQL on the bare driver, mysql2's prepared statements (DATABASE_URL) or
// better-sqlite3's (SQLITE_FILE). No query builder, no logging. It answers the mix as the
// service does, byte for byte, and is not a second implementation of the API: it trusts its
// input and knows only the filters the mix uses. Every answer is a pair [status, body].
import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';

/**
 * The engine: `all(sql, args)` resolves the rows of a SELECT; `text(col)` is a string column
 * as compared and sorted, `value(v)` a string value bound against it. SQLite compares
 * fold(col), as the service's indexes are built (its own fold function, registered here
 * too); MySQL's collation folds by itself.
 */
async function engineOf(env) {
  if (env.SQLITE_FILE) {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(env.SQLITE_FILE, { readonly: true });
    db.pragma('journal_mode = WAL');
    const fold = (v) => (typeof v === 'string' ? v.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase() : v);
    db.function('fold', { deterministic: true }, fold);
    const statements = new Map();
    return {
      all: async (sql, args) => {
        let st = statements.get(sql);
        if (!st) statements.set(sql, (st = db.prepare(sql)));
        return st.all(args);
      },
      text: (col) => `fold(${col})`,
      value: fold,
      date: (v) => new Date(v),
      sqlite: true,
    };
  }
  const { default: mysql } = await import('mysql2/promise');
  const u = new URL(env.DATABASE_URL);
  const pool = mysql.createPool({
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: u.pathname.slice(1),
    // Same driver settings and pool size as the service (src/db/connect.ts).
    connectionLimit: Number(env.POOL_MAX ?? 10),
    charset: 'utf8mb4',
    timezone: 'Z',
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
  return {
    all: async (sql, args) => (await pool.execute(sql, args))[0],
    text: (col) => col,
    value: (v) => v,
    date: (v) => v,
    sqlite: false,
  };
}

/** The roles of a valid bearer token in `authorization` (the header's value), or undefined. */
function tokenCheck(secret) {
  const key = crypto.createSecretKey(Buffer.from(secret, 'utf8'));
  const verifyOptions = { algorithms: ['HS256'], issuer: 'impianti-api', audience: 'impianti-api', clockTolerance: 30 };
  return (authorization) => {
    if (!authorization || !authorization.startsWith('Bearer ')) return undefined;
    try {
      return jwt.verify(authorization.slice(7), key, verifyOptions).roles;
    } catch {
      return undefined;
    }
  };
}

/** The roles each route admits, as the contract's `x-roles` (Admin admits everything). */
export const roles = { query: ['Admin'], files: ['Admin', 'ApiUser'] };
export const notFound = [404, { responseStatus: { errorCode: 'NotFound' } }];
export const failed = (err) => [err.status ?? 500, { responseStatus: { errorCode: 'InternalServerError', message: String(err.message) } }];

const tables = {
  SoggettoRecapitoQuery: {
    table: 'soggetto_recapito',
    fields: { id: 'id', soggettoId: 'soggetto_id', tipoRecapitoId: 'tipo_recapito_id', recapito: 'recapito', codiceEsterno: 'codice_esterno' },
    booleans: new Set(),
  },
  CaratteristicaGruppoQuery: {
    table: 'caratteristica_gruppo',
    fields: { id: 'id', descrizione: 'descrizione', tipoCaratteristicaSezioneId: 'tipo_caratteristica_sezione_id', isDisattiva: 'is_disattiva', iconaImmagineId: 'icona_immagine_id', ordineVista: 'ordine_vista' },
    booleans: new Set(['isDisattiva']),
  },
};
const lowerFirst = (s) => s[0].toLowerCase() + s.slice(1);
const upperFirst = (s) => s[0].toUpperCase() + s.slice(1);

// The `next` cursor, as the service signs it (design.md §7): the last row's sort values, the
// HMAC-SHA256 of the query's binding (operation, sorted filters, order) and those values.
function cursorSigner(env) {
  const cursorKey = Buffer.from(crypto.hkdfSync('sha256', env.CURSOR_SECRET || env.JWT_SECRET, 'impianti-api', 'query cursor', 32));
  return (binding, values) => {
    const payload = Buffer.from(JSON.stringify(values)).toString('base64url');
    return `${payload}.${crypto.createHmac('sha256', cursorKey).update(`${binding}\n${payload}`).digest('base64url').slice(0, 22)}`;
  };
}
const escapeLike = (v) => v.replace(/[\\%_]/g, (c) => `\\${c}`);

/** WHERE terms for the filters the mix sends. */
function where(engine, spec, body) {
  const sql = [];
  const args = [];
  // Each filter as the cursor's binding names it: [Field, operator, values].
  const filters = [];
  for (const [name, value] of Object.entries(body)) {
    let m;
    if ((m = /^(\w+)In$/.exec(name)) && spec.fields[m[1]]) {
      sql.push(`${spec.fields[m[1]]} IN (${value.map(() => '?').join(', ')})`);
      args.push(...value);
      filters.push(JSON.stringify([upperFirst(m[1]), 'in', value]));
    } else if ((m = /^(\w+)Between$/.exec(name)) && spec.fields[m[1]]) {
      sql.push(`${spec.fields[m[1]]} BETWEEN ? AND ?`);
      args.push(value[0], value[1]);
      filters.push(JSON.stringify([upperFirst(m[1]), 'between', value]));
    } else if ((m = /^(\w+)StartsWith$/.exec(name)) && spec.fields[m[1]]) {
      filters.push(JSON.stringify([upperFirst(m[1]), 'startsWith', [value]]));
      const col = engine.text(spec.fields[m[1]]);
      const prefix = engine.value(value);
      // SQLite uses an index on fold(col) only for a range (its LIKE optimization needs a bare column).
      if (engine.sqlite) (sql.push(`${col} >= ? AND ${col} < ?`), args.push(prefix, prefix.slice(0, -1) + String.fromCodePoint(prefix.codePointAt(prefix.length - 1) + 1)));
      sql.push(`${col} LIKE ? ESCAPE ?`);
      args.push(`${escapeLike(prefix)}%`, '\\');
    } else if (spec.fields[name]) {
      sql.push(`${spec.fields[name]} = ?`);
      args.push(typeof value === 'boolean' ? Number(value) : value);
      filters.push(JSON.stringify([upperFirst(name), 'eq', [value]]));
    }
  }
  return { sql: sql.length ? ` WHERE ${sql.join(' AND ')}` : '', args, filters: filters.sort() };
}

async function query(engine, cursorOf, operation, body) {
  const spec = tables[operation];
  const w = where(engine, spec, body);
  const take = Math.min(body.take ?? 100, 1000);
  const skip = body.skip ?? 0;
  const props = body.fields ? body.fields.split(',').map((f) => lowerFirst(f.trim())) : Object.keys(spec.fields);
  const order = body.orderBy ? `${spec.fields[lowerFirst(body.orderBy)]} ASC, id ASC` : 'id ASC';
  const orderProps = body.orderBy ? [lowerFirst(body.orderBy), 'id'] : ['id'];
  const read = [...new Set([...props, ...orderProps])];
  // One row past the page, as the service reads it, tells whether a further page exists.
  const page = engine.all(`SELECT ${read.map((p) => spec.fields[p]).join(', ')} FROM ${spec.table}${w.sql} ORDER BY ${order} LIMIT ? OFFSET ?`, [...w.args, take + 1, skip]);
  // Include: Total, COUNT(*) Alias and MAX(Field) Alias, in one summary statement.
  const selects = [];
  const meta = [];
  for (const item of (body.include ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    let m;
    if (item === 'Total') selects.push('COUNT(*) AS total');
    else if ((m = /^COUNT\(\*\) (\w+)$/.exec(item))) (selects.push(`COUNT(*) AS a${meta.length}`), meta.push(m[1]));
    else if ((m = /^MAX\((\w+)\) (\w+)$/.exec(item))) (selects.push(`MAX(${spec.fields[lowerFirst(m[1])]}) AS a${meta.length}`), meta.push(m[2]));
  }
  const summary = selects.length ? engine.all(`SELECT ${selects.join(', ')} FROM ${spec.table}${w.sql}`, w.args) : undefined;
  const [found, summaryRows] = await Promise.all([page, summary]);
  const s = summaryRows?.[0];
  const rows = found.slice(0, take);
  const results = rows.map((row) => {
    const out = {};
    for (const p of props) {
      const v = row[spec.fields[p]];
      if (v !== null) out[p] = spec.booleans.has(p) ? v !== 0 : v;
    }
    return out;
  });
  const response = { offset: skip };
  if (s && 'total' in s) response.total = Number(s.total);
  response.results = results;
  if (found.length > take) {
    const binding = JSON.stringify([operation, w.filters, orderProps.map((p) => [upperFirst(p), false])]);
    response.next = cursorOf(binding, orderProps.map((p) => rows.at(-1)[spec.fields[p]]));
  }
  if (meta.length) {
    response.meta = {};
    meta.forEach((alias, i) => {
      if (s[`a${i}`] !== null) response.meta[alias] = String(s[`a${i}`]);
    });
  }
  return response;
}

const fileColumns = 'f.id, f.nome, f.is_folder, f.folder_id, f.impianto_id, f.data_creazione, f.data_aggiornamento';
const fileDto = (engine, r) => {
  const dto = { id: r.id, nome: r.nome, isFolder: r.is_folder !== 0 };
  if (r.folder_id !== null) dto.folderId = r.folder_id;
  dto.dataCreazione = engine.date(r.data_creazione).toISOString();
  dto.dataAggiornamento = engine.date(r.data_aggiornamento).toISOString();
  if (r.impianto_id !== null) dto.impiantoId = r.impianto_id;
  return dto;
};

async function files(engine, impiantoId) {
  const [root] = await engine.all(
    `SELECT i.id AS found, ${fileColumns} FROM impianto i
       LEFT JOIN impianto_file f ON f.id = (SELECT MIN(r.id) FROM impianto_file r WHERE r.impianto_id = i.id AND r.folder_id IS NULL)
      WHERE i.id = ? LIMIT 1`,
    [impiantoId],
  );
  if (!root) return undefined;
  if (root.id === null) return { contents: [] };
  const contents = root.is_folder
    ? await engine.all(`SELECT ${fileColumns} FROM impianto_file f WHERE f.folder_id = ? ORDER BY f.is_folder DESC, ${engine.text('f.nome')} ASC, f.id ASC`, [root.id])
    : [];
  return { rootFile: fileDto(engine, root), contents: contents.map((r) => fileDto(engine, r)) };
}

/**
 * The answers on the database `env` names (DATABASE_URL or SQLITE_FILE), with the tokens and
 * cursors of JWT_SECRET (CURSOR_SECRET): `operations` the query DTOs it answers; `denied` the
 * 401 or 403 for a header's token and a route's roles, or undefined; `ready`, `query` and
 * `files` each resolve a pair [status, body].
 */
export async function bareAnswers(env) {
  const engine = await engineOf(env);
  const rolesOf = tokenCheck(env.JWT_SECRET);
  const cursorOf = cursorSigner(env);
  return {
    operations: Object.keys(tables),
    denied(authorization, allowed) {
      const granted = rolesOf(authorization);
      if (!granted) return [401, { responseStatus: { errorCode: 'Unauthorized' } }];
      if (!allowed.some((r) => granted.includes(r))) return [403, { responseStatus: { errorCode: 'Forbidden' } }];
      return undefined;
    },
    ready: async () => (await engine.all('SELECT 1', []), [200, { status: 'ok' }]),
    query: async (operation, body) => [200, await query(engine, cursorOf, operation, body)],
    files: async (impiantoId) => {
      const body = await files(engine, impiantoId);
      return body ? [200, body] : notFound;
    },
  };
}
