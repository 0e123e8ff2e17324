import type { Catalog } from './query-catalog.mjs';

export declare const queryErrorResponses: Readonly<Record<string, string>>;
/** Returns a copy of the document with every x-autoquery path item filled; throws SpecError. */
export declare function fillAutoQuery<T extends Record<string, unknown>>(document: T, catalog: Catalog): T;
