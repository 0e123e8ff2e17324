// Recognises a duplicate-key error from either driver and says which unique index it hit,
// so callers can answer 409 instead of 500. Driver messages go no further than here.
// MySQL/MariaDB: ER_DUP_ENTRY (errno 1062), "Duplicate entry 'x' for key 'ux_name'"
// (MySQL 8 writes 'table.ux_name'). SQLite: SQLITE_CONSTRAINT_UNIQUE or _PRIMARYKEY,
// "UNIQUE constraint failed: table.column".

export interface UniqueViolation {
  /** The index name (MySQL) or the `table.column` list (SQLite) the driver reported. */
  readonly target: string;
}

export function uniqueViolation(err: unknown): UniqueViolation | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; errno?: unknown; sqlMessage?: unknown; message?: unknown };
  const message = String(e.sqlMessage ?? e.message ?? '');
  if (e.code === 'ER_DUP_ENTRY' || e.errno === 1062) {
    const m = /for key '([^']+)'/.exec(message);
    return { target: m?.[1] ?? '' };
  }
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    const m = /constraint failed: (.+)$/m.exec(message);
    return { target: m?.[1]?.trim() ?? '' };
  }
  return undefined;
}

/** True when the violation concerns `column` (or the index named after it). */
export const violates = (v: UniqueViolation, column: string): boolean =>
  v.target.split(/[\s,.]+/).some((part) => part === column || part.endsWith(`_${column}`));
