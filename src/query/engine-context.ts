// Everything the engine needs besides the DTO and the database, resolved once: the
// operator table from the catalog, and the paging/timeout settings.
import type { Config } from '../config.js';
import type { OperatorSpec } from './catalog-types.js';
import { cursorKey } from './cursor.js';
import { everyMatchUpTo, indexedUpTo } from './substring-bounds.js';

export interface EngineContext {
  readonly operators: readonly OperatorSpec[];
  readonly defaultTake: number;
  readonly maxTake: number;
  readonly includeTotal: boolean;
  readonly queryTimeoutMs: number;
  /** At most this many Include items (design.md §7). */
  readonly includeMaxItems: number;
  /** Signs and checks `After` cursors (cursor.ts). */
  readonly cursorKey: Buffer;
  /** `EstimatedTotal` is an exact count up to this many rows (ESTIMATE_EXACT_UP_TO). */
  readonly estimateExactUpTo: number;
  /** Skip from which MySQL pages read their keys through the index first (render.ts). */
  readonly deferredJoinFrom: number;
  /** Whether Contains and EndsWith may read through the trigram index (substring-routes.ts); the tests turn it off to compare with a scan. */
  readonly substringIndex: boolean;
  /**
   * The most candidates the substring index route reads (substring-routes.ts): `firstPage`
   * where the answer is the first rows of the key's order, which a scan meets soon;
   * `everyMatch` where it needs every match (a count, another order), which a scan finds only
   * by reading the whole table.
   */
  readonly substringUpTo: { readonly firstPage: number; readonly everyMatch: number };
}

export function engineContext(
  config: Pick<Config, 'defaultTake' | 'maxTake' | 'includeTotal' | 'queryTimeoutMs' | 'cursorSecret' | 'estimateExactUpTo'>,
  operators: readonly OperatorSpec[],
): EngineContext {
  return Object.freeze({
    operators,
    defaultTake: config.defaultTake,
    maxTake: config.maxTake,
    includeTotal: config.includeTotal,
    queryTimeoutMs: config.queryTimeoutMs,
    includeMaxItems: 20,
    cursorKey: cursorKey(config.cursorSecret),
    estimateExactUpTo: config.estimateExactUpTo,
    deferredJoinFrom: 1000,
    substringIndex: true,
    substringUpTo: { firstPage: indexedUpTo, everyMatch: everyMatchUpTo },
  });
}
