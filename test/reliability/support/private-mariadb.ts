// A private MariaDB server for the fault tests: its own datadir, port, socket and pid
// file, started and stopped by the test itself. The shared server on 3306 is used by
// other test runs at the same time and must never be stopped, so faults happen here.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const mariadbd = '/usr/sbin/mariadbd';
const asRoot = process.getuid?.() === 0;
const running = new Set<ChildProcess>();
// A test that dies half-way must not leave a server behind.
process.once('exit', () => { for (const c of running) c.kill('SIGKILL'); });

export class PrivateMariaDb {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  private constructor(readonly dir: string, readonly port: number, private readonly args: readonly string[]) {}

  /**
   * A fresh datadir in the temp directory; the server is not started yet. `args` are more
   * server options, kept for every start (a server id and binary log for replication).
   */
  static async create(port?: number, args: readonly string[] = []): Promise<PrivateMariaDb> {
    if (!fs.existsSync(mariadbd)) throw new Error(`${mariadbd} is missing: install mariadb-server (scripts/ensure-mysql.sh does)`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-mariadb-'));
    // mariadbd drops to the mysql user when started as root, and that user must own the datadir.
    if (asRoot) spawnSync('chown', ['-R', 'mysql:mysql', dir]);
    const install = spawnSync('mariadb-install-db', [
      ...(asRoot ? ['--user=mysql'] : []),
      `--datadir=${path.join(dir, 'data')}`,
      // root without a password over TCP, as on the shared test server.
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
    ], { encoding: 'utf8' });
    if (install.status !== 0) throw new Error(`mariadb-install-db failed: ${install.stderr || install.stdout}`);
    return new PrivateMariaDb(dir, port ?? (await freePort()), args);
  }

  get url(): string {
    return `mysql://root@127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  async start(): Promise<void> {
    if (this.child) return;
    const child = spawn(mariadbd, [
      '--no-defaults',
      ...(asRoot ? ['--user=mysql'] : []),
      `--datadir=${path.join(this.dir, 'data')}`,
      `--port=${this.port}`,
      '--bind-address=127.0.0.1',
      `--socket=${path.join(this.dir, 'mysqld.sock')}`,
      `--pid-file=${path.join(this.dir, 'mysqld.pid')}`,
      `--log-error=${path.join(this.dir, 'error.log')}`,
      '--innodb-buffer-pool-size=64M',
      '--max-connections=300',
      '--skip-name-resolve',
      ...this.args.map((a) => a.replaceAll('{dir}', this.dir)),
    ], { stdio: 'ignore' });
    this.child = child;
    running.add(child);
    this.exited = new Promise((resolve) => child.once('exit', () => { running.delete(child); resolve(); }));
    void this.exited.then(() => { if (this.child === child) this.child = undefined; });
    await this.waitUntilAccepting(30_000);
  }

  /** A clean shutdown (SIGTERM, as systemd and mysqladmin shutdown do); resolves once the process is gone. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill('SIGTERM');
    const killed = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await this.exited;
    clearTimeout(killed);
    this.child = undefined;
  }

  /** A crash: SIGKILL, no shutdown of any kind; resolves once the process is gone. The next start recovers from InnoDB's redo log. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill('SIGKILL');
    await this.exited;
    this.child = undefined;
  }

  /** Stops the server and removes its datadir. */
  async destroy(): Promise<void> {
    await this.stop();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private async waitUntilAccepting(ms: number): Promise<void> {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      if (!this.child) throw new Error(`mariadbd exited during start-up; see ${path.join(this.dir, 'error.log')}`);
      const ok = spawnSync('mysqladmin', ['--protocol=TCP', '-h127.0.0.1', `-P${this.port}`, '-uroot', 'ping'], { encoding: 'utf8' });
      if (ok.status === 0) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`mariadbd did not accept connections within ${ms} ms`);
  }
}

/** A port nobody listens on right now (the kernel picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
