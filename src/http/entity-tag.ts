// Entity tags and If-None-Match (RFC 9110 §8.8.3, §13.1.2; design.md §7, "Entity tags").
// A tag is a digest of everything the answer's bytes depend on, so equal tags mean equal
// bytes (strong); an answer holding an estimate, which may differ between two reads of the
// same rows, gets a weak tag.
import { createHash } from 'node:crypto';
import { ApiError } from '../errors/api-error.js';

/** Declared in the contract as the header's maxLength: about ninety of our tags. */
export const ifNoneMatchMaxLength = 4096;

/** SHA-256 over `parts`, each closed by a line break, base64url. */
export function digestOf(parts: readonly (string | Buffer)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\n');
  return hash.digest('base64url');
}

/** `"<digest>"`, or `W/"<digest>"` when weak: 192 bits of SHA-256 over `parts`, base64url. */
export function entityTag(parts: readonly string[], weak = false): string {
  const opaque = `"${digestOf(parts).slice(0, 32)}"`;
  return weak ? `W/${opaque}` : opaque;
}

/** The opaque part of a tag, quotes included; W/ dropped, which weak comparison ignores. */
const opaqueOf = (tag: string): string => (tag.startsWith('W/') ? tag.slice(2) : tag);

// RFC 9110 §8.8.3: entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE, etagc = %x21 / %x23-7E / obs-text.
const listMember = /\s*(?:(\*)|((?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"))\s*(?:,|$)/y;

/**
 * What If-None-Match says of `tag`: `tag` when a member of its list matches it by weak
 * comparison (RFC 9110 §13.1.2: equal opaque parts, either or both weak), `any` for `*`
 * (whatever is current: the answer must exist), undefined when nothing matches. A member
 * that is no entity-tag matches nothing; a header longer than the contract's bound is 400.
 */
export function noneMatch(header: string | undefined, tag: string): 'tag' | 'any' | undefined {
  if (header === undefined) return undefined;
  if (header.length > ifNoneMatchMaxLength) {
    throw ApiError.field('Length', 'If-None-Match', `If-None-Match must be at most ${ifNoneMatchMaxLength} characters`);
  }
  const wanted = opaqueOf(tag);
  let any = false;
  listMember.lastIndex = 0;
  while (listMember.lastIndex < header.length) {
    const at = listMember.lastIndex;
    const m = listMember.exec(header);
    if (m === null) {
      // Skip a malformed member to the next comma: the rest of the list still counts.
      const comma = header.indexOf(',', at);
      if (comma < 0) break;
      listMember.lastIndex = comma + 1;
      continue;
    }
    if (m[2] !== undefined && opaqueOf(m[2]) === wanted) return 'tag';
    any ||= m[1] !== undefined;
  }
  return any ? 'any' : undefined;
}

/** The headers of an answer carrying `tag`: it depends on the caller, so no shared cache keeps it. */
export function taggedHeaders(tag: string): Record<string, string> {
  return { ETag: tag, 'Cache-Control': 'private, no-cache' };
}
