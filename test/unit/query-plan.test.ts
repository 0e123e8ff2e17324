// plan(): every normal case and every failure path of the planner passes, one table. The
// planner answers the contract's field errors with its own, so each request is first checked
// against the contract as the edge checks it (design.md §3).
import { expect } from 'chai';
import { loadContract } from '../../src/http/contract.js';
import { requestValidators } from '../../src/http/validate-request.js';
import { plan } from '../../src/query/plan.js';
import { parse } from '../../src/query/request.js';
import { cg, testContext } from '../support/query-catalog.js';
import { summarize, type Outcome, type PlanSummary } from '../support/query-plan-summary.js';

const contract = await loadContract();
const contractErrors = requestValidators(contract.api, contract).get('CaratteristicaGruppoQuery')!;

const long = 'x'.repeat(1001);
const accentsAt1000 = 'à'.repeat(1000); // 1000 code points, 2000 UTF-16 units in NFD-free form
const many = (n: number) => Array.from({ length: n }, (_, i) => i);
const allFields = ['Id', 'Descrizione', 'TipoCaratteristicaSezioneId', 'IsDisattiva', 'IconaImmagineId', 'OrdineVista'];

const cases: Array<[string, { given: Record<string, unknown>; want: Outcome; ctx?: Parameters<typeof testContext>[0] }]> = [
  // Normal cases
  ['defaults', { given: {}, want: { plan: { conditions: [], paging: [0, 100], order: ['Id'], fields: allFields, total: false, aggregates: [] } } }],
  ['the issue example', {
    given: { idIn: [1, 2], descrizioneStartsWith: 'ab', orderBy: '-OrdineVista', fields: 'Id,Descrizione', include: 'Total,MAX(OrdineVista) MaxOrdine', skip: 0, take: 10 },
    want: { plan: {
      conditions: [['Id', 'in', [1, 2]], ['Descrizione', 'startsWith', ['ab']]], paging: [0, 10], order: ['OrdineVista desc', 'Id desc'],
      fields: ['Id', 'Descrizione'], total: true, aggregates: [['max', 'OrdineVista', 'MaxOrdine']],
    } },
  }],
  ['filter names are case-insensitive', { given: { IDIN: [3], DescrizioneLIKE: 'a%', isdisattiva: true }, want: { plan: { conditions: [['Id', 'in', [3]], ['Descrizione', 'like', ['a%']], ['IsDisattiva', 'eq', [true]]] } } }],
  ['every integer operator', {
    given: { ordineVista: 1, ordineVistaGreaterThanOrEqualTo: 2, ordineVistaGreaterThan: 3, ordineVistaLessThan: 4, ordineVistaLessThanOrEqualTo: 5, ordineVistaNotEqualTo: 6, ordineVistaBetween: [7, 8], ordineVistaIn: [] },
    want: { plan: { conditions: [['OrdineVista', 'eq', [1]], ['OrdineVista', 'gte', [2]], ['OrdineVista', 'gt', [3]], ['OrdineVista', 'lt', [4]], ['OrdineVista', 'lte', [5]], ['OrdineVista', 'neq', [6]], ['OrdineVista', 'between', [7, 8]], ['OrdineVista', 'in', []]] } },
  }],
  ['every string operator', {
    given: { descrizione: 'a', descrizioneStartsWith: 'b', descrizioneEndsWith: 'c', descrizioneContains: 'd', descrizioneLike: 'e_', descrizioneBetween: ['f', 'g'], descrizioneIn: ['h'] },
    want: { plan: { conditions: [['Descrizione', 'eq', ['a']], ['Descrizione', 'startsWith', ['b']], ['Descrizione', 'endsWith', ['c']], ['Descrizione', 'contains', ['d']], ['Descrizione', 'like', ['e_']], ['Descrizione', 'between', ['f', 'g']], ['Descrizione', 'in', ['h']]] } },
  }],
  ['int32 bounds', { given: { ordineVistaBetween: [-2147483648, 2147483647] }, want: { plan: { conditions: [['OrdineVista', 'between', [-2147483648, 2147483647]]] } } }],
  ['In with 1000 items', { given: { idIn: many(1000) }, want: { plan: { conditions: [['Id', 'in', many(1000)]] } } }],
  ['string of 1000 code points', { given: { descrizione: accentsAt1000 }, want: { plan: { conditions: [['Descrizione', 'eq', [accentsAt1000]]] } } }],
  ['Like with an escaped backslash at the end', { given: { descrizioneLike: 'a\\\\' }, want: { plan: { conditions: [['Descrizione', 'like', ['a\\\\']]] } } }],
  ['Take clamped at MAX_TAKE', { given: { take: 5000, skip: 7 }, want: { plan: { paging: [7, 1000] } } }],
  ['Take 0', { given: { take: 0 }, want: { plan: { paging: [0, 0] } } }],
  ['DEFAULT_TAKE from the context', { given: {}, ctx: { defaultTake: 25 }, want: { plan: { paging: [0, 25] } } }],
  ['OrderBy and OrderByDesc merge; repeats ignored', { given: { orderBy: 'descrizione,-ordineVista', orderByDesc: 'ORDINEVISTA,-iconaImmagineId,Descrizione' }, want: { plan: { order: ['Descrizione', 'OrdineVista desc', 'IconaImmagineId', 'Id'] } } }],
  ['OrderBy by the key keeps its direction', { given: { orderByDesc: 'Id' }, want: { plan: { order: ['Id desc'] } } }],
  ['the key closes the order in the direction of the last term that counts', { given: { orderBy: 'Descrizione', orderByDesc: 'OrdineVista,Descrizione' }, want: { plan: { order: ['Descrizione', 'OrdineVista desc', 'Id desc'] } } }],
  ['a key named in the order stays where it was named', { given: { orderByDesc: 'Id,Descrizione' }, want: { plan: { order: ['Id desc', 'Descrizione desc'] } } }],
  ['blank items in lists are dropped', { given: { orderBy: ' , Descrizione ,', fields: 'descrizione,, id' }, want: { plan: { order: ['Descrizione', 'Id'], fields: ['Descrizione', 'Id'] } } }],
  ['Fields case-insensitive, repeats dropped', { given: { fields: 'ORDINEVISTA,id,OrdineVista' }, want: { plan: { fields: ['OrdineVista', 'Id'] } } }],
  ['empty Fields selects everything', { given: { fields: '' }, want: { plan: { fields: allFields } } }],
  ['INCLUDE_TOTAL makes Total the default', { given: {}, ctx: { includeTotal: true }, want: { plan: { total: true } } }],
  ['aggregates with and without aliases', {
    given: { include: 'total, count(*), COUNT(Descrizione) n, count( distinct descrizione ) AS d, min(Id), MAX(descrizione) AS top, First(OrdineVista) f, LAST(isDisattiva), SUM(OrdineVista) s, avg(iconaImmagineId)' },
    want: { plan: { total: true, aggregates: [
      ['count', undefined, 'count(*)'], ['count', 'Descrizione', 'n'], ['countDistinct', 'Descrizione', 'd'], ['min', 'Id', 'min(Id)'], ['max', 'Descrizione', 'top'],
      ['first', 'OrdineVista', 'f'], ['last', 'IsDisattiva', 'LAST(isDisattiva)'], ['sum', 'OrdineVista', 's'], ['avg', 'IconaImmagineId', 'avg(iconaImmagineId)'],
    ] } },
  }],
  ['Meta is accepted and ignored', { given: { meta: { a: 'b' } }, want: { plan: { conditions: [] } } }],

  // Failure paths
  ['unknown property', { given: { descrizioneStartWith: 'x' }, want: { errors: [['UnknownField', 'descrizioneStartWith']] } }],
  ['suffix of another family', { given: { isDisattivaIn: [true], descrizioneGreaterThan: 'a' }, want: { errors: [['UnknownField', 'isDisattivaIn'], ['UnknownField', 'descrizioneGreaterThan']] } }],
  ['integer filter given a string', { given: { id: '1' }, want: { errors: [['InvalidType', 'Id']] } }],
  ['integer filter given a fraction', { given: { idGreaterThan: 1.5 }, want: { errors: [['InvalidType', 'IdGreaterThan']] } }],
  ['integer outside int32', { given: { ordineVista: 2147483648, iconaImmagineIdLessThan: -2147483649 }, want: { errors: [['InvalidType', 'OrdineVista'], ['InvalidType', 'IconaImmagineIdLessThan']] } }],
  ['string filter given a number', { given: { descrizione: 5 }, want: { errors: [['InvalidType', 'Descrizione']] } }],
  ['boolean filter given 1', { given: { isDisattiva: 1 }, want: { errors: [['InvalidType', 'IsDisattiva']] } }],
  ['scalar where a list is due', { given: { idIn: 1, idBetween: 1 }, want: { errors: [['InvalidType', 'IdIn'], ['InvalidType', 'IdBetween']] } }],
  ['list where a scalar is due', { given: { id: [1] }, want: { errors: [['InvalidType', 'Id']] } }],
  ['Between with 1 or 3 values', { given: { idBetween: [1], descrizioneBetween: ['a', 'b', 'c'] }, want: { errors: [['InvalidValue', 'IdBetween'], ['InvalidValue', 'DescrizioneBetween']] } }],
  ['In with 1001 items', { given: { idIn: many(1001) }, want: { errors: [['TooMany', 'IdIn']] } }],
  ['In with bad items reports once', { given: { idIn: ['a', 'b', 3] }, want: { errors: [['InvalidType', 'IdIn']] } }],
  ['string over 1000 code points', { given: { descrizioneContains: long, descrizioneIn: ['ok', long] }, want: { errors: [['Length', 'DescrizioneContains'], ['Length', 'DescrizioneIn']] } }],
  ['Like ending in a lone backslash', { given: { descrizioneLike: 'ab\\' }, want: { errors: [['InvalidValue', 'DescrizioneLike']] } }],
  ['negative Skip and Take', { given: { skip: -1, take: -5 }, want: { errors: [['InvalidValue', 'Skip'], ['InvalidValue', 'Take']] } }],
  ['Skip and Take of the wrong type', { given: { skip: '1', take: 1.5 }, want: { errors: [['InvalidType', 'Skip'], ['InvalidType', 'Take']] } }],
  ['unknown OrderBy and OrderByDesc names', { given: { orderBy: 'Descrizione,Nope', orderByDesc: '-Zz' }, want: { errors: [['InvalidValue', 'OrderBy'], ['InvalidValue', 'OrderByDesc']] } }],
  ['OrderBy not a string', { given: { orderBy: ['Id'] }, want: { errors: [['InvalidType', 'OrderBy']] } }],
  ['unknown Fields name', { given: { fields: 'Id,Colore' }, want: { errors: [['InvalidValue', 'Fields']] } }],
  ['Include over 20 items', { given: { include: Array(21).fill('COUNT(*)').join(',') }, want: { errors: [['TooMany', 'Include']] } }],
  ['malformed aggregates', { given: { include: 'MEDIAN(Id),COUNT(,MAX(Id) two words,COUNT(*) ,Totale' }, want: { errors: [['InvalidValue', 'Include'], ['InvalidValue', 'Include'], ['InvalidValue', 'Include'], ['InvalidValue', 'Include']] } }],
  ['AS without an alias, or an alias named AS', { given: { include: 'MAX(Id) AS, MIN(Id) as as' }, want: { errors: [['InvalidValue', 'Include'], ['InvalidValue', 'Include']] } }],
  ['aggregate of an unknown field', { given: { include: 'MIN(Colore)' }, want: { errors: [['InvalidValue', 'Include']] } }],
  ['SUM and AVG of non-integers', { given: { include: 'SUM(Descrizione),AVG(IsDisattiva)' }, want: { errors: [['InvalidValue', 'Include'], ['InvalidValue', 'Include']] } }],
  ['* and DISTINCT only with COUNT', { given: { include: 'MAX(*),MIN(DISTINCT Id),COUNT(DISTINCT *)' }, want: { errors: [['InvalidValue', 'Include'], ['InvalidValue', 'Include'], ['InvalidValue', 'Include']] } }],
  ['Meta not an object', { given: { meta: 'x' }, want: { errors: [['InvalidType', 'Meta']] } }],
  ['every failure gathered, in pass order', {
    given: { nope: 1, idIn: many(1001), take: -1, orderBy: 'X', fields: 'Y', include: 'SUM(Descrizione)' },
    want: { errors: [['UnknownField', 'nope'], ['TooMany', 'IdIn'], ['InvalidValue', 'Take'], ['InvalidValue', 'OrderBy'], ['InvalidValue', 'Fields'], ['InvalidValue', 'Include']] },
  }],
];

describe('query plan', () => {
  for (const [name, { given, want, ctx }] of cases) {
    it(name, () => {
      const parsed = parse(given);
      if (!parsed.ok) throw parsed.error;
      const keys = 'plan' in want ? (Object.keys(want.plan) as (keyof PlanSummary)[]) : [];
      expect(summarize(plan(parsed.value, cg, testContext(ctx), contractErrors(given)), keys)).to.deep.equal(want);
    });
  }

  it('a validation failure lifts the first field error to the top level', () => {
    const given = { take: -1, nope: 2 };
    const parsed = parse(given);
    const r = parsed.ok ? plan(parsed.value, cg, testContext(), contractErrors(given)) : parsed;
    expect(r.ok).to.equal(false);
    if (!r.ok) expect([r.error.code, r.error.status, r.error.errors.length]).to.deep.equal(['UnknownField', 400, 2]);
  });

  it('plan nodes are frozen', () => {
    const parsed = parse({ idIn: [1] });
    const r = parsed.ok ? plan(parsed.value, cg, testContext()) : parsed;
    if (!r.ok) throw r.error;
    expect(Object.isFrozen(r.value)).to.equal(true);
    expect(Object.isFrozen(r.value.conditions[0])).to.equal(true);
  });
});
