// The request mix both servers answer: what a back office does all day. Each kind draws
// its parameters from a seeded PRNG, so every round sends the same sequence to each side.
import { cognomi, nomi, prng } from './data.mjs';

const pick = (rand, list) => list[Math.floor(rand() * list.length)];
const int = (rand, lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

/**
 * Request makers by name. `sizes` are the seeded row counts; each maker returns
 * { method, path, body?, role } where role is the token to send ('admin' | 'apiUser').
 */
export function mixKinds(sizes) {
  const soggetti = Math.floor(sizes.soggettoRecapito / 5);
  const q = (operation, body) => ({ method: 'POST', path: `/json/reply/${operation}`, body, role: 'admin' });
  return {
    // `in`, the cheapest kind, where the framework shows: the contacts of 1 to 10 subjects
    // (soggettoIdIn), on the soggetto_id index, one page of 50.
    in: (r) => q('SoggettoRecapitoQuery', { soggettoIdIn: Array.from({ length: int(r, 1, 10) }, () => int(r, 1, soggetti)), take: 50 }),
    // In on the primary key: ten random contacts.
    idIn: (r) => q('SoggettoRecapitoQuery', { idIn: Array.from({ length: 10 }, () => int(r, 1, sizes.soggettoRecapito)) }),
    // A prefix of name.surname: ~80 matches at 1M rows, first page of 20.
    startsWith: (r) => q('SoggettoRecapitoQuery', { recapitoStartsWith: `${pick(r, nomi)}.${pick(r, cognomi)}`, take: 20 }),
    // A range of ~2% of the groups, ordered by the ranged field, some page of 20.
    betweenOrderPaging: (r) => {
      const low = int(r, 1, 9_800);
      return q('CaratteristicaGruppoQuery', { ordineVistaBetween: [low, low + 200], orderBy: 'OrdineVista', skip: 20 * int(r, 0, 5), take: 20 });
    },
    // Projection: three columns of the contacts of five subjects.
    fields: (r) => q('SoggettoRecapitoQuery', { soggettoIdIn: Array.from({ length: 5 }, () => int(r, 1, soggetti)), fields: 'Id,TipoRecapitoId,Recapito' }),
    // Exact count of a selective filter (~100 rows) plus its first page.
    total: (r) => {
      const low = int(r, 1, soggetti - 20);
      return q('SoggettoRecapitoQuery', { soggettoIdBetween: [low, low + 20], include: 'Total', take: 10 });
    },
    // Aggregates over one section (~2,000 rows at 100k) plus its first page. (Adding
    // isDisattiva: false makes MariaDB intersect two indexes, 86,000 entries of them for the
    // boolean: 25 ms instead of 5.)
    aggregate: (r) =>
      q('CaratteristicaGruppoQuery', { tipoCaratteristicaSezioneId: int(r, 1, 50), take: 10, include: 'COUNT(*) Gruppi, MAX(OrdineVista) MaxOrdine' }),
    files: (r) => ({ method: 'GET', path: `/impianti/${int(r, 1, sizes.impianti)}/files`, role: 'apiUser' }),
  };
}

/** An endless, seeded round-robin over the kinds, as autocannon `requests` entries. */
export function mixSequence(kinds, seed, names = Object.keys(kinds)) {
  const rand = prng(seed);
  let i = 0;
  return () => {
    const name = names[i++ % names.length];
    return { name, ...kinds[name](rand) };
  };
}
