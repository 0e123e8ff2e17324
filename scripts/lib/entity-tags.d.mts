/** Returns a copy of the document with the conditional GET of every `x-etag` operation declared; throws SpecError. */
export declare function declareEntityTags<T extends Record<string, unknown>>(document: T): T;
