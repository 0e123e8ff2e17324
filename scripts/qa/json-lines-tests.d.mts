export declare const jsonLines: 'application/x-ndjson';
export interface JsonLinesOperation { id: string; method: string; path: string; itemSchema: unknown }
export declare function jsonLinesOperations(document: unknown): JsonLinesOperation[];
export declare function jsonLinesScript(op: JsonLinesOperation): string[];
