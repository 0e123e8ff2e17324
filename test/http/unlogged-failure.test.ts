// The edge's last line of defence: a failure whose own handling fails (here the logger
// throws once, while recording a 500) still gets a ResponseStatus answer, and the process
// keeps serving; an unhandled rejection would have ended it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Logger } from 'pino';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { loadContract } from '../../src/http/contract.js';
import type { HandlerMap, OperationHandler } from '../../src/http/operation.js';
import { createTestDb } from '../support/db.js';

describe('a failure whose handling fails', () => {
  it('answers 500 InternalServerError and keeps serving', async () => {
    const t = await createTestDb('sqlite');
    let server: Server | undefined;
    try {
      const logged: string[] = [];
      let failures = 1;
      const failingLog = {
        error(_: unknown, msg: string) {
          if (failures-- > 0) throw new Error('log sink hiccup');
          logged.push(msg);
        },
      };
      const logger = { child: () => failingLog, isLevelEnabled: () => false } as unknown as Logger;
      const contract = await loadContract();
      let calls = 0;
      const boom: OperationHandler = async () => {
        calls++;
        throw new Error('a bug');
      };
      const handlers = Object.fromEntries([...contract.canonicalIds].map((id) => [id, boom]));
      const app = await createApp({ config: loadConfig({}), db: t.db, clock: () => new Date(), logger }, contract, {
        // Every operation gets the same failing handler, whatever its types.
        handlers: handlers as unknown as HandlerMap,
        authenticator: { verifyAccessToken: () => { throw new Error('unused'); } },
      });
      server = await new Promise<Server>((resolve) => { const s = createServer(app).listen(0, '127.0.0.1', () => resolve(s)); });
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`;
      for (let i = 0; i < 2; i++) {
        const r = await fetch(url);
        expect(r.status).to.equal(500);
        expect(r.headers.get('content-type')).to.equal('application/json; charset=utf-8');
        expect(r.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
        expect(r.headers.get('x-content-type-options')).to.equal('nosniff');
        expect(await r.json()).to.deep.equal({ responseStatus: { errorCode: 'InternalServerError', message: 'An internal error occurred', errors: [] } });
      }
      expect(calls).to.equal(2);
      // The first failure went unlogged (the logger threw); the second was logged as usual.
      expect(logged).to.include('request failed');
    } finally {
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
      await t.drop();
    }
  });
});
