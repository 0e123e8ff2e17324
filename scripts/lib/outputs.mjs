// Reads the spec files under a root and builds every file of generated/ in memory:
// relative path -> exact text. Writing and drift checking both start from this map.
import fs from 'node:fs/promises';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import YAML from 'yaml';
import { fillAutoQuery, withoutExampleRecords } from './autoquery.mjs';
import { fillAutoQueryExport } from './autoquery-export.mjs';
import { readCatalogVocabulary } from './catalog-types-source.mjs';
import { renderCatalogSource } from './catalog-source.mjs';
import { declareAnswers } from './declared-answers.mjs';
import { declareEntityTags } from './entity-tags.mjs';
import { generatedHeader, generatedMarker } from './header.mjs';
import { declareLiveAnswers } from './live-answers.mjs';
import { buildCatalog } from './query-catalog.mjs';
import { addRouteVariants, declareNegotiation, describeRoutes, routesDocument } from './routes.mjs';
import { renderServiceStackDtos } from './servicestack-dtos.mjs';
import { validateInputs } from './validate-inputs.mjs';

// `merge` enables `<<:` so a GET can reuse its POST twin's access declarations.
const readYaml = async (file) => YAML.parse(await fs.readFile(file, 'utf8'), { merge: true, maxAliasCount: -1 });

export async function readInputs(root) {
  const at = (...p) => path.join(root, ...p);
  return {
    openapi: await readYaml(at('spec', 'openapi.yaml')),
    operators: await readYaml(at('spec', 'query-operators.yaml')),
    dtos: await readYaml(at('spec', 'query-dtos.yaml')),
    catalogTypes: await fs.readFile(at('src', 'query', 'catalog-types.ts'), 'utf8'),
  };
}

/** Builds the contents of generated/ from parsed inputs; throws SpecError on bad input. */
export async function buildOutputs(inputs) {
  const vocabulary = readCatalogVocabulary(inputs.catalogTypes);
  const catalog = buildCatalog(validateInputs(inputs.operators, inputs.dtos, vocabulary));
  const filled = withoutExampleRecords(fillAutoQueryExport(fillAutoQuery(inputs.openapi, catalog), catalog));
  const negotiated = declareNegotiation(declareAnswers(declareLiveAnswers(declareEntityTags(filled))));
  const { consumers, routes } = servedDocuments(negotiated);
  // A JSON round trip drops YAML alias identity, so openapi-typescript sees plain data.
  const json = `${JSON.stringify(consumers, null, 2)}\n`;
  const ast = await openapiTS(JSON.parse(json), { silent: true });
  return new Map([
    ['generated/openapi.json', json],
    ['generated/openapi-routes.json', `${JSON.stringify(routes, null, 2)}\n`],
    ['generated/api.d.ts', `${generatedHeader}\n${astToString(ast).trimEnd()}\n`],
    ['generated/query-catalog.ts', renderCatalogSource(catalog)],
    ['generated/servicestack-dtos.ts', renderServiceStackDtos(routes)],
    ['generated/operations.ts', renderOperationIds(routes)],
  ]);
}

/**
 * The two served documents (design.md §2): the consumers' contract, each operation once at
 * its own route, and the routes document, every route the server answers, which the server
 * loads and validates against. Each links to the other.
 */
function servedDocuments(negotiated) {
  const info = { ...negotiated.info, 'x-generated': generatedMarker };
  const consumers = {
    ...describeRoutes(negotiated),
    info,
    externalDocs: {
      description: 'Every route the server answers, suffix and ServiceStack routes included, each with `x-variant-of` naming its operation here: for gateways, validating proxies and ServiceStack users.',
      url: routesDocument,
    },
    'x-routes-document': routesDocument,
  };
  const routes = {
    ...addRouteVariants(negotiated),
    info,
    externalDocs: {
      description: 'The consumers\' contract: each operation once, at its own route. Client generators and documentation read that one.',
      url: 'openapi.json',
    },
  };
  return { consumers, routes };
}

/**
 * The canonical operations the handlers must serve (neither a variant route nor the edge's
 * own): the handler map's keys (src/http/operation.ts), so a missing handler fails tsc.
 */
function renderOperationIds(document) {
  const ids = Object.values(document.paths ?? {}).flatMap((item) =>
    ['get', 'put', 'post', 'delete', 'patch'].map((m) => item[m]).filter((op) => op && !op['x-variant-of'] && op['x-edge'] !== true).map((op) => op.operationId));
  return [
    generatedHeader,
    '',
    '/** The operations the handlers serve; every other route is a variant of one of these or the edge\'s own. */',
    `export const canonicalOperationIds = [\n${[...new Set(ids)].sort().map((id) => `  '${id}',`).join('\n')}\n] as const;`,
    '',
    'export type CanonicalOperationId = (typeof canonicalOperationIds)[number];',
    '',
  ].join('\n');
}

/** Relative paths whose file under root is missing or differs from the built text. */
export async function staleFiles(root, outputs) {
  const stale = [];
  for (const [file, text] of outputs) {
    const current = await fs.readFile(path.join(root, file), 'utf8').catch(() => undefined);
    if (current !== text) stale.push(file);
  }
  return stale;
}
