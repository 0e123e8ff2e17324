// Reads the closed vocabularies (operator kinds, families) from src/query/catalog-types.ts.
// The generator runs before any TypeScript build, so it reads the source text: the YAML
// tables must list exactly what the planner and renderer have handlers for.

const quoted = (text) => [...text.matchAll(/'([^']*)'/g)].map((m) => m[1]);

/** The `operatorKinds` array and the `Family` union of catalog-types.ts. */
export function readCatalogVocabulary(source) {
  const kinds = /export const operatorKinds\s*=\s*\[([^\]]*)\]/.exec(source);
  const families = /export type Family\s*=\s*([^;]+);/.exec(source);
  if (!kinds || !families) {
    throw new Error('src/query/catalog-types.ts: cannot find `operatorKinds` or `Family`; keep their one-line form');
  }
  return { operatorKinds: quoted(kinds[1]), families: quoted(families[1]) };
}
