// Reads an impianto's file tree in at most two indexed queries, whatever the folder size:
// one for the impianto and its root, one for the root's direct children.
import type { Database } from '../db/database.js';
import { translateDbError } from '../db/driver-errors.js';
import { prepare } from '../db/prepared.js';
import { selectRows, tableOfNamed } from '../db/reads/select.js';
import { versionColumns, versionsOfRow, type VersionsSeen } from '../db/table-versions/table-versions.js';
import { sqlDialects } from '../query/sql-dialect.js';
import { fileColumns, type ImpiantoFileRow } from './file-metadata.js';

export type RootLookup =
  | { readonly found: false }
  | { readonly found: true; readonly root: ImpiantoFileRow | undefined; readonly versions?: VersionsSeen };

export interface ImpiantoFilesRepository {
  /**
   * Whether the impianto exists and, if so, its root (lowest id among rows with folder_id
   * NULL); with `versioned` tables, their versions read in the same statement.
   */
  findRoot(impiantoId: number, versioned?: readonly string[]): Promise<RootLookup>;
  /** Direct children: folders first, then nome case- and accent-insensitively, then id. */
  listChildren(folderId: number): Promise<ImpiantoFileRow[]>;
}

export function createImpiantoFilesRepository(database: Database, options: { timeoutMs?: number } = {}): ImpiantoFilesRepository {
  const db = database.knex;
  // Where the engines differ (string order), the query engine's dialect says how.
  const dialect = sqlDialects[database.dialect];
  // QUERY_TIMEOUT_MS bounds each statement where the engine can (db/reads/select.ts); on SQLite
  // the bound is the two indexed queries themselves. Driver errors become 503/500 ApiErrors
  // here, so no driver text reaches the edge.
  const run = async ({ sql, bindings }: { sql: string; bindings: readonly unknown[] }): Promise<ImpiantoFileRow[]> => {
    try {
      return await selectRows<ImpiantoFileRow>(database, sql, bindings, options.timeoutMs);
    } catch (err) {
      throw translateDbError(err);
    }
  };

  // Both queries are rendered by Knex once, on first use (db/prepared.ts).
  const rootStatement = (versioned: readonly string[]) =>
    prepare(1, ([impiantoId]) => {
      // MIN(id) over (impianto_id, folder_id) resolves from the index alone (the index
      // carries the primary key on both engines), so the LEFT JOIN costs one lookup.
      const rootId = db.raw('(SELECT MIN(r.id) FROM impianto_file r WHERE r.impianto_id = i.id AND r.folder_id IS NULL)');
      // LIMIT 1 written out, not bound: with a bound limit SQLite runs this statement in 16 µs
      // instead of 3.5, with the same plan.
      return db('impianto as i')
        .leftJoin('impianto_file as f', (j) => j.on('f.id', '=', rootId))
        .where('i.id', impiantoId!)
        .select(['i.id as found_impianto_id', ...fileColumns.map((c) => `f.${c} as ${c}`)])
        .select(versionColumns(versioned).map((v) => db.raw(v.sql, [...v.bindings])))
        .limit(1, { skipBinding: true });
    });
  // One statement per list of versioned tables; the handler asks for one list, or none.
  const rootOf = new Map<string, ReturnType<typeof rootStatement>>();
  const rootFor = (versioned: readonly string[]) => {
    const key = versioned.join(',');
    let statement = rootOf.get(key);
    if (statement === undefined) rootOf.set(key, (statement = rootStatement(versioned)));
    return statement;
  };
  const childrenOf = prepare(1, ([folderId]) => {
    // nome sorts as every string of the service does: case- and accent-insensitively, the
    // same on both engines (design.md §7; how each engine does it is sql-dialect.ts's).
    return db('impianto_file').select([...fileColumns]).where('folder_id', folderId!).orderBy('is_folder', 'desc')
      .orderByRaw(`${dialect.compared({ family: 'string' })} asc`, ['nome'])
      .orderBy('id', 'asc');
  });

  return {
    async findRoot(impiantoId, versioned = []) {
      const [row] = await run(rootFor(versioned)([impiantoId]));
      if (!row) return { found: false };
      const root = row.id == null ? undefined : row;
      if (versioned.length === 0) return { found: true, root };
      const versions = versionsOfRow(versioned, tableOfNamed([row], Object.keys(row)), row);
      return { found: true, root, versions: { seen: true, versions } };
    },

    async listChildren(folderId) {
      return run(childrenOf([folderId]));
    },
  };
}
