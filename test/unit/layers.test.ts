// The floors of src/: a module imports only from its own floor or below, and no chain of
// imports comes back to where it started. A walk from the edge to SQL then crosses each room
// once: main → app → handlers → http/domain → db → errors. Type-only imports count too: a
// type that runs back up a floor is a concept living on the wrong floor.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const src = path.join(root, 'src');

/** Floor of each room (a folder of src/, or a file at its top). Lower floors know nothing of higher ones. */
const floors: Record<string, number> = {
  'errors': 0, 'int32.ts': 0, 'contract-types.ts': 0, 'text-memo.ts': 0, 'database-url.ts': 0,
  'config.ts': 1,
  'db': 2, 'deps.ts': 2,
  'query': 3, 'impianti': 3, 'auth': 3, 'live': 3,
  'http': 4,
  'app.ts': 5,
  'handlers': 6,
  'server': 7, 'cli': 7, 'contract-check': 7,
};

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const rel = (p: string) => path.relative(src, p);
const roomOf = (file: string) => rel(file).split(path.sep)[0]!;
/** Each relative import of each file, as the compiler reads them (type-only, re-exports and import() included). */
const edges = sources(src).flatMap((file) =>
  ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true).importedFiles
    .filter((f) => f.fileName.startsWith('.'))
    .map((f) => ({ from: rel(file), to: rel(path.resolve(path.dirname(file), f.fileName.replace(/\.js$/, '.ts'))) })),
);

describe('layers of src/', () => {
  it('reads the imports of every file that has any, each naming a file that exists', () => {
    const importing = new Set(edges.map((e) => e.from));
    const withImports = sources(src).filter((file) => /^(?:import|export)\b[^;]*?from '\./ms.test(fs.readFileSync(file, 'utf8'))).map(rel);
    expect(withImports.length, 'files of src/ that import another').to.be.above(50);
    expect(withImports.filter((f) => !importing.has(f)), 'files whose imports were not read').to.deep.equal([]);
    // generated/api.d.ts, outside src/, holds only types.
    const exists = (to: string) => fs.existsSync(path.join(src, to)) || fs.existsSync(path.join(src, to.replace(/\.ts$/, '.d.ts')));
    expect(edges.filter((e) => !exists(e.to)).map((e) => `${e.from} -> ${e.to}`), 'imports of no file').to.deep.equal([]);
  });

  it('every room has a floor', () => {
    const rooms = new Set(sources(src).map(roomOf));
    expect([...rooms].filter((r) => floors[r] === undefined)).to.deep.equal([]);
  });

  it('no import runs back up a floor', () => {
    const upward = edges
      .filter(({ from, to }) => floors[to.split(path.sep)[0]!]! > floors[from.split(path.sep)[0]!]!)
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(upward).to.deep.equal([]);
  });

  it('no chain of imports comes back to where it started', () => {
    const next = new Map<string, string[]>();
    for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const walk = (file: string, trail: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...trail.slice(trail.indexOf(file)), file].join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const to of next.get(file) ?? []) walk(to, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of next.keys()) walk(file, []);
    expect(cycles).to.deep.equal([]);
  });
});
