// The conditional read of every tagged answer (design.md §7, "Entity tags"), on the one
// database the read router picked: the table versions and the answer read so that the tag
// never names a state older than the rows, in one statement where the client holds no tag.
import type { Database } from '../db/database.js';
import { readVersions, type VersionsSeen } from '../db/table-versions/table-versions.js';
import type { NotModified } from '../http/operation.js';
import { held, notModified, type Asked } from './answer-tags.js';

export interface TaggedRead<T> {
  readonly database: Database;
  readonly request: Asked;
  /** The tables the answer is made of. */
  readonly tables: readonly string[];
  readonly timeoutMs: number;
  /** The answer's tag at `versions`. */
  readonly tagOf: (versions: string) => string;
  /** Reads the answer; with `versioned` tables, its first statement reads their versions beside its rows. */
  readonly read: (versioned: readonly string[]) => Promise<{ readonly value: T; readonly versions: VersionsSeen }>;
  /**
   * Whether `*` holds without reading the answer (RFC 9110 §13.1.2: it holds whenever the
   * answer exists): true where every request has one, false where the read says (a 404).
   */
  readonly alwaysExists: boolean;
}

/**
 * The answer and its tag (undefined where a table has no version row), or the 304. A client
 * holding a tag costs one primary-key read when it still holds; one without reads the
 * versions in the answer's first statement, and only an answer whose first statement found
 * no row reads them first and the answer again.
 */
export async function taggedRead<T>(r: TaggedRead<T>): Promise<{ readonly value: T; readonly tag: string | undefined } | NotModified> {
  if (r.request.conditional?.ifNoneMatch !== undefined) {
    const versions = await readVersions(r.database, r.tables, r.timeoutMs);
    const tag = versions === undefined ? undefined : r.tagOf(versions);
    const holds = tag === undefined ? undefined : held(r.request, tag);
    if (holds === 'tag' || (holds === 'any' && r.alwaysExists)) return notModified(tag!);
    const { value } = await r.read([]);
    // `*` of an answer that exists: the read did not throw its 404.
    return holds === 'any' ? notModified(tag!) : { value, tag };
  }
  const first = await r.read(r.tables);
  if (first.versions.seen) return { value: first.value, tag: first.versions.versions === undefined ? undefined : r.tagOf(first.versions.versions) };
  // Versions read after the rows could name a later state than theirs: read them first, then the answer.
  const versions = await readVersions(r.database, r.tables, r.timeoutMs);
  const { value } = await r.read([]);
  return { value, tag: versions === undefined ? undefined : r.tagOf(versions) };
}
