// The generator's one error type: every problem found in the spec files, listed together,
// so a broken table is fixed in one round rather than one message at a time.
export class SpecError extends Error {
  constructor(problems) {
    super(`Invalid spec:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'SpecError';
    this.problems = problems;
  }
}
