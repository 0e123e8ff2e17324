// The process's live answers (design.md §7, "Live answers"): one hub for every tagged GET,
// whose version read per interval goes where the reads go (a replica, or the primary), and
// the tables each operation's answer is made of.
import { queryDtos } from '../../generated/query-catalog.js';
import type { Config } from '../config.js';
import type { Reads } from '../db/reads/replicas.js';
import { readVersions, versionedTables } from '../db/table-versions/table-versions.js';
import type { LiveModule } from '../http/live-stream.js';
import { asApiError, errorJson } from '../http/respond.js';
import { LiveHub } from '../live/live-hub.js';
import { impiantoFilesTables } from './impianti-files.js';

/** Proxies commonly close a connection idle for 60 s (nginx's proxy_read_timeout, a cloud balancer's idle timeout); a comment every 15 s keeps a stream well inside that. */
const heartbeatMs = 15_000;

export function createLiveAnswers(deps: { reads: Reads; config: Config }): LiveModule {
  const tables = new Map<string, readonly string[]>([
    ['CaratteristicaGruppoQueryGet', [queryDtos.CaratteristicaGruppoQuery.table]],
    ['SoggettoRecapitoQueryGet', [queryDtos.SoggettoRecapitoQuery.table]],
    ['GetImpiantoFilesRequest', impiantoFilesTables],
  ]);
  const hub = new LiveHub({
    intervalMs: deps.config.liveIntervalMs,
    heartbeatMs,
    maxSubscriptions: deps.config.liveMaxSubscriptions,
    readVersions: () =>
      deps.reads.run(async (database) => {
        const text = await readVersions(database, versionedTables, deps.config.queryTimeoutMs);
        return new Map((text ?? '').split(';').filter(Boolean).map((pair) => pair.split('=') as [string, string]));
      }),
    failureData: (err) => errorJson(asApiError(err)),
  });
  return { hub, tablesOf: (operationId) => tables.get(operationId) };
}
