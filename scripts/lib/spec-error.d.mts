export declare class SpecError extends Error {
  constructor(problems: readonly string[]);
  readonly problems: readonly string[];
}
