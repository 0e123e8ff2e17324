export declare function strictDocument<T>(document: T): T;
export declare function dereference(schema: unknown, document: unknown): unknown;
