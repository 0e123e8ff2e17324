// The handler factory, a throwaway third DTO (a catalog entry + a table, no engine
// change), and QUERY_TIMEOUT_MS cancellation on MySQL.
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { searchCollation } from '../../src/db/collation.js';
import { connect, disconnect } from '../../src/db/connect.js';
import { ApiError, fail, ok } from '../../src/errors/api-error.js';
import { translateDbError } from '../../src/db/driver-errors.js';
import { primaryOnly } from '../../src/db/reads/replicas.js';
import { createQueryHandlers, queryHandler } from '../../src/handlers/query-handlers.js';
import { loadContract } from '../../src/http/contract.js';
import type { OperationRequest } from '../../src/http/operation.js';
import { requestValidators } from '../../src/http/validate-request.js';
import { executeAlone } from '../../src/query/execute.js';
import { compile } from '../../src/query/run-query.js';
import { sqlDialects } from '../../src/query/sql-dialect.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';
import { cg, defineQueryDto, testContext } from '../support/query-catalog.js';
import { loadFixtures } from '../support/query-fixtures.js';

// The contract's field errors of a DTO, as the edge hands them to the handler.
const contract = await loadContract();
const validators = requestValidators(contract.api, contract);

// Only what query handlers read; the cast keeps this test indifferent to edge-only fields.
const request = (operationId: string, dto: Record<string, unknown>, format: 'json' | 'csv' = 'json') =>
  ({ operationId, dto, fieldErrors: validators.get(operationId)?.(dto) ?? [], principal: null, bearer: () => null, clientIp: '127.0.0.1', format, nextPageUrl: () => undefined, announce: () => {} }) as OperationRequest;

const strumento = defineQueryDto('StrumentoQuery', 'Strumento', 'zz_strumento', [
  { name: 'Id', column: 'id', family: 'integer', nullable: false },
  { name: 'Nome', column: 'nome', family: 'string', nullable: true },
  { name: 'IsAttivo', column: 'is_attivo', family: 'boolean', nullable: false },
  { name: 'Peso', column: 'peso', family: 'integer', nullable: false },
]);

forEachDialect('query handlers', (dialect) => {
  let t: TestDb;
  before(async () => {
    t = await createTestDb(dialect);
    await loadFixtures(t.db);
  });
  after(async () => t?.drop());

  it('serves GET and POST of both DTOs with a body, and a CSV table when CSV was negotiated', async () => {
    const handlers = createQueryHandlers({ reads: primaryOnly(t.db), config: loadConfig({}) });
    expect(Object.keys(handlers).sort()).to.deep.equal(['CaratteristicaGruppoQuery', 'CaratteristicaGruppoQueryGet', 'SoggettoRecapitoQuery', 'SoggettoRecapitoQueryGet']);
    const json = await handlers['SoggettoRecapitoQueryGet']!(request('SoggettoRecapitoQueryGet', { recapitoStartsWith: 'rossi', fields: 'Recapito,Id', include: 'Total' }));
    expect(json).to.include({ nullFree: true }).and.not.have.property('csv');
    const out = await handlers['SoggettoRecapitoQueryGet']!(request('SoggettoRecapitoQueryGet', { recapitoStartsWith: 'rossi', fields: 'Recapito,Id', include: 'Total' }, 'csv'));
    expect(out.body).to.deep.equal({ offset: 0, total: 2, results: [{ recapito: 'ROSSI', id: 2 }, { recapito: 'rossi ', id: 3 }] });
    expect(out.csv).to.deep.equal({
      columns: [{ name: 'Recapito', family: 'string' }, { name: 'Id', family: 'integer' }],
      properties: ['recapito', 'id'],
      rows: [{ recapito: 'ROSSI', id: 2 }, { recapito: 'rossi ', id: 3 }],
    });
    const all = await handlers['CaratteristicaGruppoQuery']!(request('CaratteristicaGruppoQuery', { take: 1 }, 'csv'));
    expect(all.csv?.columns.map((c) => c.name)).to.deep.equal(['Id', 'Descrizione', 'TipoCaratteristicaSezioneId', 'IsDisattiva', 'IconaImmagineId', 'OrdineVista']);
  });

  it('throws the validation ApiError listing every failure', async () => {
    const handlers = createQueryHandlers({ reads: primaryOnly(t.db), config: loadConfig({}) });
    const err = await handlers['CaratteristicaGruppoQuery']!(request('CaratteristicaGruppoQuery', { idBetween: [1], take: -1, colore: 'x' })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(ApiError);
    const e = err as ApiError;
    expect([e.status, e.code, e.errors.map((x) => [x.errorCode, x.fieldName])]).to.deep.equal([
      400, 'InvalidValue', [['InvalidValue', 'IdBetween'], ['UnknownField', 'colore'], ['InvalidValue', 'Take']],
    ]);
  });

  it('a third DTO needs only its catalog entry, a table and a one-line handler', async () => {
    const collation = dialect === 'mysql' ? await searchCollation(t.knex) : undefined;
    await t.knex.schema.createTable('zz_strumento', (tb) => {
      tb.increments('id');
      const nome = tb.string('nome', 100).nullable();
      if (collation) nome.collate(collation);
      tb.boolean('is_attivo').notNullable();
      tb.integer('peso').notNullable();
    });
    await t.knex('zz_strumento').insert([
      { id: 1, nome: 'Violoncello', is_attivo: 1, peso: 3 },
      { id: 2, nome: 'VIOLA', is_attivo: 0, peso: 2 },
      { id: 3, nome: null, is_attivo: 1, peso: 9 },
      { id: 4, nome: 'Oboè', is_attivo: 1, peso: 1 },
    ]);
    const handler = queryHandler(primaryOnly(t.db), testContext(), strumento);
    const out = await handler(request('StrumentoQuery', { nomeStartsWith: 'viol', isAttivo: true, include: 'Total,SUM(Peso),MAX(Nome)' }));
    expect(out.body).to.deep.equal({ offset: 0, total: 1, results: [{ id: 1, nome: 'Violoncello', isAttivo: true, peso: 3 }], meta: { 'SUM(Peso)': '3', 'MAX(Nome)': 'Violoncello' } });
    const sorted = await handler(request('StrumentoQuery', { orderByDesc: 'nome', fields: 'Id', nomeIn: ['oboe', 'viola', 'violoncello'] }));
    expect(sorted.body).to.deep.equal({ offset: 0, results: [{ id: 1 }, { id: 2 }, { id: 4 }] });
  });

  if (dialect === 'mysql') {
    it('cancels a query running past QUERY_TIMEOUT_MS with 503 QueryTimeout', async () => {
      const ctx = testContext({ queryTimeoutMs: 100 });
      const planned = compile(cg, { fields: 'Id' }, ctx);
      if (!planned.ok) throw planned.error;
      // A statement that outlives the timeout: MariaDB's SLEEP stands in for a slow scan.
      const slow = { form: 'plain' as const, key: undefined, outerOrder: undefined, table: 'caratteristica_gruppo', columns: [], expressions: [{ sql: 'SLEEP(3) AS ??', bindings: ['s'] }], where: [], notNull: undefined, order: undefined, limit: 1, offset: 0 };
      // The pool as the service builds it: its sessions carry QUERY_TIMEOUT_MS as the server's statement limit.
      const serving = connect({ databaseUrl: t.databaseUrl, poolMax: 1, statementTimeoutMs: ctx.queryTimeoutMs });
      try {
        const started = Date.now();
        const rendered = { dialect: sqlDialects.mysql, page: [slow], cursorColumns: [], summary: undefined, aggregates: [], estimate: undefined, knownTotal: undefined, versions: undefined };
        const r = await executeAlone(serving, rendered, planned.value, ctx).then(ok, (err: unknown) => fail(translateDbError(err)));
        expect(Date.now() - started).to.be.below(2000);
        expect(r.ok).to.equal(false);
        if (!r.ok) expect([r.error.code, r.error.status, r.error.headers]).to.deep.equal(['QueryTimeout', 503, { 'Retry-After': '1' }]);
        // The connection is usable afterwards: the server ended only the slow statement.
        expect(await serving.knex('caratteristica_gruppo').count({ n: '*' })).to.have.length(1);
      } finally {
        await disconnect(serving);
      }
    });
  }
});
