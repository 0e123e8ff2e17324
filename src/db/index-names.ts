// The name of the index on each searchable field (design.md §8), defined once: the migration
// creates it, and the SQLite estimate of query/sql-dialect.ts reads its ANALYZE statistics.
export const fieldIndexName = (table: string, column: string): string => `ix_${table}_${column}`;
