import type { Catalog } from './query-catalog.mjs';

/** Returns a copy of the document with every x-autoquery-export path item filled; throws SpecError. */
export declare function fillAutoQueryExport<T extends Record<string, unknown>>(document: T, catalog: Catalog): T;
