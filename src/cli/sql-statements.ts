// Where one SQL statement ends in the text an operator types: at a semicolon outside
// quotes, identifiers and comments. The prompt runs each statement as it completes.

export interface Split {
  /** Whole statements, without their semicolons, in order. */
  readonly complete: readonly string[];
  /** The text after the last one, waiting for more lines. */
  readonly rest: string;
}

const closers: Record<string, string> = { "'": "'", '"': '"', '`': '`', '[': ']', '--': '\n', '/*': '*/' };

export function splitStatements(text: string): Split {
  const complete: string[] = [];
  let start = 0;
  let i = 0;
  while (i < text.length) {
    const two = text.slice(i, i + 2);
    const opener = two === '--' || two === '/*' ? two : text[i]!;
    const closer = closers[opener];
    if (closer !== undefined) {
      const end = text.indexOf(closer, i + opener.length);
      // An open quote or comment: the statement goes on in the next line.
      if (end < 0) break;
      i = end + closer.length;
      continue;
    }
    if (opener === ';') {
      const statement = text.slice(start, i).trim();
      if (statement !== '') complete.push(statement);
      start = i + 1;
    }
    i++;
  }
  return { complete, rest: text.slice(start) };
}
