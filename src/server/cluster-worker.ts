// One of WORKERS workers (design.md §10): serves like a single process, without migrating
// (the primary did) and without the schedules (the primary runs them). It tells the primary
// when it listens or why it could not start, and its /metrics asks the primary for the
// whole group's.
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { GroupMetrics } from '../http/metrics.js';
import { exitOnStopSignal, startService } from './lifecycle.js';

/** What a worker and its primary say to each other over the cluster's channel. */
export type WorkerMessage =
  | { readonly type: 'impianti:listening'; readonly port: number }
  | { readonly type: 'impianti:failed'; readonly message: string }
  | { readonly type: 'impianti:metrics-request'; readonly id: number };
export type PrimaryMessage = { readonly type: 'impianti:metrics'; readonly id: number; readonly text?: string; readonly error?: string };

const metricsWaitMs = 6000;

export async function runWorker(config: Config, logger: Logger): Promise<void> {
  const service = await startService(config, logger, { schedules: false, group: groupMetrics() });
  send({ type: 'impianti:listening', port: service.port });
  exitOnStopSignal(logger, service.stop);
}

/** Tells the primary why this worker could not start; false when there is no primary to tell. */
export function reportStartFailure(message: string): Promise<boolean> {
  return new Promise((resolve) => {
    if (!process.send || !process.connected) return resolve(false);
    process.send({ type: 'impianti:failed', message } satisfies WorkerMessage, undefined, {}, (err) => resolve(err === null));
  });
}

function send(message: WorkerMessage): void {
  process.send?.(message);
}

/**
 * prom-client's AggregatorRegistry collects every worker's registry in the primary; the
 * primary answers this worker's request with the sum, and its own schedules' figures.
 */
function groupMetrics(): GroupMetrics {
  const waiting = new Map<number, { resolve(text: string): void; reject(err: Error): void }>();
  let next = 0;
  process.on('message', (m: PrimaryMessage) => {
    const w = m?.type === 'impianti:metrics' ? waiting.get(m.id) : undefined;
    if (!w) return;
    waiting.delete(m.id);
    if (m.text !== undefined) w.resolve(m.text);
    else w.reject(new Error(`the primary could not gather the metrics: ${m.error ?? 'no answer'}`));
  });
  return {
    join(registry: Registry) {
      // The constructor makes this worker answer the primary's requests for its figures.
      new AggregatorRegistry();
      AggregatorRegistry.setRegistries([registry]);
    },
    metrics: () => new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`the primary did not answer for the metrics within ${metricsWaitMs} ms`));
      }, metricsWaitMs);
      waiting.set(id, {
        resolve: (text) => { clearTimeout(timer); resolve(text); },
        reject: (err) => { clearTimeout(timer); reject(err); },
      });
      send({ type: 'impianti:metrics-request', id });
    }),
  };
}
