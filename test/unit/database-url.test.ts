// DATABASE_URL names one server or the nodes of a cluster (design.md §8); a new connection
// goes to the next usable node, and a node that refuses connections is skipped until it answers.
import net from 'node:net';
import { expect } from 'chai';
import { parseMysqlUrl } from '../../src/database-url.js';
import { createNodeSet, usableByStatus } from '../../src/db/nodes/node-set.js';
import { loadConfig } from '../../src/config.js';

describe('DATABASE_URL: one server or the nodes of a cluster', () => {
  it('reads one server, its port 3306 unless named', () => {
    expect(parseMysqlUrl('mysql://app:s%40cret@db.example/impianti')).to.deep.equal({
      nodes: [{ host: 'db.example', port: 3306 }], user: 'app', password: 's@cret', database: 'impianti',
    });
  });

  it('reads the nodes of a cluster, in order, IPv6 included', () => {
    expect(parseMysqlUrl('mysql://root@10.0.0.1:3306,10.0.0.2:3307,[::1]:3308/app').nodes).to.deep.equal([
      { host: '10.0.0.1', port: 3306 }, { host: '10.0.0.2', port: 3307 }, { host: '::1', port: 3308 },
    ]);
  });

  const bad: Array<[string, string, RegExp]> = [
    ['another scheme', 'postgres://a@b/c', /must be a mysql:\/\//],
    ['an empty host in the list', 'mysql://a@b:3306,,c:3306/d', /has a host that is not host or host:port: ""/],
    ['a port out of range', 'mysql://a@b:70000/d', /has a host that is not host or host:port: "b:70000"/],
    ['one node twice', 'mysql://a@b:3306,b/d', /names one host:port twice/],
  ];
  for (const [name, url, message] of bad) {
    it(`refuses ${name}, naming the variable and never the password`, () => {
      expect(() => loadConfig({ DATABASE_URL: url.replace('a@', 'a:hunter2@') })).to.throw(/^DATABASE_URL: /).that.satisfies((e: Error) => !e.message.includes('hunter2') && message.test(e.message));
    });
  }

  it("reads a node's Galera status: usable when ready and synced, or when the server has no Galera", () => {
    const rows = (ready: string, state: string) => [{ Variable_name: 'wsrep_ready', Value: ready }, { Variable_name: 'wsrep_local_state', Value: state }];
    expect([usableByStatus([]), usableByStatus(rows('ON', '4')), usableByStatus(rows('OFF', '4')), usableByStatus(rows('ON', '2')), usableByStatus(rows('ON', '1'))])
      .to.deep.equal([true, true, false, false, false]);
  });
});

describe('the nodes of a cluster: where new connections go', () => {
  const servers: net.Server[] = [];
  const arrivals: number[] = [];
  const listen = async (i: number) => {
    const server = net.createServer((s) => { arrivals.push(i); s.destroy(); });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return (server.address() as net.AddressInfo).port;
  };
  after(() => servers.forEach((s) => s.close()));

  it('spreads connections over the nodes in turn, and skips a node whose connection failed until it answers again', async () => {
    const [a, b] = [await listen(0), await listen(1)];
    const closed = await listen(2);
    await new Promise<void>((r) => servers[2]!.close(() => r()));
    // No probe within the test: its interval is an hour.
    const nodes = createNodeSet(parseMysqlUrl(`mysql://root@127.0.0.1:${a},127.0.0.1:${b},127.0.0.1:${closed}/x`), { probeMs: 3_600_000, probeTimeoutMs: 1000 });
    const open = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const s = nodes.socket();
        await new Promise<void>((r) => { s.once('close', () => r()); s.once('error', () => undefined); });
      }
    };
    await open(3);
    expect(arrivals.sort(), 'one connection on each live node; the third went to the closed port').to.deep.equal([0, 1]);
    expect(nodes.states().map((s) => s.usable)).to.deep.equal([true, true, false]);
    arrivals.length = 0;
    await open(4);
    expect(arrivals.sort(), 'the closed node is skipped').to.deep.equal([0, 0, 1, 1]);
    nodes.close();
  });
});
