// parse(): the DTO split into filter candidates and shaping parameters, names as written.
import { expect } from 'chai';
import { parse } from '../../src/query/request.js';

type Want = { filters: Array<[string, unknown]>; shaping: Record<string, [string, unknown]> } | { error: string };

const cases: Array<[string, { given: unknown; want: Want }]> = [
  ['empty object', { given: {}, want: { filters: [], shaping: {} } }],
  [
    'the issue example',
    {
      given: { idIn: [1, 2], descrizioneStartsWith: 'ab', orderBy: '-OrdineVista', fields: 'Id,Descrizione', include: 'Total', skip: 0, take: 10 },
      want: {
        filters: [['idIn', [1, 2]], ['descrizioneStartsWith', 'ab']],
        shaping: { orderBy: ['orderBy', '-OrdineVista'], fields: ['fields', 'Id,Descrizione'], include: ['include', 'Total'], skip: ['skip', 0], take: ['take', 10] },
      },
    },
  ],
  ['shaping names in any case', { given: { TAKE: 5, OrderByDESC: 'Id' }, want: { filters: [], shaping: { take: ['TAKE', 5], orderByDesc: ['OrderByDESC', 'Id'] } } }],
  ['null counts as absent', { given: { idIn: null, take: null }, want: { filters: [], shaping: {} } }],
  ['unknown names stay as filter candidates', { given: { descrizioneStartWith: 'x' }, want: { filters: [['descrizioneStartWith', 'x']], shaping: {} } }],
  ['meta is a shaping parameter', { given: { meta: { a: 'b' } }, want: { filters: [], shaping: { meta: ['meta', { a: 'b' }] } } }],
  ['an array is not a request', { given: [1], want: { error: 'InvalidType' } }],
  ['null is not a request', { given: null, want: { error: 'InvalidType' } }],
];

describe('query parse', () => {
  for (const [name, { given, want }] of cases) {
    it(name, () => {
      const r = parse(given);
      if ('error' in want) {
        expect(r.ok).to.equal(false);
        if (!r.ok) expect(r.error.code).to.equal(want.error);
        return;
      }
      expect(r.ok).to.equal(true);
      if (!r.ok) return;
      expect(r.value.filters.map((f) => [f.name, f.value])).to.deep.equal(want.filters);
      expect(Object.fromEntries(Object.entries(r.value.shaping).map(([k, p]) => [k, [p!.name, p!.value]]))).to.deep.equal(want.shaping);
    });
  }
});
