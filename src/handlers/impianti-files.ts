// HTTP handler of GetImpiantoFilesRequest: delegates to src/impianti. The edge has already
// authenticated the caller and validated ImpiantoId against its schema (an int32 of at
// least 1), so the handler receives a number it can use as it is. Its reads, the table
// versions and the rows, run on the one database the read router picks (a replica, or the
// primary; design.md §12), and its answers are tagged like the queries' (§6, §7).
import type { Config } from '../config.js';
import { partOf, perDatabase } from '../db/database.js';
import type { Reads } from '../db/reads/replicas.js';
import type { VersionedTable } from '../db/table-versions/table-versions.js';
import { taggedHeaders } from '../http/entity-tag.js';
import type { HandlerMap, Response } from '../http/operation.js';
import { readImpiantoFiles } from '../impianti/get-impianto-files.js';
import { createImpiantoFilesRepository } from '../impianti/impianto-files-repository.js';
import { answerTag, representationVersion } from './answer-tags.js';
import { taggedRead } from './conditional-read.js';

/** The answer is made of these tables' rows alone: the installation and its files. */
export const impiantoFilesTables: readonly VersionedTable[] = ['impianto', 'impianto_file'];

export function createImpiantiHandlers(deps: { reads: Reads; config: Config }): Pick<HandlerMap, 'GetImpiantoFilesRequest'> {
  // One repository per database the reads run on (the primary, each replica), kept on its
  // handle: each renders its statements once, with its own Knex.
  const repository = perDatabase((database) => createImpiantoFilesRepository(database, { timeoutMs: deps.config.queryTimeoutMs }));
  const service = representationVersion([]);
  return {
    GetImpiantoFilesRequest: async (request): Promise<Response<'GetImpiantoFilesRequest'>> => {
      const { impiantoId } = request.dto;
      const outcome = await deps.reads.run((database) =>
        taggedRead({
          database,
          request,
          tables: impiantoFilesTables,
          timeoutMs: deps.config.queryTimeoutMs,
          tagOf: (versions) => answerTag(service, request, `GetImpiantoFilesRequest ${impiantoId}`, versions),
          read: async (versioned) => {
            const { body, versions } = await readImpiantoFiles(partOf(database, repository), impiantoId, versioned);
            return { value: body, versions };
          },
          // A tag the client holds was given to a 200: the installation existed at these
          // versions, so it still does. `*` asks whether it exists at all: the read says.
          alwaysExists: false,
        }),
      );
      if ('notModified' in outcome) return outcome;
      return outcome.tag === undefined ? { body: outcome.value } : { body: outcome.value, headers: taggedHeaders(outcome.tag) };
    },
  };
}
