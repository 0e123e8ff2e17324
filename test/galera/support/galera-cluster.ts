// Three private MariaDB Galera nodes on this machine (issue 66): each its own datadir in the
// temp directory, client port, group communication (gcomm), IST and SST ports, all on
// 127.0.0.1, started, faulted and removed by the test itself. The shared server on 3306 is
// never touched. PrivateMariaDb (test/reliability) keeps its options for every start, so
// node 1 would bootstrap a new cluster again each time it restarts, and gives no process
// to SIGSTOP: hence a small class of its own here, in the same style.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { freePort } from '../../reliability/support/private-mariadb.js';

const mariadbd = '/usr/sbin/mariadbd';
const provider = '/usr/lib/galera/libgalera_smm.so';
const asRoot = process.getuid?.() === 0;
const running = new Set<ChildProcess>();
const dirs = new Set<string>();
// A test that dies half-way must leave no server behind, nor an SST helper (rsync) of one.
process.once('exit', () => {
  for (const c of running) c.kill('SIGKILL');
  for (const dir of dirs) for (const pid of helpersOf(dir)) killQuietly(pid, 'SIGKILL');
});

/**
 * Failure detection of the group. Galera's defaults suspect a silent peer after 5 s
 * (evs.suspect_timeout) and evict it after 15 s; until a dead or stopped node is out of the
 * view no commit completes on any node. Measured here (2 cores, kill -9 of one node, inserts
 * on the two others): the longest stall is the suspect timeout plus about 1.1 s (PT1.5S:
 * 2.7 s, PT1S: 2.2 s, PT0.8S: 1.9 s). Shorter is not safer: at PT1S, on a machine loaded
 * 5x its cores, a SIGSTOP of one node got a slow second one suspected too, and the cluster
 * fell apart into non-primary nodes for 7 s. The keepalive must be under a third of it.
 * GALERA_PROVIDER_OPTIONS (`key=value; ...`) overrides any of these.
 */
export const defaultProviderOptions = withOverrides([
  'evs.keepalive_period=PT0.4S',
  'evs.inactive_check_period=PT0.5S',
  'evs.suspect_timeout=PT1.5S',
  'evs.inactive_timeout=PT5S',
  'evs.install_timeout=PT5S',
  'gcache.size=64M',
], process.env['GALERA_PROVIDER_OPTIONS']);

/** evs.inactive_timeout of the options in force, in ms: by then a lost node is out of the view. */
export const inactiveTimeoutMs = ((): number => {
  const m = /^evs\.inactive_timeout=PT([\d.]+)S$/.exec(defaultProviderOptions.find((o) => o.startsWith('evs.inactive_timeout=')) ?? '');
  return m ? Number(m[1]) * 1000 : 15_000;
})();

function withOverrides(options: readonly string[], overrides: string | undefined): string[] {
  const all = new Map(options.map((o) => [o.slice(0, o.indexOf('=')).trim(), o]));
  for (const o of (overrides ?? '').split(';').map((x) => x.trim()).filter(Boolean)) all.set(o.slice(0, o.indexOf('=')).trim(), o);
  return [...all.values()];
}

export interface GaleraOptions {
  /** wsrep_provider_options beyond the addresses (defaultProviderOptions unless given). */
  readonly providerOptions?: readonly string[];
  /** More mariadbd options, for every node and every start. */
  readonly args?: readonly string[];
}

/** One node: its ports and directory, and the mariadbd process while it runs. */
export class GaleraNode {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private paused = false;

  constructor(
    readonly index: number,
    readonly dir: string,
    readonly port: number,
    readonly gcommPort: number,
    readonly istPort: number,
    readonly sstPort: number,
    private readonly clusterAddress: string,
    private readonly clusterName: string,
    private readonly options: GaleraOptions,
  ) {}

  get name(): string {
    return `node ${this.index + 1}`;
  }

  get url(): string {
    return `mysql://root@127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get logFile(): string {
    return path.join(this.dir, 'error.log');
  }

  /** The last lines of this node's error.log (without the clients' aborted connections), for an error message. */
  logTail(lines = 40): string {
    try {
      return fs.readFileSync(this.logFile, 'utf8').trimEnd().split('\n').filter((l) => !l.includes('Aborted connection')).slice(-lines).join('\n');
    } catch {
      return '(no error.log)';
    }
  }

  /** mariadbd's options for this node, the same for every start. */
  private args(): string[] {
    const providerOptions = [
      `gmcast.listen_addr=tcp://127.0.0.1:${this.gcommPort}`,
      `ist.recv_addr=127.0.0.1:${this.istPort}`,
      ...(this.options.providerOptions ?? defaultProviderOptions),
    ].join('; ');
    return [
      '--no-defaults',
      ...(asRoot ? ['--user=mysql'] : []),
      `--datadir=${path.join(this.dir, 'data')}`,
      `--port=${this.port}`,
      '--bind-address=127.0.0.1',
      `--socket=${path.join(this.dir, 'mysqld.sock')}`,
      `--pid-file=${path.join(this.dir, 'mysqld.pid')}`,
      '--innodb-buffer-pool-size=64M',
      '--innodb-log-file-size=32M',
      '--max-connections=300',
      '--skip-name-resolve',
      '--binlog-format=ROW',
      '--default-storage-engine=InnoDB',
      '--innodb-autoinc-lock-mode=2',
      '--wsrep-on=ON',
      `--wsrep-provider=${provider}`,
      `--wsrep-cluster-name=${this.clusterName}`,
      `--wsrep-cluster-address=${this.clusterAddress}`,
      `--wsrep-node-name=node${this.index + 1}`,
      `--wsrep-node-address=127.0.0.1:${this.gcommPort}`,
      `--wsrep-provider-options=${providerOptions}`,
      '--wsrep-sst-method=rsync',
      `--wsrep-sst-receive-address=127.0.0.1:${this.sstPort}`,
      ...(this.options.args ?? []),
    ];
  }

  /**
   * Spawns mariadbd; `bootstrap` starts a new cluster (--wsrep-new-cluster), otherwise it
   * joins. After a crash the node's saved position is unknown (grastate.dat: seqno -1);
   * as systemd's unit does (galera_recovery), it is first read from InnoDB by
   * `mariadbd --wsrep-recover`, so the node asks for the writesets it missed (IST) rather
   * than a whole copy (SST), which would block the donor's writes while rsync runs.
   * Resolves once the server accepts connections.
   */
  async start(bootstrap = false, ms = 60_000): Promise<void> {
    if (this.child) return;
    const position = bootstrap ? undefined : await this.recoverPosition();
    const child = spawn(mariadbd, [
      ...this.args(),
      `--log-error=${this.logFile}`,
      ...(position ? [`--wsrep-start-position=${position}`] : []),
      ...(bootstrap ? ['--wsrep-new-cluster'] : []),
    ], { stdio: 'ignore' });
    this.child = child;
    this.paused = false;
    running.add(child);
    this.exited = new Promise((resolve) => child.once('exit', () => { running.delete(child); resolve(); }));
    void this.exited.then(() => { if (this.child === child) this.child = undefined; });
    await this.waitUntilAccepting(ms);
  }

  /** The position InnoDB holds, when grastate.dat lost it in a crash; undefined when the file has it (or the node never ran). */
  private async recoverPosition(): Promise<string | undefined> {
    let grastate: string;
    try {
      grastate = fs.readFileSync(path.join(this.dir, 'data', 'grastate.dat'), 'utf8');
    } catch {
      return undefined;
    }
    if (!/^seqno:\s+-1\s*$/m.test(grastate)) return undefined;
    const log = path.join(this.dir, 'wsrep-recover.log');
    const recovery = spawn(mariadbd, [...this.args(), `--log-error=${log}`, '--wsrep-recover'], { stdio: 'ignore' });
    running.add(recovery);
    const code = await new Promise<number | null>((resolve) => recovery.once('exit', (c) => { running.delete(recovery); resolve(c); }));
    const text = fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '';
    const position = /WSREP: Recovered position: (\S+)/.exec(text)?.[1];
    if (code !== 0 || !position) throw new Error(`${this.name}: mariadbd --wsrep-recover failed (exit ${code}); the end of ${log}:\n${text.trimEnd().split('\n').slice(-20).join('\n')}`);
    return position;
  }

  /** A clean shutdown (SIGTERM): the node leaves the group; resolves once the process is gone. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill('SIGTERM');
    if (this.paused) this.resume();
    const killed = setTimeout(() => child.kill('SIGKILL'), 60_000);
    await this.exited;
    clearTimeout(killed);
    this.child = undefined;
    await this.reapHelpers();
  }

  /** A crash: SIGKILL, no shutdown of any kind; resolves once the process is gone. */
  async kill9(): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill('SIGKILL');
    await this.exited;
    this.child = undefined;
    this.paused = false;
    await this.reapHelpers();
  }

  /** SIGSTOP: the process holds its sockets and answers nothing. */
  pause(): void {
    if (!this.child) throw new Error(`${this.name} is not running`);
    this.child.kill('SIGSTOP');
    this.paused = true;
  }

  resume(): void {
    if (!this.child) return;
    this.child.kill('SIGCONT');
    this.paused = false;
  }

  /** Kills the process and its SST helpers, and removes the directory. */
  async destroy(): Promise<void> {
    await this.kill9();
    await this.reapHelpers();
    // GALERA_KEEP_DIRS=1 keeps the datadirs and logs for a look after a failed run.
    if (!process.env['GALERA_KEEP_DIRS']) fs.rmSync(this.dir, { recursive: true, force: true });
    dirs.delete(this.dir);
  }

  /** SST scripts and their rsync daemons outlive a killed server: end those of this node's directory. */
  private async reapHelpers(): Promise<void> {
    for (const pid of helpersOf(this.dir)) killQuietly(pid, 'SIGKILL');
  }

  private async waitUntilAccepting(ms: number): Promise<void> {
    const until = Date.now() + ms;
    for (;;) {
      if (!this.child) throw new Error(`${this.name}: mariadbd exited during start-up; the end of ${this.logFile}:\n${this.logTail()}`);
      try {
        const conn = await mysql.createConnection({ host: '127.0.0.1', port: this.port, user: 'root', connectTimeout: 1000 });
        conn.on('error', () => undefined);
        await conn.end();
        return;
      } catch { /* not listening yet (a joiner listens once its state transfer is done) */ }
      if (Date.now() > until) throw new Error(`${this.name}: mariadbd did not accept connections within ${ms} ms; the end of ${this.logFile}:\n${this.logTail()}`);
      await sleep(100);
    }
  }
}

export interface GaleraCluster {
  readonly nodes: readonly GaleraNode[];
  /** `mysql://root@127.0.0.1:P` of each node, without a database. */
  readonly urls: readonly string[];
  /** The DATABASE_URL form with every node: `mysql://root@127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3/<database>`. */
  multiHostUrl(database?: string): string;
  /** From the first spawn to three Synced nodes, ms. */
  readonly startupMs: number;
  /** When each step of the start-up ended, ms from its beginning. */
  readonly startupSteps: Readonly<Record<string, number>>;
  kill9(i: number): Promise<void>;
  pause(i: number): void;
  resume(i: number): void;
  /** Clean shutdown (SIGTERM). */
  stop(i: number): Promise<void>;
  /** Starts a stopped or killed node again: it joins the running cluster (IST, or SST when its state is unusable). */
  start(i: number, ms?: number): Promise<void>;
  /** Until node `i` reports Synced, ready and a cluster of `size`; resolves with how long it took. */
  waitSynced(i: number, ms?: number, size?: number): Promise<number>;
  /** A value of SHOW GLOBAL STATUS on node `i` (wsrep_local_state_comment, wsrep_cluster_size, ...). */
  status(i: number, name: string): Promise<string | undefined>;
  /**
   * One statement on node `i` over a connection of its own, given up after `timeoutMs` (5 s).
   * `syncWait`: the read first waits until the node has applied every write the cluster
   * committed before it (wsrep_sync_wait = 1); without it a node may answer a moment behind.
   */
  query<T = Record<string, unknown>>(i: number, sql: string, values?: unknown[], options?: { timeoutMs?: number; syncWait?: boolean }): Promise<T[]>;
  destroy(): Promise<void>;
}

/** Three nodes: node 1 bootstraps, nodes 2 and 3 join it by SST; resolves once all three are Synced in a cluster of three. */
export async function startGalera(options: GaleraOptions = {}): Promise<GaleraCluster> {
  for (const f of [mariadbd, provider, '/usr/bin/wsrep_sst_rsync', '/usr/bin/rsync']) {
    if (!fs.existsSync(f)) throw new Error(`${f} is missing: install mariadb-server, galera-4 and rsync`);
  }
  const began = performance.now();
  const steps: Record<string, number> = {};
  const ports = await distinctPorts(12);
  const gcomm = [0, 1, 2].map((i) => ports[i * 4 + 1]!);
  const clusterAddress = `gcomm://${gcomm.map((p) => `127.0.0.1:${p}`).join(',')}`;
  const clusterName = `impianti-galera-${process.pid}`;
  // One installed datadir, copied for each node: a joiner's is replaced by its SST anyway.
  const template = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-galera-template-'));
  const nodes: GaleraNode[] = [];
  try {
    if (asRoot) spawnSync('chown', ['-R', 'mysql:mysql', template]);
    const install = spawnSync('mariadb-install-db', [
      ...(asRoot ? ['--user=mysql'] : []),
      `--datadir=${path.join(template, 'data')}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      '--innodb-log-file-size=32M',
    ], { encoding: 'utf8' });
    if (install.status !== 0) throw new Error(`mariadb-install-db failed: ${install.stderr || install.stdout}`);
    for (let i = 0; i < 3; i++) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), `impianti-galera-${i + 1}-`));
      dirs.add(dir);
      fs.cpSync(path.join(template, 'data'), path.join(dir, 'data'), { recursive: true });
      // mariadbd drops to the mysql user when started as root, and that user must own the datadir.
      if (asRoot) spawnSync('chown', ['-R', 'mysql:mysql', dir]);
      nodes.push(new GaleraNode(i, dir, ports[i * 4]!, gcomm[i]!, ports[i * 4 + 2]!, ports[i * 4 + 3]!, clusterAddress, clusterName, options));
    }
  } finally {
    fs.rmSync(template, { recursive: true, force: true });
  }
  const node = (i: number) => {
    const n = nodes[i];
    if (!n) throw new Error(`no node ${i} (nodes are 0, 1, 2)`);
    return n;
  };
  const query = async <T>(i: number, sql: string, values: unknown[] = [], options: { timeoutMs?: number; syncWait?: boolean } = {}): Promise<T[]> => {
    const timeoutMs = options.timeoutMs ?? 5000;
    const conn = await mysql.createConnection({ host: '127.0.0.1', port: node(i).port, user: 'root', connectTimeout: Math.min(timeoutMs, 2000) });
    conn.on('error', () => undefined);
    try {
      if (options.syncWait) await conn.query({ sql: 'SET SESSION wsrep_sync_wait = 1', timeout: timeoutMs });
      const [rows] = await conn.query({ sql, values, timeout: timeoutMs });
      // A polite end (COM_QUIT) keeps "Aborted connection" warnings out of the node's log.
      conn.end().catch(() => undefined);
      setTimeout(() => conn.destroy(), 1000).unref();
      return rows as T[];
    } catch (err) {
      conn.destroy();
      throw err;
    }
  };
  const status = async (i: number, name: string) => (await query<{ Value: string }>(i, 'SHOW GLOBAL STATUS LIKE ?', [name], { timeoutMs: 2000 }))[0]?.Value;
  // A node just woken by SIGCONT still reports the view it had before it was stopped, so
  // the other running nodes must count it in the group too.
  const waitSynced = async (i: number, ms = 30_000, size = 3): Promise<number> => {
    const from = performance.now();
    const until = Date.now() + ms;
    let last = 'no answer';
    for (;;) {
      try {
        const rows = await query<{ Variable_name: string; Value: string }>(i, "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_state_comment', 'wsrep_cluster_size', 'wsrep_ready', 'wsrep_cluster_status')", [], { timeoutMs: 2000 });
        const s = Object.fromEntries(rows.map((r) => [r.Variable_name, r.Value]));
        last = JSON.stringify(s);
        const others = nodes.filter((n) => n.index !== i && n.running && !n.isPaused);
        const sizes = await Promise.all(others.map((n) => status(n.index, 'wsrep_cluster_size').catch(() => undefined)));
        if (sizes.length > 0) last += `; cluster size seen by the others: ${sizes.join(' ')}`;
        if (s['wsrep_local_state_comment'] === 'Synced' && Number(s['wsrep_cluster_size']) === size && s['wsrep_ready'] === 'ON' && s['wsrep_cluster_status'] === 'Primary'
          && sizes.every((n) => Number(n) === size)) return performance.now() - from;
      } catch (err) {
        last = String((err as Error).message);
      }
      if (Date.now() > until) throw new Error(`${node(i).name} not Synced in a cluster of ${size} within ${ms} ms (last: ${last}); the end of ${node(i).logFile}:\n${node(i).logTail()}`);
      await sleep(100);
    }
  };
  const cluster: GaleraCluster = {
    nodes,
    urls: nodes.map((n) => n.url),
    multiHostUrl: (database = 'impianti') => `mysql://root@${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}/${database}`,
    startupMs: 0,
    startupSteps: {},
    kill9: (i) => node(i).kill9(),
    pause: (i) => node(i).pause(),
    resume: (i) => node(i).resume(),
    stop: (i) => node(i).stop(),
    start: (i, ms) => node(i).start(false, ms),
    waitSynced,
    status,
    query,
    async destroy() {
      await Promise.all(nodes.map((n) => n.destroy()));
    },
  };
  try {
    steps['datadirs installed'] = performance.now() - began;
    await node(0).start(true);
    await waitSynced(0, 30_000, 1);
    // One SST (rsync) at a time, about 5 s each, mostly the SST script's own waits. Node 3
    // starts once node 2 is in the group: two nodes connecting at once may form a component
    // of their own first and take seconds to merge.
    const second = node(1).start();
    await waitFor('node 2 in the group', async () => Number(await status(0, 'wsrep_cluster_size')) === 2, 30_000).catch(async (err) => {
      await second.catch(() => undefined);
      throw err;
    });
    steps['node 2 in the group'] = performance.now() - began;
    await Promise.all([second.then(() => { steps['node 2 accepting'] = performance.now() - began; }), node(2).start().then(() => { steps['node 3 accepting'] = performance.now() - began; })]);
    await Promise.all([0, 1, 2].map((i) => waitSynced(i, 60_000)));
  } catch (err) {
    await cluster.destroy();
    throw err;
  }
  return { ...cluster, startupMs: performance.now() - began, startupSteps: Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, Math.round(v)])) };
}

async function waitFor(what: string, ok: () => Promise<boolean>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (await ok().catch(() => false)) return;
    if (Date.now() > until) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(100);
  }
}

/** `n` ports nobody listens on, all different. */
async function distinctPorts(n: number): Promise<number[]> {
  const got = new Set<number>();
  while (got.size < n) got.add(await freePort());
  return [...got];
}

/** Processes (other than mariadbd's own) whose command line names `dir`: the SST script and its rsync daemon. */
function helpersOf(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes(dir) && !cmdline.startsWith(mariadbd)) pids.push(Number(entry));
    } catch { /* gone meanwhile */ }
  }
  return pids;
}

function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch { /* gone already */ }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
