// DATABASE_URL, read once: one MariaDB server, or the nodes of a Galera cluster named
// together, `mysql://user:pass@host1:3306,host2:3306,host3:3306/db` (design.md §12). The
// WHATWG URL parser refuses a host list, so the URL is read by this one pattern.

export interface DbNode {
  readonly host: string;
  readonly port: number;
}

export interface MysqlTarget {
  readonly nodes: readonly DbNode[];
  readonly user: string;
  readonly password: string;
  readonly database: string;
}

const shape = /^mysql2?:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#@]+)(?:\/([^?#]*))?(?:[?#].*)?$/;
const hostShape = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9._-]+))(?::(\d{1,5}))?$/;

/** The URL's parts, or an Error whose message says what is wrong with it (never the password). */
export function parseMysqlUrl(url: string): MysqlTarget {
  const m = shape.exec(url);
  if (m === null) throw new Error('must be a mysql://user:pass@host:port/db URL, with host:port pairs separated by commas for a cluster');
  const nodes = m[3]!.split(',').map((part): DbNode => {
    const h = hostShape.exec(part.trim());
    const port = Number(h?.[3] ?? 3306);
    if (h === null || !(port >= 1 && port <= 65535)) throw new Error(`has a host that is not host or host:port: "${part}"`);
    return { host: h[1] ?? h[2]!, port };
  });
  const keys = new Set(nodes.map(nameOf));
  if (keys.size !== nodes.length) throw new Error('names one host:port twice');
  return {
    nodes,
    user: decodeURIComponent(m[1] ?? ''),
    password: decodeURIComponent(m[2] ?? ''),
    database: decodeURIComponent(m[4] ?? ''),
  };
}

/** `host:port`, as logs and /metrics name a node. */
export const nameOf = (node: DbNode): string => `${node.host.includes(':') ? `[${node.host}]` : node.host}:${node.port}`;
