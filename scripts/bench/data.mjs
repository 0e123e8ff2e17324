// The bench's data: deterministic rows for soggetto_recapito, caratteristica_gruppo and a
// few impianti with file trees, shaped like a real register of contacts (names, PEC,
// phones) so that prefixes and ranges select realistic numbers of rows. Same seed, same rows:
// the numbers come from the service's own seeded generator (src/db/seeded-random.ts, built).
import { seededRandom as prng } from '../../dist/src/db/seeded-random.js';

export { prng };

export const nomi = [
  'marco', 'giulia', 'luca', 'francesca', 'andrea', 'chiara', 'matteo', 'sara', 'alessandro', 'valentina',
  'davide', 'elena', 'simone', 'martina', 'federico', 'laura', 'lorenzo', 'silvia', 'stefano', 'paola',
  'giorgio', 'anna', 'roberto', 'elisa', 'fabio', 'alessia', 'paolo', 'federica', 'riccardo', 'ilaria',
  'nicola', 'monica', 'antonio', 'cristina', 'giuseppe', 'roberta', 'massimo', 'serena', 'daniele', 'giorgia',
  'emanuele', 'veronica', 'tommaso', 'beatrice', 'filippo', 'camilla', 'enrico', 'alice', 'michele', 'irene',
  'gabriele', 'noemi', 'pietro', 'arianna', 'vincenzo', 'claudia', 'salvatore', 'marta', 'niccolo', 'lucia',
];

export const cognomi = [
  'rossi', 'russo', 'ferrari', 'esposito', 'bianchi', 'romano', 'colombo', 'ricci', 'marino', 'greco',
  'bruno', 'gallo', 'conti', 'deluca', 'mancini', 'costa', 'giordano', 'rizzo', 'lombardi', 'moretti',
  'barbieri', 'fontana', 'santoro', 'mariani', 'rinaldi', 'caruso', 'ferrara', 'galli', 'martini', 'leone',
  'longo', 'gentile', 'martinelli', 'vitale', 'lombardo', 'serra', 'coppola', 'desantis', 'damico', 'marchetti',
  'parisi', 'villa', 'conte', 'ferraro', 'ferri', 'fabbri', 'bianco', 'marini', 'grasso', 'valentini',
  'messina', 'sala', 'deangelis', 'gatti', 'pellegrini', 'palumbo', 'sanna', 'farina', 'rizzi', 'monti',
  'cattaneo', 'morelli', 'amato', 'silvestri', 'mazza', 'testa', 'grassi', 'pellegrino', 'carbone', 'giuliani',
  'benedetti', 'barone', 'rossetti', 'caputo', 'montanari', 'guerra', 'palmieri', 'bernardi', 'martino', 'fiore',
];

const domini = ['gmail.com', 'libero.it', 'outlook.it', 'tiscali.it', 'virgilio.it', 'studio-tecnico.it', 'comune.lodi.it', 'impianti.eu'];

/** tipo_recapito_id: 1 e-mail (40%), 2 PEC (10%), 3 telefono (20%), 4 cellulare (25%), 5 fax (5%). */
function tipoOf(r) {
  return r < 0.4 ? 1 : r < 0.5 ? 2 : r < 0.7 ? 3 : r < 0.95 ? 4 : 5;
}

const digits = (rand, n) => {
  let s = '';
  for (let i = 0; i < n; i++) s += Math.floor(rand() * 10);
  return s;
};

/** Columns of soggetto_recapito, in the order soggettoRecapitoRow returns them. */
export const soggettoRecapitoColumns = ['id', 'soggetto_id', 'tipo_recapito_id', 'recapito', 'codice_esterno'];

/**
 * Row `id` (1-based) of a table of `total` rows: about five contacts per subject, so
 * `soggetto_id = ?` selects ~5 rows at every size, and `nome.cognome` prefixes select
 * total * 0.4 / 4800 rows (~80 at 1M).
 */
export function soggettoRecapitoRow(id, total) {
  const rand = prng(id * 2654435761);
  const soggetti = Math.max(1, Math.floor(total / 5));
  const soggettoId = 1 + Math.floor(rand() * soggetti);
  const tipo = tipoOf(rand());
  const nome = nomi[Math.floor(rand() * nomi.length)];
  const cognome = cognomi[Math.floor(rand() * cognomi.length)];
  let recapito;
  if (tipo === 1) recapito = `${nome}.${cognome}${Math.floor(rand() * 1000)}@${domini[Math.floor(rand() * domini.length)]}`;
  else if (tipo === 2) recapito = `${cognome}.${nome}${Math.floor(rand() * 1000)}@pec.it`;
  else if (tipo === 3 || tipo === 5) recapito = `+39 0${digits(rand, 2)} ${digits(rand, 7)}`;
  else recapito = `+39 3${digits(rand, 2)} ${digits(rand, 7)}`;
  // Contacts synchronised from the CRM carry its code; a quarter were typed in by hand.
  const codice = rand() < 0.75 ? `CRM-${String(id).padStart(8, '0')}` : null;
  return [id, soggettoId, tipo, recapito, codice];
}

const categorie = [
  'Impianto elettrico', 'Impianto idraulico', 'Climatizzazione', 'Riscaldamento', 'Ventilazione', 'Antincendio',
  'Rilevazione fumi', 'Illuminazione di emergenza', 'Ascensore', 'Fotovoltaico', 'Solare termico', 'Pompa di calore',
  'Gruppo elettrogeno', 'Cabina MT/BT', 'Messa a terra', 'Videosorveglianza', 'Controllo accessi', 'Serramenti',
  'Copertura', 'Struttura portante', 'Prestazione energetica', 'Manutenzione programmata', 'Qualità dell’aria', 'Àree ATEX',
];
const qualificatori = ['piano terra', 'primo piano', 'secondo piano', 'interrato', 'corpo A', 'corpo B', 'esterno', 'centrale termica', 'locale tecnico', 'copertura'];

export const caratteristicaGruppoColumns = ['id', 'descrizione', 'tipo_caratteristica_sezione_id', 'is_disattiva', 'icona_immagine_id', 'ordine_vista'];

/** 50 sections (~2,000 rows each at 100k), ordine_vista 1..10,000, one group in seven retired. */
export function caratteristicaGruppoRow(id) {
  const rand = prng(id * 2246822519 + 7);
  const descrizione = `${categorie[Math.floor(rand() * categorie.length)]} – ${qualificatori[Math.floor(rand() * qualificatori.length)]} ${id}`;
  return [id, descrizione, 1 + Math.floor(rand() * 50), rand() < 1 / 7 ? 1 : 0, 1 + Math.floor(rand() * 500), 1 + Math.floor(rand() * 10_000)];
}

export const impiantoColumns = ['id', 'nome'];
export const impiantoFileColumns = ['id', 'nome', 'is_folder', 'folder_id', 'impianto_id', 'data_creazione', 'data_aggiornamento', 'percorso_storage'];

const cartelle = ['Certificazioni', 'Dichiarazioni di conformità', 'Manutenzione', 'Planimetrie', 'Verbali', 'Foto'];
const documenti = ['libretto-impianto.pdf', 'schema-unifilare.dwg', 'relazione-tecnica.pdf', 'DiCo-2024.pdf', 'verbale-collaudo.pdf', 'foto-quadro.jpg', 'CPI.pdf', 'contratto.pdf'];

/**
 * Impianto `i` (1-based) and its files: a root folder with `perRoot` children, folders and
 * documents mixed. File ids are `(i - 1) * (perRoot + 1) + k + 1`.
 */
export function impiantoRows(i, perRoot) {
  const rand = prng(i * 40503 + 11);
  const base = (i - 1) * (perRoot + 1);
  const date = (k) => new Date(Date.UTC(2020, 0, 1) + Math.floor(rand() * 5 * 365 * 86400_000) + k).toISOString().replace('T', ' ').replace('Z', '');
  const rootId = base + 1;
  const files = [[rootId, `Impianto ${i}`, 1, null, i, date(0), date(1), null]];
  for (let k = 1; k <= perRoot; k++) {
    const folder = rand() < 0.3;
    const nome = folder ? `${cartelle[Math.floor(rand() * cartelle.length)]} ${k}` : `${k}-${documenti[Math.floor(rand() * documenti.length)]}`;
    files.push([base + 1 + k, nome, folder ? 1 : 0, rootId, i, date(k), date(k + 1), folder ? null : `impianti/${i}/${base + 1 + k}`]);
  }
  return { impianto: [i, `Impianto ${i} – ${cognomi[i % cognomi.length]}`], files };
}
