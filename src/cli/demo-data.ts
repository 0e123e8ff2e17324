// Demo data so that a fresh `make run` shows something real: installations with Italian file
// trees, characteristic groups and subject contacts. Idempotent per table: a table that
// already holds rows is left alone, so re-running never duplicates or overwrites data.
import type { Knex } from 'knex';
import type { Database } from '../db/database.js';
import { demoImpianti, flattenDemoTree } from '../impianti/demo-impianti.js';
import { insertImpiantoFiles, type NewImpiantoFile } from '../impianti/impianto-file-writer.js';

const chunk = 200;

export async function seedDemo(database: Database): Promise<void> {
  await database.knex.transaction(async (trx) => {
    // impianto_file rows point at impianti, so the two tables are seeded together.
    if ((await isEmpty(trx, 'impianto')) && (await isEmpty(trx, 'impianto_file'))) await seedImpianti(trx);
    if (await isEmpty(trx, 'caratteristica_gruppo')) await insertChunks(trx, 'caratteristica_gruppo', caratteristicheGruppo());
    if (await isEmpty(trx, 'soggetto_recapito')) await insertChunks(trx, 'soggetto_recapito', soggettiRecapiti());
  });
}

async function insertChunks(db: Knex, table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += chunk) await db(table).insert(rows.slice(i, i + chunk));
}

async function isEmpty(db: Knex, table: string): Promise<boolean> {
  return (await db(table).first('id')) === undefined;
}

// Explicit ids let a parent's id be known before its children are written, so the whole
// tree goes in as a few multi-row INSERTs; both engines move their counters past them.
async function seedImpianti(db: Knex): Promise<void> {
  const files: NewImpiantoFile[] = [];
  const impianti = demoImpianti.map((impianto, i) => {
    const id = i + 1;
    if (impianto.root) files.push(...flattenDemoTree(impianto.root, id, files.length + 1));
    return { id, nome: impianto.nome };
  });
  await db('impianto').insert(impianti);
  await insertImpiantoFiles(db, files, chunk);
}

// [descrizione, sezione] — sezione: 1 impianti tecnologici, 2 sicurezza, 3 edificio, 4 energia, 5 amministrazione.
const gruppi: ReadonlyArray<readonly [string, number]> = [
  ['Caratteristiche elettriche', 1], ['Caratteristiche idrauliche', 1], ['Impianto di climatizzazione', 1],
  ['Impianto di riscaldamento', 1], ['Impianto idrico-sanitario', 1], ['Impianto di ventilazione meccanica', 1],
  ['Impianto elevatore', 1], ['Impianto gas metano', 1], ['Cabina di trasformazione MT/BT', 1],
  ['Gruppo elettrogeno', 1], ['Quadri elettrici', 1], ['Illuminazione di emergenza', 2],
  ['Sicurezza antincendio', 2], ['Rilevazione fumi', 2], ['Impianto sprinkler', 2],
  ['Estintori e idranti', 2], ['Porte tagliafuoco', 2], ['Vie di esodo', 2],
  ['Protezione contro le scariche atmosferiche', 2], ['Impianto di messa a terra', 2], ['Antintrusione e videosorveglianza', 2],
  ['Controllo accessi', 2], ['Dati catastali', 3], ['Struttura portante', 3],
  ['Copertura e impermeabilizzazione', 3], ['Serramenti', 3], ['Accessibilità e barriere architettoniche', 3],
  ['Aree esterne e parcheggi', 3], ['Prestazione energetica', 4], ['Impianto fotovoltaico', 4],
  ['Solare termico', 4], ['Pompe di calore', 4], ['Contabilizzazione del calore', 4],
  ['Qualità dell’aria', 4], ['Manutenzione programmata', 5], ['Contratti di servizio', 5],
  ['Responsabilità e deleghe', 5], ['Conformità normativa', 5], ['Pratiche autorizzative (SCIA, CPI)', 5],
  ['Note e osservazioni', 5], ['Caratteristiche acustiche', 3], ['Àree a rischio esplosione (ATEX)', 2],
];

function caratteristicheGruppo(): Record<string, unknown>[] {
  return gruppi.map(([descrizione, sezione], i) => ({
    descrizione,
    tipo_caratteristica_sezione_id: sezione,
    // Roughly one group in seven is retired, as in a catalogue that has been in use for years.
    is_disattiva: i % 7 === 5,
    icona_immagine_id: 100 + ((i * 13) % 24),
    ordine_vista: ((i % 10) + 1) * 10,
  }));
}

const soggetti = [
  ['Termoidraulica Brambilla S.r.l.', 'brambilla'], ['Elettroimpianti Ferraris S.p.A.', 'ferraris'], ['Studio Tecnico Conti', 'studioconti'],
  ['Condominio Via Roma 12', 'condominioviaroma12'], ['Antincendio Esposito & C. S.n.c.', 'espositoantincendio'], ['Comune di Lodi', 'comune.lodi'],
  ['Clima Service Rinaldi', 'climarinaldi'], ['Manutenzioni Galli S.r.l.', 'galli'], ['Ing. Niccolò Fabbri', 'nfabbri'],
  ['Energia Solare Lombarda S.r.l.', 'esl'], ['Logistica Interporto Bologna S.p.A.', 'lib'], ['Geom. Lucía Moretti', 'lmoretti'],
] as const;

/** tipo_recapito_id: 1 e-mail, 2 PEC, 3 telefono, 4 cellulare, 5 fax. */
function soggettiRecapiti(): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  soggetti.forEach(([, slug], i) => {
    const soggettoId = 1001 + i;
    const phone = `+39 0${2 + (i % 7)} ${String(1234567 + i * 104729).slice(0, 7)}`;
    const recapiti: Array<[number, string | null]> = [
      [1, `info@${slug.replace(/\./g, '')}.it`],
      [2, `${slug}@pec.it`],
      [3, phone],
      [4, `+39 3${(i * 7) % 10}${i % 10} ${String(4567890 + i * 7919).slice(0, 7)}`],
      [i % 3 === 0 ? 5 : 1, i % 3 === 0 ? phone.replace(/\d$/, '9') : `amministrazione@${slug.replace(/\./g, '-')}.com`],
    ];
    recapiti.forEach(([tipo, recapito], j) => {
      rows.push({
        soggetto_id: soggettoId,
        tipo_recapito_id: tipo,
        recapito,
        // Contacts synchronised from the CRM carry its code; those typed in by hand have none.
        codice_esterno: (i + j) % 4 === 3 ? null : `CRM-${String(soggettoId * 10 + j).padStart(5, '0')}`,
      });
    });
  });
  return rows;
}
