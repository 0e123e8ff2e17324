// Where a new MySQL connection goes (design.md §12, "A Galera cluster"). Every connection of
// the service, Knex's and the read pool's alike, is opened through `socket()`, mysql2's
// `stream` option: one node, or the next usable node of a cluster in turn. A node whose
// connection attempt fails, or that its probe finds unusable, is taken out at once and its
// open sockets are destroyed, so no request waits on a node that is dead, paused or cut off
// from the cluster's primary component; the probe puts it back when it answers again.
import net from 'node:net';
import { createConnection, type Connection } from 'mysql2';
import { nameOf, type DbNode, type MysqlTarget } from '../../database-url.js';

/**
 * A socket that is destroyed as soon as its side is shut: mysql2 closes a connection by
 * ending its stream, a half-close, and a hung server never answers that FIN, so the
 * descriptor would stay open.
 */
class ClosingSocket extends net.Socket {
  override end(...args: unknown[]): this {
    (super.end as (...a: unknown[]) => this).apply(this, args);
    this.destroy();
    return this;
  }
}

export interface NodeState {
  readonly node: string;
  readonly usable: boolean;
}

export interface NodeSet {
  /** More than one node: a Galera cluster, probed and given causal reads where asked. */
  readonly clustered: boolean;
  /** A new connection's socket, to the next usable node (mysql2's `stream` option). */
  socket(): net.Socket;
  /** The nodes and whether each takes connections now, for /ready and /metrics. */
  states(): readonly NodeState[];
  /** Probes every node now, for a caller that met a lost node; resolves within the probe's timeout. */
  probeNow(): Promise<void>;
  close(): void;
}

export interface NodeSetOptions {
  /** Between two probes of one node. */
  readonly probeMs: number;
  /** A probe not answered in this time takes the node out. */
  readonly probeTimeoutMs: number;
  /** Hears each change of a node's state. */
  readonly onChange?: (state: NodeState) => void;
}

// Galera's own view of a node: it takes statements (wsrep_ready) and holds every commit of
// the cluster (wsrep_local_state 4, Synced). A server without Galera answers no row here.
const probeSql = "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_ready', 'wsrep_local_state')";

export function usableByStatus(rows: ReadonlyArray<{ Variable_name: string; Value: string }>): boolean {
  const value = (name: string) => rows.find((r) => r.Variable_name.toLowerCase() === name)?.Value;
  if (rows.length === 0) return true;
  return value('wsrep_ready') === 'ON' && value('wsrep_local_state') === '4';
}

interface Member {
  readonly node: DbNode;
  readonly name: string;
  usable: boolean;
  readonly sockets: Set<net.Socket>;
  probe: Connection | undefined;
  /** The probe in flight, which a second asker waits for rather than starting another. */
  probing: Promise<void> | undefined;
}

function openSocket(node: DbNode): net.Socket {
  const socket = new ClosingSocket().connect(node.port, node.host);
  // What mysql2 does for the sockets it makes itself: without it Nagle's algorithm holds
  // each small statement packet back until the server's delayed ACK.
  socket.setNoDelay(true);
  socket.setKeepAlive(true);
  return socket;
}

export function createNodeSet(target: MysqlTarget, options: NodeSetOptions): NodeSet {
  const members: Member[] = target.nodes.map((node) => ({ node, name: nameOf(node), usable: true, sockets: new Set(), probe: undefined, probing: undefined }));
  const clustered = members.length > 1;
  let turn = 0;
  let timer: NodeJS.Timeout | undefined;

  const setUsable = (m: Member, usable: boolean) => {
    if (m.usable === usable) return;
    m.usable = usable;
    if (!usable) for (const s of m.sockets) s.destroy();
    options.onChange?.({ node: m.name, usable });
  };

  const next = (): Member => {
    const usable = members.filter((m) => m.usable);
    // With no node known usable every node is tried in turn: the probe may lag the cluster.
    const from = usable.length > 0 ? usable : members;
    return from[turn++ % from.length]!;
  };

  const socket = (): net.Socket => {
    const m = clustered ? next() : members[0]!;
    const s = openSocket(m.node);
    m.sockets.add(s);
    let connected = false;
    s.once('connect', () => { connected = true; });
    s.once('close', () => {
      m.sockets.delete(s);
      if (!connected && clustered) setUsable(m, false);
    });
    return s;
  };

  const probe = (m: Member): Promise<void> =>
    (m.probing ??= new Promise<void>((resolve) => {
      const conn = m.probe ?? openProbe(m);
      conn.query({ sql: probeSql, timeout: options.probeTimeoutMs }, (err, rows) => {
        m.probing = undefined;
        if (err) {
          conn.destroy();
          if (m.probe === conn) m.probe = undefined;
          setUsable(m, false);
        } else {
          setUsable(m, usableByStatus(rows as Array<{ Variable_name: string; Value: string }>));
        }
        resolve();
      });
    }));

  const openProbe = (m: Member): Connection => {
    const conn = createConnection({
      user: target.user, password: target.password, connectTimeout: options.probeTimeoutMs,
      stream: () => {
        const s = openSocket(m.node);
        // The probe never holds the process open on its own.
        s.unref();
        return s;
      },
    });
    // A failure is read off the next query's callback; without a listener it would end the process.
    conn.on('error', () => {
      if (m.probe === conn) m.probe = undefined;
    });
    m.probe = conn;
    return conn;
  };

  if (clustered) {
    timer = setInterval(() => members.forEach((m) => void probe(m)), options.probeMs);
    timer.unref();
  }

  return {
    clustered,
    socket,
    states: () => members.map((m) => ({ node: m.name, usable: m.usable })),
    probeNow: async () => {
      if (clustered) await Promise.all(members.map(probe));
    },
    close() {
      if (timer !== undefined) clearInterval(timer);
      for (const m of members) m.probe?.destroy();
    },
  };
}
