// The client's backstop behind the server's statement limit (src/db/reads/statement-deadline.ts):
// a read the server never answers fails with 503 a grace second after QUERY_TIMEOUT_MS, and
// its connection is closed, not lent again. The "server" is MariaDB behind a relay in this
// test that can stop passing the server's answers on.
import fs from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { connect, disconnect } from '../../src/db/connect.js';
import type { Database } from '../../src/db/database.js';
import { translateDbError } from '../../src/db/driver-errors.js';
import { selectRows } from '../../src/db/reads/select.js';
import { cancel, watch } from '../../src/db/reads/statement-deadline.js';
import { dialects, mysqlTestUrl } from '../support/dialects.js';
import { requireOfMachine } from '../support/machine.js';

interface Relay {
  readonly url: string;
  /** Connections opened through the relay so far. */
  readonly connections: () => number;
  /** While silent, whatever the server sends is dropped. */
  silent: boolean;
  /** The client's local port of connection `i` (from 0). */
  clientPort(i: number): number;
  close(): Promise<void>;
}

/**
 * Whether this process holds an open socket whose local port is `port`, read off Linux's
 * /proc: a socket only half-closed keeps its descriptor, a destroyed one gives it up.
 */
function holdsSocketFrom(port: number): boolean {
  const suffix = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f[1]?.endsWith(suffix))
    .map((f) => `socket:[${f[9]}]`);
  const held = new Set(fs.readdirSync('/proc/self/fd').map((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return '';
    }
  }));
  return inodes.some((inode) => held.has(inode));
}

/**
 * A relay to MariaDB. It keeps its side open when the client only half-closes
 * (allowHalfOpen), as a hung server's machine would, so a client that merely ends its
 * socket keeps holding it.
 */
async function startRelay(): Promise<Relay> {
  const target = new URL(mysqlTestUrl);
  const sockets = new Set<net.Socket>();
  const clients: net.Socket[] = [];
  let opened = 0;
  const relay: Relay = {
    url: '',
    connections: () => opened,
    silent: false,
    clientPort: (i) => clients[i]!.remotePort!,
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    opened++;
    clients.push(client);
    const upstream = net.connect(Number(target.port || 3306), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => (client.destroy(), upstream.destroy()));
    }
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (!relay.silent) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(mysqlTestUrl);
  url.port = String((server.address() as AddressInfo).port);
  return Object.assign(relay, { url: url.toString() });
}

// Declared only when the run covers MySQL (DIALECTS): it has no SQLite counterpart.
if (dialects.includes('mysql')) describe('a server that stops answering a read [mysql]', () => {
  const timeoutMs = 300;
  let relay: Relay;
  let db: Database;
  before(async () => {
    requireOfMachine(fs.existsSync('/proc/net/tcp'), 'finding the relay\'s connections needs /proc/net/tcp (Linux)');
    relay = await startRelay();
    db = connect({ databaseUrl: relay.url, poolMax: 1, statementTimeoutMs: timeoutMs });
  });
  after(async () => {
    if (db) await disconnect(db);
    await relay?.close();
  });
  afterEach(() => {
    if (relay) relay.silent = false;
  });

  it('fails the read with 503 a grace second after QUERY_TIMEOUT_MS, and lends a fresh connection after it', async () => {
    expect(await selectRows(db, 'SELECT ? AS n', [1], timeoutMs)).to.deep.equal([{ n: 1 }]);
    expect(relay.connections()).to.equal(1);
    expect(holdsSocketFrom(relay.clientPort(0)), 'the probe sees the open socket').to.equal(true);

    relay.silent = true;
    const started = performance.now();
    const err = await selectRows(db, 'SELECT ? AS n', [2], timeoutMs).then(() => undefined, (e: unknown) => e);
    const waitedMs = performance.now() - started;
    relay.silent = false;
    expect((err as { code?: unknown }).code, 'the read fails on its deadline').to.equal('PROTOCOL_SEQUENCE_TIMEOUT');
    const answer = translateDbError(err);
    expect([answer.status, answer.code]).to.deep.equal([503, 'ServiceUnavailable']);
    // The grace second after the limit, plus at most one sweep and a busy machine's slack.
    expect(waitedMs).to.be.within(timeoutMs + 1000, timeoutMs + 1000 + 250 + 1000);

    // The silenced connection is closed for good, not half-closed waiting on the server;
    // the next read gets a new one and its own answer.
    expect(holdsSocketFrom(relay.clientPort(0)), 'the socket is destroyed').to.equal(false);
    expect(await selectRows(db, 'SELECT ? AS n', [3], timeoutMs)).to.deep.equal([{ n: 3 }]);
    expect(relay.connections()).to.equal(2);
  });

  it('leaves a read answered in time alone, and one the driver refused: the connection stays in the pool', async () => {
    const before = relay.connections();
    // mysql2 refuses an undefined value before sending anything: no deadline is left behind.
    const refused = await selectRows(db, 'SELECT ? AS n', [undefined], timeoutMs).then(() => undefined, (e: unknown) => e);
    expect((refused as Error).message).to.match(/undefined/);
    for (let i = 0; i < 3; i++) expect(await selectRows(db, 'SELECT ? AS n', [i], timeoutMs)).to.deep.equal([{ n: i }]);
    // Past the deadline of those reads: nothing fires on the connection that served them.
    await new Promise((resolve) => setTimeout(resolve, timeoutMs + 1000 + 500));
    expect(await selectRows(db, 'SELECT ? AS n', [9], timeoutMs)).to.deep.equal([{ n: 9 }]);
    expect(relay.connections()).to.equal(before);
  });
});

describe('statement deadlines (src/db/reads/statement-deadline.ts)', () => {
  const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('fires each deadline once when due, never a cancelled one, and reuses no slot twice', async () => {
    const fired: string[] = [];
    const early = watch(0, () => fired.push('early'));
    const cancelled = watch(0, () => fired.push('cancelled'));
    cancel(cancelled);
    // A second cancel must not free the slot again: two later deadlines would share it.
    cancel(cancelled);
    const later = [watch(0, () => fired.push('b')), watch(0, () => fired.push('c')), watch(60_000, () => fired.push('not yet'))];
    await settle(600);
    expect(fired.sort()).to.deep.equal(['b', 'c', 'early']);
    expect(early.slot).to.equal(-1);
    expect(later[2]!.slot).to.be.at.least(0);
    cancel(later[2]!);
    // Expired deadlines are cancelled by the sweep: cancelling one after it fired changes nothing.
    cancel(early);
    const again = watch(0, () => fired.push('again'));
    await settle(600);
    expect(fired).to.include('again');
    expect(again.slot).to.equal(-1);
  });
});
