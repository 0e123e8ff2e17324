import { expect } from 'chai';
import { contractOf } from '../../src/http/contract.js';
import { buildDto, type Body } from '../../src/http/request-dto.js';

// A miniature contract with every kind of property the edge converts.
const document = {
  openapi: '3.1.0',
  paths: {
    '/things/{ThingId}': {
      post: {
        operationId: 'Things',
        'x-roles': ['Admin'],
        parameters: [
          { name: 'ThingId', in: 'path', required: true, schema: { type: 'integer' } },
          { name: 'idIn', in: 'query', schema: { type: 'array', items: { type: 'integer' } } },
          { name: 'nome', in: 'query', schema: { type: 'string' } },
          { name: 'nomeIn', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
          { name: 'attivo', in: 'query', schema: { type: 'boolean' } },
          { name: 'meta', in: 'query', schema: { type: 'object', additionalProperties: { type: 'string' } } },
        ],
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  idIn: { type: 'array', items: { type: 'integer' } },
                  nome: { type: 'string' },
                  nomeIn: { type: 'array', items: { type: 'string' } },
                  attivo: { type: 'boolean' },
                  meta: { type: 'object', additionalProperties: { type: 'string' } },
                  password: { type: 'string' },
                },
              },
            },
          },
        },
      },
    },
  },
};
const op = (await contractOf(document)).operations.get('Things')!;
const none: Body = { kind: 'none' };
const q = (s: string) => [...new URLSearchParams(s)];

type Want = { dto: Record<string, unknown> } | { errors: Array<[string, string]> };
const cases: Array<[string, { path?: Record<string, string>; query?: string; body?: Body; want: Want }]> = [
  ['path parameter converted and camelCased', { path: { ThingId: '7' }, want: { dto: { thingId: 7 } } }],
  ['path parameter not an integer', { path: { ThingId: 'abc' }, want: { errors: [['InvalidType', 'ThingId']] } }],
  ['path parameter over int32', { path: { ThingId: '2147483648' }, want: { errors: [['InvalidType', 'ThingId']] } }],
  ['comma-separated list', { query: 'IdIn=1,2,3', want: { dto: { idIn: [1, 2, 3] } } }],
  ['repeated keys in any case', { query: 'IdIn=1&idin=2&IDIN=3', want: { dto: { idIn: [1, 2, 3] } } }],
  ['JSON array for items with commas', { query: 'NomeIn=["a,b","c"]', want: { dto: { nomeIn: ['a,b', 'c'] } } }],
  ['empty value is the empty list', { query: 'IdIn=', want: { dto: { idIn: [] } } }],
  ['object as deepObject pairs, names in any case', { query: 'meta[source]=web&Meta[lang]=it', want: { dto: { meta: { source: 'web', lang: 'it' } } } }],
  ['object as JSON object text', { query: 'meta={"source":"web"}', want: { dto: { meta: { source: 'web' } } } }],
  ['object sent both ways', { query: 'meta={"a":"b"}&meta[source]=web', want: { errors: [['InvalidType', 'Meta']] } }],
  ['object entry sent twice', { query: 'meta[a]=1&meta[a]=2', want: { errors: [['InvalidType', 'Meta']] } }],
  ['[key] on a property that is no object is an unknown name', { query: 'nome[a]=1', want: { errors: [['UnknownField', 'nome[a]']] } }],
  ['empty value is the empty string', { query: 'Nome=', want: { dto: { nome: '' } } }],
  ['bad list item', { query: 'IdIn=1,x', want: { errors: [['InvalidType', 'IdIn']] } }],
  ['malformed JSON array', { query: 'NomeIn=["a"', want: { errors: [['InvalidType', 'NomeIn']] } }],
  ['booleans true|false|1|0 any case', { query: 'attivo=TRUE', want: { dto: { attivo: true } } }],
  ['boolean 0', { query: 'attivo=0', want: { dto: { attivo: false } } }],
  ['empty boolean is a 400', { query: 'attivo=', want: { errors: [['InvalidType', 'Attivo']] } }],
  ['Meta as JSON object text', { query: 'Meta={"a":"1"}', want: { dto: { meta: { a: '1' } } } }],
  ['Meta not an object', { query: 'Meta=[1]', want: { errors: [['InvalidType', 'Meta']] } }],
  ['unknown query key named as sent', { query: 'descrizioneStartWith=x', want: { errors: [['UnknownField', 'descrizioneStartWith']] } }],
  ['edge parameters are not DTO properties', { query: 'format=json&callback=cb&_=123', want: { dto: {} } }],
  ['a body-only property in the query is refused', { query: 'password=secret', want: { errors: [['InvalidValue', 'Password']] } }],
  ['JSON body with case-insensitive names', { body: { kind: 'json', value: { IDIN: [1], Nome: 'x' } }, want: { dto: { idIn: [1], nome: 'x' } } }],
  ['null counts as absent', { body: { kind: 'json', value: { nome: null } }, want: { dto: {} } }],
  ['body wins, query fills the rest', { body: { kind: 'json', value: { nome: 'body' } }, query: 'nome=query&attivo=1', want: { dto: { nome: 'body', attivo: true } } }],
  ['JSON ints must be numbers', { body: { kind: 'json', value: { idIn: ['1'] } }, want: { errors: [['InvalidType', 'IdIn']] } }],
  ['JSON bools must be booleans', { body: { kind: 'json', value: { attivo: 'true' } }, want: { errors: [['InvalidType', 'Attivo']] } }],
  ['JSON int outside int32', { body: { kind: 'json', value: { idIn: [2147483648] } }, want: { errors: [['InvalidType', 'IdIn']] } }],
  ['every failure listed', { body: { kind: 'json', value: { attivo: 1, nome: 2, bogus: 3 } }, want: { errors: [['InvalidType', 'Attivo'], ['InvalidType', 'Nome'], ['UnknownField', 'bogus']] } }],
  ['__proto__ is just an unknown name', { body: { kind: 'json', value: JSON.parse('{"__proto__": {"x": 1}}') }, want: { errors: [['UnknownField', '__proto__']] } }],
  ['form body converted like a query string', { body: { kind: 'form', pairs: q('idIn=4,5&attivo=false') }, want: { dto: { idIn: [4, 5], attivo: false } } }],
];

describe('request DTO', () => {
  for (const [name, c] of cases) {
    it(name, () => {
      const r = buildDto(op, c.path ?? {}, q(c.query ?? ''), c.body ?? none);
      if ('dto' in c.want) {
        expect(r.ok, r.ok ? '' : JSON.stringify(r.error.errors)).to.equal(true);
        if (r.ok) expect({ ...r.value }).to.deep.equal(c.want.dto);
      } else {
        expect(r.ok).to.equal(false);
        if (!r.ok) {
          expect(r.error.status).to.equal(400);
          expect(r.error.errors.map((e) => [e.errorCode, e.fieldName])).to.deep.equal(c.want.errors);
          expect(r.error.code).to.equal(c.want.errors[0]![0]);
        }
      }
    });
  }
  it('a JSON body that is not an object is a SerializationException', () => {
    const r = buildDto(op, {}, [], { kind: 'json', value: [1, 2] });
    expect(r.ok).to.equal(false);
    if (!r.ok) expect(r.error.code).to.equal('SerializationException');
  });
});
