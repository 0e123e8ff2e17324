// Bulk load of realistic Italian rows into the two query tables, for load tests and
// benchmarks (`npm run seed`). Rows come from a seeded PRNG, so the same seed gives the
// same values on every run and engine; ids start after the table's current maximum.
// Speed comes from multi-row INSERTs of a few thousand rows, several per transaction
// (one commit, one fsync, per group), not from switching any safety checks off.
import type { Knex } from 'knex';
import { withVersionMovedOnce } from './table-versions/table-versions-deferred.js';
import { withTrigramsFilled } from './substring-index/substring-index-deferred.js';
import type { Database } from './database.js';
import { INT32_MAX } from '../int32.js';
import { seededRandom, seedOf, type Random } from './seeded-random.js';

export const bulkTables = ['caratteristica_gruppo', 'soggetto_recapito'] as const;
export type BulkTable = (typeof bulkTables)[number];

export interface SeedProgress {
  readonly table: BulkTable;
  readonly done: number;
  readonly total: number;
  readonly elapsedMs: number;
}

export interface SeedBulkOptions {
  readonly table: BulkTable | 'all';
  /** Rows per table. */
  readonly rows: number;
  /** PRNG seed; the same seed gives the same rows. Default 1. */
  readonly seed?: number;
  /** Rows per INSERT statement, at most maxBatchRows. Default 2000: a few hundred KB of SQL, far under MySQL's 16 MiB packet. */
  readonly batchRows?: number;
  /** INSERT statements per transaction. Default 10. */
  readonly batchesPerTransaction?: number;
  /** Transactions in flight at once, each on its own connection. Default 4 on MySQL, 1 on SQLite. */
  readonly concurrency?: number;
  /** Called after each commit; `done` counts committed rows. */
  readonly onProgress?: (progress: SeedProgress) => void;
}

export interface SeededTable {
  readonly table: BulkTable;
  readonly rows: number;
  /** Ids of the new rows are exactly firstId..lastId. */
  readonly firstId: number;
  readonly lastId: number;
  readonly elapsedMs: number;
}

export const maxBatchRows = 5000;

export async function seedBulk(database: Database, options: SeedBulkOptions): Promise<SeededTable[]> {
  const tables = options.table === 'all' ? [...bulkTables] : [options.table];
  const out: SeededTable[] = [];
  for (const table of tables) out.push(await seedTable(database, table, options));
  return out;
}

async function seedTable(database: Database, table: BulkTable, options: SeedBulkOptions): Promise<SeededTable> {
  const db = database.knex;
  const { rows: total, seed = 1, batchRows = 2000, batchesPerTransaction = 10, concurrency } = options;
  if (!Number.isSafeInteger(total) || total < 1) throw new RangeError(`rows must be a positive integer, got ${total}`);
  // 5000 rows of at most 6 columns stay under SQLite's 32766 bound parameters per statement.
  if (!Number.isSafeInteger(batchRows) || batchRows < 1 || batchRows > maxBatchRows) throw new RangeError(`batchRows must be 1 to ${maxBatchRows}, got ${batchRows}`);
  const start = await startIds(db, table);
  // Ids and soggetto ids are int32 columns (migration 001): refuse before writing anything.
  if (start.id + total - 1 > INT32_MAX) throw new RangeError(`${table}: ${total} rows after id ${start.id - 1} would pass the int32 limit`);
  if (start.soggettoId + total - 1 > INT32_MAX) throw new RangeError(`${table}: soggetto ids would pass the int32 limit`);

  const source = rowSource(table, seed, start);
  const began = performance.now();
  let generated = 0;
  let committed = 0;
  // While transactions wait on the server, the next group is generated and sent on another
  // connection: ids are explicit, so groups may commit in any order. Measured on a 2-core
  // MariaDB 10.11: 1 in flight ~30k rows/s, 2 ~64k, 4 as fast when idle and ~40% faster
  // than 2 when the machine is busy. SQLite has a single writer (and a one-connection
  // pool), so there it stays one at a time.
  const inFlight = new Set<Promise<void>>();
  const limit = Math.max(1, concurrency ?? (database.dialect === 'mysql' ? 4 : 1));
  try {
    while (generated < total) {
      const statements: Array<{ sql: string; bindings: Knex.RawBinding[] }> = [];
      let groupRows = 0;
      for (let b = 0; b < batchesPerTransaction && generated < total; b++) {
        const n = Math.min(batchRows, total - generated);
        const bindings: Knex.RawBinding[] = [];
        for (let i = 0; i < n; i++) for (const v of source.next()) bindings.push(v as Knex.RawBinding);
        statements.push({ sql: insertSql(table, source.columns, n), bindings });
        generated += n;
        groupRows += n;
      }
      const range = { from: start.id + generated - groupRows, to: start.id + generated - 1 };
      const write = db
        .transaction((trx) =>
          withVersionMovedOnce(trx, database.dialect, table, () =>
            withTrigramsFilled(trx, database.dialect, table, range, async () => {
              for (const s of statements) await trx.raw(s.sql, s.bindings);
            }),
          ),
        )
        .then(() => {
          committed += groupRows;
          options.onProgress?.({ table, done: committed, total, elapsedMs: performance.now() - began });
        });
      inFlight.add(write);
      void write.finally(() => inFlight.delete(write)).catch(() => undefined);
      if (inFlight.size >= limit) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
  } catch (err) {
    // Let the other transaction finish (or fail) before the caller destroys the pool.
    await Promise.allSettled(inFlight);
    throw err;
  }
  return { table, rows: total, firstId: start.id, lastId: start.id + total - 1, elapsedMs: performance.now() - began };
}

const sqlCache = new Map<string, string>();

/** `INSERT INTO t (a, b) VALUES (?, ?), ...`, built once per shape: a batch differs only in its bindings. */
function insertSql(table: BulkTable, columns: readonly string[], n: number): string {
  const key = `${table}:${n}`;
  let sql = sqlCache.get(key);
  if (sql === undefined) {
    const tuple = `(${columns.map(() => '?').join(',')})`;
    // Table and column names come from this module's constants, never from input.
    sql = `INSERT INTO ${table} (${columns.join(',')}) VALUES ${Array(n).fill(tuple).join(',')}`;
    sqlCache.set(key, sql);
  }
  return sql;
}

export interface StartIds {
  readonly id: number;
  readonly soggettoId: number;
}

/** The first free id (and, for contacts, the first free soggetto id): after the current maxima. */
export async function startIds(db: Knex, table: BulkTable): Promise<StartIds> {
  const maxOf = async (column: string) => Number((await db(table).max({ m: column }).first())?.['m'] ?? 0);
  return { id: (await maxOf('id')) + 1, soggettoId: table === 'soggetto_recapito' ? (await maxOf('soggetto_id')) + 1 : 1 };
}

export interface RowSource {
  readonly columns: readonly string[];
  /** The next row's values, in `columns` order. */
  next(): unknown[];
}

/** The rows seedBulk writes, for tests and benchmarks that need to know them. */
export function rowSource(table: BulkTable, seed: number, start: StartIds): RowSource {
  const random = seededRandom(seedOf(`${table}:${seed}`));
  return table === 'caratteristica_gruppo' ? gruppoSource(random, start.id) : recapitoSource(random, start);
}

/** Rows as objects keyed by column, for assertions. */
export function generateRows(table: BulkTable, seed: number, start: StartIds, count: number): Record<string, unknown>[] {
  const source = rowSource(table, seed, start);
  return Array.from({ length: count }, () => {
    const values = source.next();
    return Object.fromEntries(source.columns.map((c, i) => [c, values[i]]));
  });
}

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
/** Fisher–Yates: sort() with a random comparator is biased and depends on the engine's algorithm. */
function shuffle<T>(random: Random, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const k = Math.floor(random() * (i + 1));
    [items[i], items[k]] = [items[k]!, items[i]!];
  }
  return items;
}
const digits = (random: Random, n: number): string => String(Math.floor(random() * 10 ** n)).padStart(n, '0');

// [group, sezione] — sezione: 1 impianti tecnologici, 2 sicurezza, 3 edificio, 4 energia, 5 amministrazione.
const gruppi: ReadonlyArray<readonly [string, number]> = [
  ['Caratteristiche elettriche', 1], ['Caratteristiche idrauliche', 1], ['Impianto di climatizzazione', 1],
  ['Impianto di riscaldamento', 1], ['Impianto idrico-sanitario', 1], ['Ventilazione meccanica controllata', 1],
  ['Impianto elevatore', 1], ['Rete gas metano', 1], ['Cabina di trasformazione MT/BT', 1], ['Gruppo elettrogeno', 1],
  ['Illuminazione di emergenza', 2], ['Sicurezza antincendio', 2], ['Rilevazione fumi', 2], ['Impianto sprinkler', 2],
  ['Porte tagliafuoco', 2], ['Protezione dalle scariche atmosferiche', 2], ['Videosorveglianza', 2],
  ['Dati catastali', 3], ['Struttura portante', 3], ['Copertura e impermeabilizzazione', 3], ['Serramenti', 3],
  ['Accessibilità e barriere architettoniche', 3], ['Caratteristiche acustiche', 3],
  ['Prestazione energetica', 4], ['Impianto fotovoltaico', 4], ['Solare termico', 4], ['Pompe di calore', 4],
  ['Qualità dell’aria', 4], ['Manutenzione programmata', 5], ['Contratti di servizio', 5],
  ['Conformità normativa', 5], ['Pratiche autorizzative (SCIA, CPI)', 5],
];
const edifici = [
  'Palazzina A', 'Palazzina B', 'Corpo centrale', 'Ala nord', 'Capannone 3', 'Scuola primaria', 'Presidio ospedaliero',
  'Municipio', 'Centro sportivo', 'Biblioteca civica', 'Magazzino', 'Uffici direzionali', 'Residenza sanitaria', 'Caserma',
];
// [city, telephone area code]. Names with accents and apostrophes on purpose: they exercise folding.
const citta: ReadonlyArray<readonly [string, string]> = [
  ['Milano', '02'], ['Roma', '06'], ['Torino', '011'], ['Genova', '010'], ['Bologna', '051'], ['Firenze', '055'],
  ['Napoli', '081'], ['Palermo', '091'], ['Bari', '080'], ['Venezia', '041'], ['Forlì', '0543'], ['Cantù', '031'],
  ['Città di Castello', '075'], ['L’Aquila', '0862'], ['Sant’Agata de’ Goti', '0823'], ['Mondovì', '0174'],
  ['Paternò', '095'], ['Nardò', '0833'], ['Cefalù', '0921'], ['Canicattì', '0922'], ['Aosta', '0165'], ['Bolzano', '0471'],
  ['Trento', '0461'], ['Trieste', '040'], ['Perugia', '075'], ['Ancona', '071'], ['Cagliari', '070'], ['Lecce', '0832'],
];

function gruppoSource(random: Random, firstId: number): RowSource {
  let id = firstId;
  return {
    columns: ['id', 'descrizione', 'tipo_caratteristica_sezione_id', 'is_disattiva', 'icona_immagine_id', 'ordine_vista'],
    next() {
      const [gruppo, sezione] = pick(random, gruppi);
      // One row in a hundred has no description: the column is nullable and NULL never matches a filter.
      const descrizione = random() < 0.01 ? null : `${gruppo} – ${pick(random, edifici)}, ${pick(random, citta)[0]}`;
      // Roughly one group in seven is retired, as in a catalogue in use for years.
      return [id++, descrizione, sezione, random() < 1 / 7, 100 + Math.floor(random() * 24), 10 * (1 + Math.floor(random() * 10))];
    },
  };
}

const nomi = [
  'Marco', 'Giulia', 'Luca', 'Francesca', 'Alessandro', 'Chiara', 'Niccolò', 'Sofia', 'Matteo', 'Martina', 'Lorenzo',
  'Anna', 'Andrea', 'Elena', 'Giuseppe', 'Federica', 'Gabriele', 'Ilaria', 'Mattia', 'Noemi', 'Raffaele', 'Lucía',
];
const cognomi = [
  'Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Romano', 'Colombo', 'Ricci', 'Marino', 'Greco', 'Bruno',
  'Gallo', 'Conti', 'De Luca', 'Mancini', 'Costa', 'Giordano', 'D’Angelo', 'Dell’Acqua', 'Fabbri', 'Moretti', 'Barbieri',
];
const attivita = ['Termoidraulica', 'Elettroimpianti', 'Antincendio', 'Clima Service', 'Manutenzioni', 'Studio Tecnico', 'Impianti'];
const forme = ['S.r.l.', 'S.p.A.', 'S.n.c.', 'S.a.s.', '& C.'];
const domini = ['gmail.com', 'libero.it', 'virgilio.it', 'alice.it', 'tiscali.it', 'outlook.it', 'fastwebnet.it', 'tin.it'];
const pecDomini = ['pec.it', 'legalmail.it', 'pec.aruba.it', 'postacert.it'];

/** For e-mail addresses: no accents, apostrophes or spaces ("D’Angelo" -> "dangelo"). */
const slug = (text: string, sep = ''): string =>
  text.normalize('NFD').replace(/\p{M}|[’']/gu, '').toLowerCase().replace(/[^a-z0-9]+/g, sep).replace(/^\W+|\W+$/g, '');

interface Soggetto {
  readonly id: number;
  readonly mailbox: string;
  readonly pec: string;
  readonly areaCode: string;
  readonly codice: string | null;
  /** tipo_recapito_id of each contact, no type twice: 1 e-mail, 2 PEC, 3 telefono, 4 cellulare, 5 fax. */
  readonly tipi: readonly number[];
}

function recapitoSource(random: Random, start: StartIds): RowSource {
  let id = start.id;
  let nextSoggetto = start.soggettoId;
  let soggetto: Soggetto | undefined;
  let j = 0;
  const newSoggetto = (): Soggetto => {
    const company = random() < 0.4;
    const cognome = pick(random, cognomi);
    const [, areaCode] = pick(random, citta);
    const name = company ? `${pick(random, attivita)} ${cognome}` : `${pick(random, nomi)} ${cognome}`;
    const mailbox = company ? `info@${slug(name, '-')}.it` : `${slug(name, '.')}${random() < 0.3 ? digits(random, 2) : ''}@${pick(random, domini)}`;
    const sid = nextSoggetto++;
    return {
      id: sid,
      mailbox,
      pec: `${slug(company ? `${name} ${pick(random, forme)}` : name)}@${pick(random, pecDomini)}`,
      areaCode,
      // Contacts synchronised from the CRM carry its code; those typed in by hand have none.
      codice: random() < 0.75 ? `CRM-${String(sid).padStart(8, '0')}` : null,
      // Everyone has an e-mail; then up to three of the other kinds, in random order.
      tipi: [1, ...shuffle(random, [2, 3, 4, 5])].slice(0, 1 + Math.floor(random() * 4)),
    };
  };
  return {
    columns: ['id', 'soggetto_id', 'tipo_recapito_id', 'recapito', 'codice_esterno'],
    next() {
      if (soggetto === undefined || j >= soggetto.tipi.length) {
        soggetto = newSoggetto();
        j = 0;
      }
      const tipo = soggetto.tipi[j++]!;
      const landline = `+39 ${soggetto.areaCode} ${digits(random, 10 - soggetto.areaCode.length)}`;
      const recapito = [soggetto.mailbox, soggetto.pec, landline, `+39 3${digits(random, 2)} ${digits(random, 7)}`, landline][tipo - 1]!;
      return [id++, soggetto.id, tipo, recapito, soggetto.codice];
    },
  };
}
