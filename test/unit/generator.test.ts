// The contract generator (scripts/generate.mjs): the filter properties and schemas it derives
// from the operator table, every refusal of a broken input table, and the --check drift gate.
// The scripts are plain .mjs outside the TypeScript build, so types come from their .d.mts
// (resolved from test/unit/) and the modules are loaded at run time from dist/test/unit/.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import type * as AutoQuery from '../../scripts/lib/autoquery.mjs';
import type * as CatalogTypesSource from '../../scripts/lib/catalog-types-source.mjs';
import type * as DeclaredAnswers from '../../scripts/lib/declared-answers.mjs';
import type * as EntityTags from '../../scripts/lib/entity-tags.mjs';
import type * as QueryCatalog from '../../scripts/lib/query-catalog.mjs';
import type * as Outputs from '../../scripts/lib/outputs.mjs';
import type * as QuerySchemas from '../../scripts/lib/query-schemas.mjs';
import type * as ValidateInputs from '../../scripts/lib/validate-inputs.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const load = <T>(name: string) => import(new URL(`../../../scripts/lib/${name}`, import.meta.url).href) as Promise<T>;
const { fillAutoQuery } = await load<typeof AutoQuery>('autoquery.mjs');
const { readCatalogVocabulary } = await load<typeof CatalogTypesSource>('catalog-types-source.mjs');
const { declareAnswers } = await load<typeof DeclaredAnswers>('declared-answers.mjs');
const { declareEntityTags } = await load<typeof EntityTags>('entity-tags.mjs');
const { buildCatalog } = await load<typeof QueryCatalog>('query-catalog.mjs');
const { buildOutputs, readInputs } = await load<typeof Outputs>('outputs.mjs');
const { requestSchema } = await load<typeof QuerySchemas>('query-schemas.mjs');
const { validateInputs } = await load<typeof ValidateInputs>('validate-inputs.mjs');

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const readSpec = (file: string): Json => YAML.parse(fs.readFileSync(path.join(root, 'spec', file), 'utf8'), { merge: true }) as Json;
const vocabulary = readCatalogVocabulary(fs.readFileSync(path.join(root, 'src/query/catalog-types.ts'), 'utf8'));
const clone = <T>(v: T): T => structuredClone(v);
const operatorTable = () => clone(readSpec('query-operators.yaml'));
const dtoTable = (fields: Json[]) => ({ dtos: [{ operation: 'ProvaQuery', record: 'Prova', table: 'prova', fields }] });

/** The request schema of a one-DTO table, built through the same passes as the generator. */
function buildRequest(fields: Json[]) {
  const catalog = buildCatalog(validateInputs(operatorTable(), dtoTable(fields), vocabulary));
  const dto = catalog.queryDtos[0]!;
  return { dto, properties: requestSchema(dto, catalog).properties };
}

/** A schema without its error wording, at any depth: the bounds alone. */
const withoutMessages = (schema: Json): Json =>
  Object.fromEntries(Object.entries(schema).filter(([k]) => k !== 'x-error-messages').map(([k, v]) => [k, v && typeof v === 'object' && !Array.isArray(v) ? withoutMessages(v) : v]));

const int32 = { type: 'integer', format: 'int32', minimum: -2147483648, maximum: 2147483647 };
const shaping = ['skip', 'take', 'after', 'orderBy', 'orderByDesc', 'include', 'fields', 'meta'];

describe('generator: filter properties from the operator table', () => {
  const cases: [string, { given: Json[]; want: { filters: string[]; schemas: Record<string, Json> } }][] = [
    [
      'integer family: 8 filters, Between is a pair, In is bounded',
      {
        given: [{ name: 'OrdineVista', column: 'ordine_vista', family: 'integer', nullable: false }],
        want: {
          filters: ['ordineVista', 'ordineVistaGreaterThanOrEqualTo', 'ordineVistaGreaterThan', 'ordineVistaLessThan', 'ordineVistaLessThanOrEqualTo', 'ordineVistaNotEqualTo', 'ordineVistaBetween', 'ordineVistaIn'],
          schemas: {
            ordineVista: int32,
            ordineVistaGreaterThan: int32,
            ordineVistaBetween: { type: 'array', items: int32, minItems: 2, maxItems: 2 },
            ordineVistaIn: { type: 'array', items: int32, maxItems: 1000 },
          },
        },
      },
    ],
    [
      'string family: 7 filters, values at most 1000 characters',
      {
        given: [{ name: 'Descrizione', column: 'descrizione', family: 'string', nullable: true, length: 255 }],
        want: {
          filters: ['descrizione', 'descrizioneStartsWith', 'descrizioneEndsWith', 'descrizioneContains', 'descrizioneLike', 'descrizioneBetween', 'descrizioneIn'],
          schemas: {
            descrizioneLike: { type: 'string', maxLength: 1000 },
            descrizioneBetween: { type: 'array', items: { type: 'string', maxLength: 1000 }, minItems: 2, maxItems: 2 },
            descrizioneIn: { type: 'array', items: { type: 'string', maxLength: 1000 }, maxItems: 1000 },
          },
        },
      },
    ],
    [
      'boolean family: equality only',
      {
        given: [{ name: 'IsDisattiva', column: 'is_disattiva', family: 'boolean', nullable: false }],
        want: { filters: ['isDisattiva'], schemas: { isDisattiva: { type: 'boolean' } } },
      },
    ],
  ];
  for (const [name, { given, want }] of cases) {
    it(name, () => {
      const { dto, properties } = buildRequest(given);
      expect(dto.filters.map((f) => f.property)).to.deep.equal(want.filters);
      expect(Object.keys(properties)).to.deep.equal([...want.filters, ...shaping]);
      for (const [property, schema] of Object.entries(want.schemas)) {
        const { description, ...actual } = properties[property]!;
        expect(withoutMessages(actual), property).to.deep.equal(schema);
        expect(description, property).to.be.a('string');
      }
    });
  }

  it('words the field error of each bound (x-error-messages)', () => {
    const { properties } = buildRequest([{ name: 'Descrizione', column: 'descrizione', family: 'string', nullable: true, length: 255 }]);
    const messages = (schema: unknown) => (schema as Json | undefined)?.['x-error-messages'];
    expect(messages(properties['descrizione'])).to.deep.equal({ maxLength: "'Descrizione' must be at most {maxLength} characters" });
    expect(messages(properties['descrizioneBetween'])).to.deep.equal({ minItems: "'DescrizioneBetween' takes exactly {maxItems} values, got {count}", maxItems: "'DescrizioneBetween' takes exactly {maxItems} values, got {count}" });
    expect(messages(properties['descrizioneIn'])).to.deep.equal({ maxItems: "'DescrizioneIn' takes at most {maxItems} values, got {count}" });
    expect(messages(properties['descrizioneIn']!['items'])).to.deep.equal({ maxLength: "'DescrizioneIn' must be at most {maxLength} characters" });
    expect(messages(properties['take'])).to.deep.equal({ minimum: "'Take' must be {minimum} or more" });
    expect(properties['take']!['maximum']).to.equal(operatorTable()['limits']['takeMaximum']);
  });

  it('names filters PascalCase + suffix and takes the first field as the key', () => {
    const { dto } = buildRequest([
      { name: 'Id', column: 'id', family: 'integer', nullable: false },
      { name: 'OrdineVista', column: 'ordine_vista', family: 'integer', nullable: false },
    ]);
    expect(dto.primaryKey).to.equal('Id');
    expect(dto.filters.find((f) => f.property === 'ordineVistaBetween')).to.deep.equal({
      name: 'OrdineVistaBetween',
      property: 'ordineVistaBetween',
      field: 'OrdineVista',
      operator: 'between',
    });
  });

  it('reads operatorKinds from catalog-types.ts', () => {
    expect(vocabulary.operatorKinds).to.have.length(12).and.include.members(['eq', 'between', 'in']);
    expect(vocabulary.families).to.deep.equal(['integer', 'string', 'boolean']);
  });
});

describe('generator: refuses broken input tables', () => {
  const field = (over: Json = {}) => ({ name: 'Id', column: 'id', family: 'integer', nullable: false, ...over });
  const cases: [string, { given: { operators?: (t: Json) => void; fields?: Json[]; dtos?: Json }; want: string }][] = [
    ['a field of an unknown family', { given: { fields: [field({ family: 'decimal' })] }, want: 'unknown family "decimal"' }],
    ['an operator of an unknown family', { given: { operators: (t) => t.operators[1].families.push('date') }, want: 'unknown family "date"' }],
    ['a family catalog-types.ts lacks', { given: { operators: (t) => (t.families.date = { type: 'string' }) }, want: 'family "date" is not a Family' }],
    ['an operator kind not in operatorKinds', { given: { operators: (t) => (t.operators[1].kind = 'regex') }, want: 'kind is not in operatorKinds' }],
    ['an operatorKinds entry missing from the table', { given: { operators: (t) => t.operators.pop() }, want: 'lists "in" but the table has no such operator' }],
    ['a duplicate suffix', { given: { operators: (t) => (t.operators[2].suffix = 'GreaterThanOrEqualTo') }, want: 'duplicate suffix' }],
    ['an unknown arity', { given: { operators: (t) => (t.operators[0].arity = 'many') }, want: 'arity must be one of' }],
    ['a missing inMaxItems', { given: { operators: (t) => delete t.limits.inMaxItems }, want: 'limits.inMaxItems' }],
    ['a Take maximum past int32', { given: { operators: (t) => (t.limits.takeMaximum = 2147483648) }, want: 'limits.takeMaximum' }],
    ['duplicate field names', { given: { fields: [field(), field({ column: 'id2' })] }, want: 'duplicate field name' }],
    ['field names equal but for case', { given: { fields: [field(), field({ name: 'ID', column: 'id2' })] }, want: 'duplicate field name' }],
    ['a duplicate column', { given: { fields: [field(), field({ name: 'Altro' })] }, want: 'duplicate column "id"' }],
    ['a column that is not snake_case', { given: { fields: [field({ column: 'Id; DROP TABLE x' })] }, want: 'is not snake_case' }],
    ['a camelCase column', { given: { fields: [field({ column: 'ordineVista' })] }, want: 'is not snake_case' }],
    ['a table that is not snake_case', { given: { dtos: { dtos: [{ operation: 'ProvaQuery', record: 'Prova', table: 'prova-x', fields: [field()] }] } }, want: 'table "prova-x" is not snake_case' }],
    ['a field name that is not PascalCase', { given: { fields: [field({ name: 'id' })] }, want: 'name must be PascalCase' }],
    ['a filter that collides with another field', { given: { fields: [field(), field({ name: 'IdIn', column: 'id_in' })] }, want: 'parameter IdIn collides' }],
    ['a field named like a paging parameter', { given: { fields: [field(), field({ name: 'Take', column: 'take' })] }, want: 'collides with paging parameter Take' }],
    ['nullable that is not a boolean', { given: { fields: [field({ nullable: 'no' })] }, want: 'nullable must be true or false' }],
    ['a string field without its column length', { given: { fields: [field(), field({ name: 'Nota', column: 'nota', family: 'string' })] }, want: "length must be the column's length" }],
    ['a length on an integer field', { given: { fields: [field({ length: 10 })] }, want: "length must be the column's length" }],
    ['no fields', { given: { fields: [] }, want: 'fields must be a non-empty list' }],
  ];
  for (const [name, { given, want }] of cases) {
    it(name, () => {
      const operators = operatorTable();
      given.operators?.(operators);
      const dtos = given.dtos ?? dtoTable(given.fields ?? [field()]);
      expect(() => validateInputs(operators, dtos, vocabulary)).to.throw(want);
    });
  }

  const document = (paths: Json, schemas: Json = {}): Json => ({ openapi: '3.0.3', paths, components: { schemas, responses: Object.fromEntries(['BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'MethodNotAllowed', 'NotAcceptable', 'PayloadTooLarge', 'UnsupportedMediaType', 'ServiceUnavailable'].map((r) => [r, {}])) } });
  const catalog = () => buildCatalog(validateInputs(operatorTable(), dtoTable([field()]), vocabulary));
  const autoCases: [string, { given: Json; want: string }][] = [
    ['an x-autoquery naming an unknown DTO', { given: document({ '/q': { 'x-autoquery': 'NessunaQuery', get: {} } }), want: 'x-autoquery names unknown DTO "NessunaQuery"' }],
    ['a DTO no path routes', { given: document({}), want: 'DTO ProvaQuery has no path' }],
    ['hand-written responses on a generated operation', { given: document({ '/q': { 'x-autoquery': 'ProvaQuery', get: { responses: {} } } }), want: '`responses` is generated' }],
    ['a hand-written schema the generator owns', { given: document({ '/q': { 'x-autoquery': 'ProvaQuery', get: {} } }, { Prova: {} }), want: 'components.schemas.Prova is generated' }],
  ];
  for (const [name, { given, want }] of autoCases) {
    it(name, () => expect(() => fillAutoQuery(given, catalog())).to.throw(want));
  }
});

describe('generator: --check detects drift', () => {
  const run = (...args: string[]) => spawnSync(process.execPath, [path.join(root, 'scripts/generate.mjs'), ...args], { encoding: 'utf8' });

  it('passes on a copy of the committed spec/ and generated/, fails once the spec moves on, naming the files, and passes after regenerating', function () {
    // Four runs of the generator, each a process of its own.
    this.timeout(120_000);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-generate-'));
    try {
      for (const dir of ['spec', 'generated']) fs.cpSync(path.join(root, dir), path.join(tmp, dir), { recursive: true });
      fs.mkdirSync(path.join(tmp, 'src/query'), { recursive: true });
      fs.copyFileSync(path.join(root, 'src/query/catalog-types.ts'), path.join(tmp, 'src/query/catalog-types.ts'));
      const committed = run('--check', '--root', tmp);
      expect(committed.status, `the committed generated/ is stale: ${committed.stderr}`).to.equal(0);

      // The file ends inside the last DTO's field list, so this adds a field row to it.
      fs.appendFileSync(path.join(tmp, 'spec/query-dtos.yaml'), '      - { name: Note, column: note, family: string, nullable: true, length: 200 }\n');
      const stale = run('--check', '--root', tmp);
      expect(stale.status).to.equal(1);
      expect(stale.stderr).to.include('generated/openapi.json').and.include('generated/openapi-routes.json').and.include('generated/query-catalog.ts').and.include('generated/api.d.ts');

      expect(run('--root', tmp).status).to.equal(0);
      expect(fs.readFileSync(path.join(tmp, 'generated/query-catalog.ts'), 'utf8')).to.include("name: 'NoteStartsWith'");
      const again = run('--check', '--root', tmp);
      expect(again.status, again.stderr).to.equal(0);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('fails with the problem named when a spec table is broken', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-generate-'));
    try {
      fs.cpSync(path.join(root, 'spec'), path.join(tmp, 'spec'), { recursive: true });
      fs.mkdirSync(path.join(tmp, 'src/query'), { recursive: true });
      fs.copyFileSync(path.join(root, 'src/query/catalog-types.ts'), path.join(tmp, 'src/query/catalog-types.ts'));
      fs.appendFileSync(path.join(tmp, 'spec/query-dtos.yaml'), '      - { name: Note, column: Note, family: string, nullable: true }\n');
      const result = run('--root', tmp);
      expect(result.status).to.equal(2);
      expect(result.stderr).to.include('column "Note" is not snake_case');
      expect(fs.existsSync(path.join(tmp, 'generated'))).to.equal(false);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('generator: declared answers', () => {
  const shared = { description: 'x', content: { 'application/json': { schema: {} } } };
  const doc = (op: Json): Json => ({
    openapi: '3.0.3',
    paths: { '/x': { post: op } },
    components: {
      responses: Object.fromEntries(['BadRequest', 'InternalServerError', 'ServiceUnavailable', 'TooManyRequests'].map((r) => [r, shared])),
      headers: Object.fromEntries(['Access-Control-Allow-Origin', 'RateLimit-Policy', 'RateLimit'].map((h) => [h, { schema: { type: 'string', maxLength: 64 } }])),
    },
  });
  const responsesOf = (d: Json) => (d['paths'] as Json)['/x']!['post']['responses'] as Record<string, Json>;

  it('adds 500 and 503 to every operation, and the CORS header to every answer', () => {
    const out = declareAnswers(doc({ 'x-public': true, responses: { 200: { description: 'ok' }, 400: { $ref: '#/components/responses/BadRequest' } } }));
    expect(Object.keys(responsesOf(out))).to.deep.equal(['200', '400', '500', '503']);
    expect(responsesOf(out)['200']!['headers']).to.have.keys('Access-Control-Allow-Origin');
    expect(((out['components'] as Json)['responses'] as Record<string, Json>)['BadRequest']!['headers']).to.have.keys('Access-Control-Allow-Origin');
  });

  it('gives every answer of a rate-limited operation the RateLimit fields, and a 429 that requires them', () => {
    const out = declareAnswers(doc({ 'x-public': true, 'x-rate-limit': 'prova', responses: { 200: { description: 'ok' }, 400: { $ref: '#/components/responses/BadRequest' } } }));
    const shared = (out['components'] as Json)['responses'] as Record<string, Json>;
    // A shared answer is cited as the policy's copy of it, written once.
    const responses = Object.fromEntries(Object.entries(responsesOf(out)).map(([status, r]) => [status, r['$ref'] ? shared[String(r['$ref']).split('/').pop()!]! : r]));
    expect(Object.keys(responses)).to.deep.equal(['200', '400', '429', '500', '503']);
    expect(responsesOf(out)['400']).to.deep.equal({ $ref: '#/components/responses/BadRequestProva' });
    for (const r of Object.values(responses)) expect(r['headers']).to.include.keys('RateLimit-Policy', 'RateLimit');
    expect(responses['429']!['headers']['RateLimit']).to.deep.equal({ schema: { type: 'string', maxLength: 64 }, required: true });
    expect(shared['BadRequest']!['headers']).to.not.have.property('RateLimit');
  });

  it("requires the RateLimit fields on the 200 of a policy that is never off (the exports'), not of one that may be", () => {
    const ok = (policy: string) => responsesOf(declareAnswers(doc({ 'x-public': true, 'x-rate-limit': policy, responses: { 200: { description: 'ok' } } })))['200']!['headers'];
    expect(ok('export')['RateLimit']).to.include({ required: true });
    expect(ok('register')['RateLimit']).to.deep.equal({ $ref: '#/components/headers/RateLimit' });
  });

  const refused: [string, Json, string][] = [
    ['an operation needing a role without 403', { 'x-roles': ['Admin'], responses: { 401: shared } }, 'must declare 403'],
    ['an operation needing a token without 401', { 'x-roles': [], responses: {} }, 'must declare 401'],
    ['a policy name that is not lower-case', { 'x-public': true, 'x-rate-limit': 'Register', responses: {} }, 'x-rate-limit must be a lower-case name'],
  ];
  for (const [name, op, want] of refused) it(`refuses ${name}`, () => expect(() => declareAnswers(doc(op))).to.throw(want));
});

describe('generator: entity tags (x-etag)', () => {
  const components = {
    headers: { ETag: { schema: { type: 'string', maxLength: 64 } }, 'Cache-Control': { schema: { type: 'string', maxLength: 32 } } },
    responses: { NotModified: { description: 'not modified' } },
  };
  const doc = (item: Json, extra: Json = {}): Json => ({ openapi: '3.0.3', paths: { '/x': item }, components: { ...components, ...extra } });

  it("declares ETag and Cache-Control on the 200, and on the GET If-None-Match and the 304; a POST's takes no If-None-Match", () => {
    const op = { 'x-etag': true, responses: { 200: { description: 'ok' } } };
    const out = declareEntityTags(doc({ get: op, post: op }));
    const item = (out['paths'] as Json)['/x'];
    for (const method of ['get', 'post']) expect(item[method]['responses']['200']['headers']).to.have.keys('ETag', 'Cache-Control');
    expect(item['get']['parameters']).to.deep.equal([{ $ref: '#/components/parameters/IfNoneMatch' }]);
    expect(item['get']['responses']['304']).to.deep.equal({ $ref: '#/components/responses/NotModified' });
    expect(item['post']).to.not.have.property('parameters');
    expect(Object.keys(item['post']['responses'])).to.deep.equal(['200']);
    expect(((out['components'] as Json)['parameters'] as Json)['IfNoneMatch']).to.include({ name: 'If-None-Match', in: 'header', 'x-edge-parameter': true });
  });

  const refused: [string, Json, Json, string][] = [
    ['an x-etag operation without a 200 of its own', { get: { 'x-etag': true, responses: {} } }, {}, 'needs a 200 of its own'],
    ['a 304 written by hand', { get: { 'x-etag': true, responses: { 200: { description: 'ok' }, 304: { description: 'x' } } } }, {}, '304 is generated'],
    ['a hand-written IfNoneMatch parameter', { get: { responses: {} } }, { parameters: { IfNoneMatch: {} } }, 'IfNoneMatch is generated'],
    ['a missing NotModified answer', { get: { responses: {} } }, { responses: {} }, 'NotModified is missing'],
  ];
  for (const [name, item, extra, want] of refused) it(`refuses ${name}`, () => expect(() => declareEntityTags(doc(item, extra))).to.throw(want));
});

describe('generator: the two served documents (design.md §2)', () => {
  type Operation = [path: string, method: string, op: Json];
  const operationsOf = (document: Json): Operation[] => Object.entries(document['paths'] as Record<string, Json>)
    .flatMap(([path, item]) => ['get', 'put', 'post', 'delete', 'patch', 'head'].filter((m) => item[m]).map((m): Operation => [path, m, item[m]]));
  let consumers: Json;
  let routes: Json;
  before(async function () {
    this.timeout(60_000);
    const outputs = await buildOutputs(await readInputs(root));
    consumers = JSON.parse(outputs.get('generated/openapi.json')!) as Json;
    routes = JSON.parse(outputs.get('generated/openapi-routes.json')!) as Json;
  });

  it('the consumers\' document declares each operation once, at its own route, and links the routes document', () => {
    const ops = operationsOf(consumers);
    expect(ops.filter(([, m, op]) => m === 'head' || op['x-variant-of'])).to.deep.equal([]);
    expect(ops.length).to.be.at.most(30);
    const own = Object.fromEntries(ops.map(([path, m, op]) => [op['operationId'], `${m.toUpperCase()} ${path}`]));
    expect(own).to.include({ Register: 'POST /register', RegisterPut: 'PUT /register', GetImpiantoFilesRequest: 'GET /impianti/{ImpiantoId}/files', CaratteristicaGruppoQuery: 'POST /json/reply/CaratteristicaGruppoQuery', CaratteristicaGruppoQueryGet: 'GET /json/reply/CaratteristicaGruppoQuery' });
    expect(consumers['externalDocs']).to.include({ url: 'openapi-routes.json' });
    expect(consumers['x-routes-document']).to.equal('openapi-routes.json');
  });

  it('the routes document declares every route, each variant naming an operation of the consumers\' document', () => {
    const canonical = new Set(operationsOf(consumers).map(([, , op]) => op['operationId']));
    const variants = operationsOf(routes).filter(([, , op]) => op['x-variant-of']);
    expect(variants.map(([, , op]) => op['x-variant-of']).filter((id) => !canonical.has(id))).to.deep.equal([]);
    expect(operationsOf(routes).filter(([, , op]) => !op['x-variant-of']).map(([, , op]) => op['operationId']).sort()).to.deep.equal([...canonical].sort());
    expect(routes['paths']).to.include.keys('/register.json', '/json/reply/Register', '/api/Register.json', '/api/GetImpiantoFilesRequest', '/json/reply/CaratteristicaGruppoQuery.csv');
  });

  it("names, in each operation's description, the routes besides its own", () => {
    const files = (consumers['paths'] as Json)['/impianti/{ImpiantoId}/files']['get']['description'] as string;
    for (const route of ['`/impianti/{ImpiantoId}/files.json`', '`/json/reply/GetImpiantoFilesRequest`', '`/api/GetImpiantoFilesRequest`', 'HEAD', '`openapi-routes.json`', '`Accept`']) expect(files).to.include(route);
    const routeDescription = (routes['paths'] as Json)['/impianti/{ImpiantoId}/files']['get']['description'] as string;
    expect(routeDescription).not.to.include('openapi-routes.json');
  });

  it("requires ETag and Cache-Control on a tagged operation's .csv 200, and the exports' RateLimit fields on their 200 but not on HEAD", () => {
    const paths = routes['paths'] as Json;
    const headers = (path: string, method: string) => paths[path][method]['responses']['200']['headers'] as Record<string, Json>;
    expect(headers('/json/reply/CaratteristicaGruppoQuery.csv', 'get')['ETag']).to.include({ required: true });
    expect(headers('/json/reply/CaratteristicaGruppoQuery', 'get')['ETag']).to.deep.equal({ $ref: '#/components/headers/ETag' });
    expect(headers('/json/reply/SoggettoRecapitoQueryExport', 'post')['RateLimit']).to.include({ required: true });
    expect(headers('/json/reply/SoggettoRecapitoQueryExport', 'head')['RateLimit']).not.to.have.property('required');
  });
});
