// Prometheus metrics (GET /metrics, text format): requests and latency per operation and
// status, the read connections, and the process defaults. Labels come from the contract's
// operationIds, never from the path, so a scan of random URLs cannot explode the series.
// Under several workers the answer is the whole process group's (design.md §10).
import express, { type Router } from 'express';
import type { Database } from '../db/database.js';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Purged } from '../auth/token-purge.js';
import type { MaintenanceTrigger } from '../db/maintenance/maintenance-schedule.js';
import type { BackupStats } from '../db/maintenance/backup-schedule.js';
import type { PoolFigures } from '../db/reads/read-executor.js';
import type { ReplicaHealth } from '../db/reads/replicas.js';
import type { NodeState } from '../db/nodes/node-set.js';
import type { LiveFigures } from '../live/live-hub.js';
import { readPoolFigures } from '../db/reads/select.js';

/** The schedules' figures (design.md §8, §9, §12), reported by the process that runs them. */
export interface ScheduleSources {
  purged(): Purged;
  maintenanceTurns(): Readonly<Record<MaintenanceTrigger, number>>;
  /** Scheduled backups of the SQLite file (design.md §9); undefined when none are scheduled. */
  backups(): BackupStats | undefined;
}

/**
 * A process group of several workers (design.md §10): each worker's registry joins the
 * group's, and /metrics, whichever worker answers, is the whole group's.
 */
export interface GroupMetrics {
  join(registry: Registry): void;
  /** The text exposition of every process of the group. */
  metrics(): Promise<string>;
}

/** What the modules report beyond requests and the pool (design.md §12). */
export interface MetricsSources extends Partial<ScheduleSources> {
  replicas(): readonly ReplicaHealth[];
  primaryReads(): number;
  /** The nodes of DATABASE_URL and whether each takes connections (a Galera cluster's, design.md §12). */
  nodes?(): readonly NodeState[];
  /** The live answers' figures (design.md §7). */
  live?(): LiveFigures;
  readonly group?: GroupMetrics;
}

export interface Metrics {
  readonly registry: Registry;
  /** Records one answered request; `operation` is 'none' for 404s and the edge routes. */
  record(operation: string, method: string, status: number, seconds: number): void;
  routes(): Router;
}

/** One label set's children, and its requests not yet handed to prom-client. */
interface Series {
  readonly requests: { inc(n: number): void };
  readonly duration: { observe(seconds: number): void };
  uncounted: number;
}

const buckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(db: Database, sources?: MetricsSources): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const record = requestMetrics(registry);
  poolMetrics(registry, db);
  if (sources) deploymentMetrics(registry, sources);
  sources?.group?.join(registry);
  return {
    registry,
    record,
    routes() {
      const router = express.Router({ caseSensitive: true, strict: true });
      router.get('/metrics', async (_req, res, next) => {
        try {
          const text = await (sources?.group ? sources.group.metrics() : registry.metrics());
          res.type(registry.contentType).send(text);
        } catch (err) {
          next(err);
        }
      });
      return router;
    },
  };
}

/** The requests answered and their durations, by operation, method and status. */
function requestMetrics(registry: Registry): Metrics['record'] {
  const labelNames = ['operation', 'method', 'status'] as const;
  // Counted per series (below) and handed to prom-client when it is read: its inc() hashes
  // the label set on every call.
  const everySeries: Series[] = [];
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by operation and status',
    labelNames,
    registers: [registry],
    collect() {
      for (const s of everySeries) {
        if (s.uncounted > 0) s.requests.inc(s.uncounted);
        s.uncounted = 0;
      }
    },
  });
  const duration = new Histogram({ name: 'http_request_duration_seconds', help: 'Time to answer an HTTP request', labelNames, buckets, registers: [registry] });
  // The series are few (operations x methods x statuses, all from closed sets): each one's
  // children are kept, found through one map per label (no key string built per request).
  const series = new Map<string, Map<string, Map<number, Series>>>();
  const seriesOf = (operation: string, method: string, status: number): Series => {
    let byMethod = series.get(operation);
    if (!byMethod) series.set(operation, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let s = byStatus.get(status);
    if (!s) {
      const labels = { operation, method, status: String(status) };
      s = { requests: requests.labels(labels), duration: duration.labels(labels), uncounted: 0 };
      byStatus.set(status, s);
      everySeries.push(s);
    }
    return s;
  };
  return (operation, method, status, seconds) => {
    const s = seriesOf(operation, method, status);
    s.uncounted++;
    s.duration.observe(seconds);
  };
}

/**
 * The read path's own connections (design.md §8), which carry the queries and files reads;
 * Knex's pool, which carries the writes, has no public figures.
 */
function poolMetrics(registry: Registry, db: Database): void {
  const poolGauge = (name: string, help: string, read: (p: PoolFigures) => number) =>
    new Gauge({ name, help, registers: [registry], collect() { const p = readPoolFigures(db); this.set(p ? read(p) : 0); } });
  poolGauge('db_pool_connections_used', 'Read connections lent to a query', (p) => p.used);
  poolGauge('db_pool_connections_free', 'Idle read connections', (p) => p.free);
  poolGauge('db_pool_connections_max', 'Largest number of read connections', (p) => p.max);
  poolGauge('db_pool_pending_acquires', 'Queries waiting for a read connection', (p) => p.waiting);
}

/** Counters kept by the modules as plain numbers, read at scrape time. */
function deploymentMetrics(registry: Registry, sources: MetricsSources): void {
  new Counter({
    name: 'db_reads_total', help: 'Query and files reads served, by database (primary or replica host:port)', labelNames: ['target'], registers: [registry],
    collect() {
      this.reset();
      this.inc({ target: 'primary' }, sources.primaryReads());
      for (const r of sources.replicas()) this.inc({ target: r.name }, r.reads);
    },
  });
  new Gauge({
    name: 'db_replica_healthy', help: 'Whether a read replica receives reads (1) or is skipped (0)', labelNames: ['replica'], registers: [registry],
    collect() {
      this.reset();
      for (const r of sources.replicas()) this.set({ replica: r.name }, r.healthy ? 1 : 0);
    },
  });
  new Gauge({
    name: 'db_replica_lag_seconds', help: 'How far a read replica was behind the primary at its last check (absent when it could not be asked)', labelNames: ['replica'], registers: [registry],
    collect() {
      this.reset();
      for (const r of sources.replicas()) if (r.lagMs !== undefined) this.set({ replica: r.name }, r.lagMs / 1000);
    },
  });
  const { nodes } = sources;
  if (nodes) {
    new Gauge({
      name: 'db_node_usable', help: 'Whether a node of DATABASE_URL takes new connections (1) or is out (0)', labelNames: ['node'], registers: [registry],
      collect() {
        this.reset();
        for (const n of nodes()) this.set({ node: n.node }, n.usable ? 1 : 0);
      },
    });
  }
  if (sources.live) liveMetrics(registry, sources.live);
  const { purged, maintenanceTurns, backups } = sources;
  if (purged && maintenanceTurns && backups) scheduleMetrics(registry, { purged, maintenanceTurns, backups });
}

/** Open live answers, the distinct requests they share, and how often those ran again. */
function liveMetrics(registry: Registry, read: () => LiveFigures): void {
  new Gauge({ name: 'live_subscriptions', help: 'Live answers (event streams) open in this process', registers: [registry], collect() { this.set(read().subscriptions); } });
  new Gauge({ name: 'live_requests', help: 'Distinct live requests the open streams share, one execution each', registers: [registry], collect() { this.set(read().requests); } });
  new Counter({ name: 'live_reruns_total', help: 'Executions of live requests: first reads and re-runs after their tables moved', registers: [registry], collect() { this.reset(); this.inc(read().reruns); } });
}

/** The schedules' counters, read at scrape time, in the registry of the process that runs them. */
export function scheduleMetrics(registry: Registry, sources: ScheduleSources): void {
  backupMetrics(registry, sources.backups);
  new Counter({
    name: 'auth_purged_rows_total', help: 'Refresh tokens and sessions purged by this node', labelNames: ['table'], registers: [registry],
    collect() {
      this.reset();
      const p = sources.purged();
      this.inc({ table: 'refresh_token' }, p.tokens);
      this.inc({ table: 'auth_session' }, p.sessions);
    },
  });
  new Counter({
    name: 'db_maintenance_turns_total', help: 'Database maintenance turns taken by this node, after a purge or on the schedule', labelNames: ['trigger'], registers: [registry],
    collect() {
      this.reset();
      for (const [trigger, n] of Object.entries(sources.maintenanceTurns())) this.inc({ trigger }, n);
    },
  });
}

/** The scheduled backups' figures, present only while backups are scheduled. */
function backupMetrics(registry: Registry, read: () => BackupStats | undefined): void {
  const gauge = (name: string, help: string, value: (b: BackupStats) => number) =>
    new Gauge({ name, help, registers: [registry], collect() { this.reset(); const b = read(); if (b) this.set(value(b)); } });
  gauge('backup_last_success_timestamp_seconds', 'When the last successful backup of the SQLite file finished (Unix seconds; 0: none yet)', (b) => b.lastSuccessS);
  gauge('backup_last_duration_seconds', 'How long the last successful backup took', (b) => b.lastDurationS);
  gauge('backup_last_size_bytes', 'Size of the last successful backup', (b) => b.lastBytes);
  const counter = (name: string, help: string, value: (b: BackupStats) => number) =>
    new Counter({ name, help, registers: [registry], collect() { this.reset(); const b = read(); if (b) this.inc(value(b)); } });
  counter('backup_successes_total', 'Scheduled backups that succeeded', (b) => b.successes);
  counter('backup_failures_total', 'Scheduled backups that failed (no file kept; the live database and earlier backups untouched)', (b) => b.failures);
}
