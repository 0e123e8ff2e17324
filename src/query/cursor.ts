// Keyset cursors (design.md §7): the last row's sort values, its key last, bound to the
// query's filters and order and signed with a key derived from the server's secret, so a
// cursor works on every node and after a restart and never opens another query's rows.
// Clients treat it as opaque: `<payload>.<tag>`, both base64url.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** One sort value as the row held it; integers and booleans travel as numbers. */
export type CursorValue = number | string | null;

/** 132 bits of the HMAC-SHA256, base64url: the digest's string is cut, not a Buffer of it made and encoded (a microsecond a page). */
const tagChars = 22;

/** The HMAC key of the cursors, derived once from the server's secret (HKDF-SHA256). */
export function cursorKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'impianti-api', 'query cursor', 32));
}

function tagOf(key: Buffer, binding: string, payload: string): string {
  return createHmac('sha256', key).update(`${binding}\n${payload}`).digest('base64url').slice(0, tagChars);
}

export function encodeCursor(values: readonly CursorValue[], binding: string, key: Buffer): string {
  const payload = Buffer.from(JSON.stringify(values)).toString('base64url');
  return `${payload}.${tagOf(key, binding, payload)}`;
}

/**
 * The values a cursor holds, or undefined when it was not signed with this key for this
 * binding (altered, from another query, or from a server with another secret).
 */
export function decodeCursor(text: string, binding: string, key: Buffer): unknown[] | undefined {
  const dot = text.indexOf('.');
  if (dot <= 0) return undefined;
  const payload = text.slice(0, dot);
  const given = Buffer.from(text.slice(dot + 1));
  const wanted = Buffer.from(tagOf(key, binding, payload));
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return undefined;
  try {
    const values: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return Array.isArray(values) ? values : undefined;
  } catch {
    return undefined;
  }
}
