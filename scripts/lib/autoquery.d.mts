import type { Catalog } from './query-catalog.mjs';

export declare const queryErrorResponses: Readonly<Record<string, string>>;
/** Returns a copy of the document with every x-autoquery path item filled; throws SpecError. */
export declare function fillAutoQuery<T extends Record<string, unknown>>(document: T, catalog: Catalog): T;
/** The document without the path items' x-example-record (the generator's input alone). */
export declare function withoutExampleRecords<T extends Record<string, unknown>>(document: T): T;
