// The only module that listens. Resolves config, migrates, builds the app and serves;
// on SIGTERM/SIGINT stops accepting, lets in-flight requests finish (at most 10 s),
// closes the pool and exits 0 (design.md §9).
import http, { ServerResponse, type OutgoingHttpHeader, type OutgoingHttpHeaders, type Server } from 'node:http';
import net, { type Socket } from 'node:net';
import { pino } from 'pino';
import { createApp } from './app.js';
import { loadConfig, ConfigError } from './config.js';
import { connect } from './db/connect.js';
import { migrate } from './db/migrate.js';
import { ApiError } from './errors/api-error.js';
import { createModules } from './handlers/index.js';
import { loadContract } from './http/contract.js';
import { rawErrorResponse } from './http/respond.js';

const drainMs = 10_000;

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = pino({ level: config.logLevel, base: { service: 'impianti-api' } });
  // Migrations get a pool of their own without the statement time limit: an ALTER on a
  // large table may rightly take minutes. Requests are served by a pool whose statements
  // the server itself aborts past QUERY_TIMEOUT_MS, so none can hang behind a lock.
  const migrator = connect({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile });
  try {
    await migrate(migrator);
  } finally {
    await migrator.destroy();
  }
  const db = connect({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile, statementTimeoutMs: config.queryTimeoutMs });
  // The pool keeps this connection open, and with it the lock that tells restore a server
  // holds the SQLite file (design.md §9).
  if (config.databaseUrl === undefined) await db.raw('SELECT 1');
  const deps = { config, db, clock: () => new Date(), logger };
  const modules = createModules(deps);
  await modules.start();
  const app = await createApp(deps, await loadContract(), modules);
  const draining = { now: false };
  const server = http.createServer({ ServerResponse: drainAwareResponse(draining) }, app);
  server.on('clientError', answerClientError);
  server.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const address = server.address();
  logger.info({ port: typeof address === 'object' && address ? address.port : config.port, engine: config.databaseUrl ? 'mysql' : 'sqlite' }, 'listening');

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    draining.now = true;
    void drain(server).then(async () => {
      await modules.close();
      await db.destroy();
      logger.info('stopped');
      process.exit(0);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/**
 * While draining, every answer closes its connection (whenever its request arrived), so
 * keep-alive clients reconnect elsewhere instead of sending into a socket that is about to
 * close. Decided as the head is written, which every answer does (node's res.end() too),
 * rather than by keeping each response in flight in a Set: an old-generation Set that
 * holds every request's response through its database wait makes V8 promote the request's
 * objects out of the young generation, about 8 µs of collection per cheap query.
 */
function drainAwareResponse(draining: { readonly now: boolean }) {
  return class DrainAwareResponse extends ServerResponse {
    override writeHead(statusCode: number, statusMessage?: string, headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this;
    override writeHead(statusCode: number, headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this;
    override writeHead(statusCode: number, ...rest: unknown[]): this {
      if (draining.now) this.shouldKeepAlive = false;
      return (super.writeHead as (statusCode: number, ...rest: unknown[]) => this).call(this, statusCode, ...rest);
    }
  };
}

/** Resolves when every connection has closed after its last answer, or after drainMs at the latest. */
function drain(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, drainMs);
    // net.Server's close() only stops accepting. http.Server's would also drop idle
    // keep-alive connections at once, resetting any request a client is sending on one at
    // that moment. Idle connections are left to the keep-alive timeout instead: clients know
    // it from the Keep-Alive header and stop reusing a connection before it runs out.
    net.Server.prototype.close.call(server, () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Requests Node's parser refuses still get a ResponseStatus body (design.md §3), not a bare status line. */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    return;
  }
  const reason = err.code === 'HPE_HEADER_OVERFLOW' ? `its headers exceed ${http.maxHeaderSize} bytes` : 'it is not valid HTTP/1.1';
  socket.end(rawErrorResponse(ApiError.of('SerializationException', `The request could not be parsed: ${reason}`)));
}

main().catch((err: unknown) => {
  const message = err instanceof ConfigError ? `configuration error: ${err.message}` : err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`impianti-api failed to start: ${message}\n`);
  process.exit(1);
});
