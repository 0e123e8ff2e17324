/** Returns a copy of the document with the answers every operation may give declared; throws SpecError. */
export declare function declareAnswers<T extends Record<string, unknown>>(document: T): T;
