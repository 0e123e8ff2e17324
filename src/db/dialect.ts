// The two engines the service runs on. A database's handle says which (database.ts), as
// connect() knew it from DATABASE_URL.
export type Dialect = 'mysql' | 'sqlite';
