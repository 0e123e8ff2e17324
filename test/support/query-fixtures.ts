// The rows the query DB tests search: mixed case, Italian accents, `%` `_` `\` and
// commas in values, NULLs, ties, int32 bounds and trailing spaces. Ids are explicit so
// the expectations can name rows by id.
import type { Database } from '../../src/db/database.js';
import type { Result } from '../../src/errors/api-error.js';
import type { QueryOutcome } from '../../src/query/run-query.js';

export const MIN = -2147483648;
export const MAX = 2147483647;

// [id, descrizione, tipo_caratteristica_sezione_id, is_disattiva, icona_immagine_id, ordine_vista]
export const gruppi: ReadonlyArray<[number, string | null, number, 0 | 1, number, number]> = [
  [1, 'Città', 1, 0, 10, 5],
  [2, 'citta', 1, 1, 20, 5],
  [3, 'CITTA ', 2, 0, 30, MIN],
  [4, 'perché', 2, 0, MAX, 0],
  [5, 'PERCHE', 3, 1, 40, 7],
  [6, 'Niccolò', 3, 0, 50, 7],
  [7, null, 1, 0, 60, 1],
  [8, '50% off', 4, 0, 70, 2],
  [9, 'a_b', 4, 1, 80, 3],
  [10, 'back\\slash', 4, 0, 90, 3],
  [11, 'uno, due', 5, 0, MIN, 4],
  [12, 'Rossi', 5, 0, 0, MAX],
  [13, 'rossi', 5, 1, 100, -1],
  [14, 'axb', 6, 0, 110, 3],
];

// [id, soggetto_id, tipo_recapito_id, recapito, codice_esterno]
export const recapiti: ReadonlyArray<[number, number, number, string | null, string | null]> = [
  [1, 1, 1, 'Città', 'A1'],
  [2, 1, 2, 'ROSSI', null],
  [3, 2, 1, 'rossi ', 'a1'],
  [4, 2, 2, null, 'B_2'],
  [5, 3, 1, 'Via Roma, 5', 'C%3'],
  [6, 3, 3, 'Niccolò', 'd\\3'],
  [7, MIN, 1, 'perché', 'Z'],
  [8, MAX, 2, 'PERCHÉ', null],
];

export async function loadFixtures(database: Database): Promise<void> {
  const db = database.knex;
  await db('caratteristica_gruppo').insert(
    gruppi.map(([id, descrizione, tipo, dis, icona, ordine]) => ({
      id, descrizione, tipo_caratteristica_sezione_id: tipo, is_disattiva: dis, icona_immagine_id: icona, ordine_vista: ordine,
    })),
  );
  await db('soggetto_recapito').insert(
    recapiti.map(([id, soggetto, tipo, recapito, codice]) => ({ id, soggetto_id: soggetto, tipo_recapito_id: tipo, recapito, codice_esterno: codice })),
  );
}

/** The ids of a successful outcome's results, or the failure's field errors. */
export function idsOf(r: Result<QueryOutcome>): number[] | Array<[string, string]> {
  if (!r.ok) return r.error.errors.map((e): [string, string] => [e.errorCode, e.fieldName]);
  return r.value.response.results.map((x) => x['id'] as number);
}
