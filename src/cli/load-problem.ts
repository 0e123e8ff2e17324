// The one kind of error `npm run load` reports: a line of the file and what is wrong there,
// printed as FILE:LINE: message. Inside the stream stages a problem that ends the reading
// travels as a LoadStop and becomes a value again where the records are read.

export interface LoadProblem {
  /** The file's line (1 = the first); 0 when no line is to blame. */
  readonly line: number;
  readonly message: string;
}

/** Carries a problem through a stream pipeline, whose stages can only fail with an Error. */
export class LoadStop extends Error {
  constructor(readonly problem: LoadProblem) {
    super(problem.message);
  }
}
