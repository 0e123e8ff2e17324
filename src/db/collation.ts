// The MySQL collation of every searchable string column. It must be case- and
// accent-insensitive and NO PAD (trailing spaces significant, design.md §7):
// MariaDB offers utf8mb4_unicode_nopad_ci (UCA 4.0.0, since 10.2); MySQL 8 offers
// utf8mb4_0900_ai_ci (UCA 9.0.0, NO PAD by definition).
import type { Knex } from 'knex';

export async function searchCollation(db: Knex): Promise<string> {
  const [rows] = (await db.raw('SELECT VERSION() AS v')) as [Array<{ v: string }>];
  return /mariadb/i.test(rows[0]?.v ?? '') ? 'utf8mb4_unicode_nopad_ci' : 'utf8mb4_0900_ai_ci';
}
