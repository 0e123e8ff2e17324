// The entity tags of the answers read from the versioned tables (design.md §7, "Entity
// tags"): a digest of the service's representation version, what was asked, how it is
// represented, who asked, and the versions of the tables read. The 304 of a request whose
// tag the client holds, and the tagged headers of the 200.
import fs from 'node:fs';
import { digestOf, entityTag, noneMatch, taggedHeaders } from '../http/entity-tag.js';
import type { NotModified, OperationRequest } from '../http/operation.js';

const root = new URL('../../../', import.meta.url);

/** The served contract's digest, read once for every handler that tags. */
let contractDigest: string | undefined;

/**
 * What, besides the data, decides an answer's bytes on every node alike: the served contract
 * (its `info.version` moves with any change of the answers it does not show: design.md §7)
 * and `settings` (the cursor key's digest, the estimate's limit). A deploy that changes any
 * of them changes every tag.
 */
export function representationVersion(settings: readonly (string | Buffer)[]): string {
  contractDigest ??= digestOf([fs.readFileSync(new URL('generated/openapi.json', root))]);
  return digestOf([contractDigest, digestOf(settings)]);
}

export type Asked = Pick<OperationRequest, 'principal' | 'conditional' | 'format'>;

/** The tag of an answer to `request` asking `what` (its normalized form), with the tables at `versions`. */
export function answerTag(service: string, request: Asked, what: string, versions: string, weak = false): string {
  const roles = [...(request.principal?.roles ?? [])].sort().join(',');
  // Without the edge's conditional (a handler called directly) the format stands for the representation.
  return entityTag([service, what, request.conditional?.representation ?? request.format ?? 'json', roles, versions], weak);
}

/**
 * Whether the client holds the current answer: `tag` when its If-None-Match names this
 * tag, `any` for `*` (RFC 9110 §13.1.2: true whenever the answer exists, which the caller
 * knows), undefined when the answer must be sent.
 */
export function held(request: Asked, tag: string): 'tag' | 'any' | undefined {
  return noneMatch(request.conditional?.ifNoneMatch, tag);
}

/** The 304 carrying `tag` and its caching field. */
export function notModified(tag: string): NotModified {
  return { status: 304, notModified: true, headers: taggedHeaders(tag) };
}
