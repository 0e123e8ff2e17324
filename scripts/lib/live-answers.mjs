// Declares the live answers of the GET operations marked `x-live: true` (design.md §7, "Live
// answers"), so generated clients and the documentation page show them:
//   - a `text/event-stream` 200 after the JSON one (tools that take the first media type keep
//     asking for JSON), its schema `components.schemas.LiveEvents` describing the events, its
//     example an answer event made of the JSON 200's example;
//   - the `Last-Event-ID` request header (`components.parameters.LastEventId`);
//   - the 429 past the cap of open streams (`components.responses.TooManyLiveAnswers`).
// The events' `id` is the answer's entity tag, so a live operation must be tagged (x-etag).
// Runs after the entity tags are declared and before the declared answers and the route
// variants; the suffix and HEAD variants, which never stream, drop what it adds (routes.mjs).
import { SpecError } from './spec-error.mjs';

const verbs = ['get', 'put', 'post', 'delete', 'patch'];
export const liveMedia = 'text/event-stream';
export const liveParameter = '#/components/parameters/LastEventId';
export const liveRefusal = '#/components/responses/TooManyLiveAnswers';
const eventsSchema = '#/components/schemas/LiveEvents';
const exampleTag = '"q1F0kHc2Yk7d1vX9m3Jt8sWbA4nE6rLz"';

const liveNote =
  '**Live answer.** With `Accept: text/event-stream` (no suffix, `format` or `callback`), after the checks of the plain GET, the 200 is a stream of events (`text/event-stream`): each answer as `data`, its entity tag as `id`, the current one first, then each change; a reconnect sends `Last-Event-ID`. A browser\'s `EventSource`, which sends no header, may carry the access token in the `ss-tok` cookie instead of `Authorization`.';

/** Returns a copy of the document with the live answers declared; throws SpecError. */
export function declareLiveAnswers(document) {
  const problems = [];
  const components = document.components ?? {};
  const need = [['parameters', 'LastEventId'], ['responses', 'TooManyLiveAnswers'], ['schemas', 'LiveEvents']];
  for (const [kind, name] of need) {
    if (!components[kind]?.[name]) problems.push(`spec/openapi.yaml: components.${kind}.${name} is missing (x-live operations use it)`);
  }
  const paths = {};
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    paths[path] = { ...item };
    for (const method of verbs.filter((m) => item[m]?.['x-live'] !== undefined)) {
      const op = item[method];
      const where = `spec/openapi.yaml: ${method.toUpperCase()} ${path}`;
      if (op['x-live'] !== true) problems.push(`${where}: x-live must be true (or absent)`);
      if (method !== 'get') problems.push(`${where}: only a GET answers live (x-live)`);
      if (op['x-etag'] !== true) problems.push(`${where}: x-live needs x-etag: the events' id is the answer's entity tag`);
      const ok = op.responses?.['200'];
      const json = ok?.content?.['application/json'];
      if (!ok || ok.$ref || !json) {
        problems.push(`${where}: x-live needs a 200 of its own answering application/json, the events' data`);
        continue;
      }
      if (ok.content[liveMedia]) problems.push(`${where}: the ${liveMedia} 200 is generated for x-live; remove it`);
      if (op.responses['429']) problems.push(`${where}: the 429 of x-live is generated; the operation may not declare one of its own`);
      const example = json.example === undefined ? undefined : `id: ${exampleTag}\ndata: ${JSON.stringify(json.example)}\n\n`;
      const content = { ...ok.content, [liveMedia]: { schema: { $ref: eventsSchema }, ...(example === undefined ? {} : { example }) } };
      paths[path][method] = {
        ...op,
        description: [op.description?.trimEnd(), liveNote].filter(Boolean).join('\n\n'),
        parameters: [...(op.parameters ?? []), { $ref: liveParameter }],
        responses: { ...op.responses, 200: { ...ok, content }, 429: { $ref: liveRefusal } },
      };
    }
  }
  if (problems.length > 0) throw new SpecError(problems);
  return { ...document, paths };
}

/** An operation as a route that never streams answers it (a suffix route, HEAD): without what declareLiveAnswers added. */
export function withoutLive(op) {
  if (op['x-live'] !== true) return op;
  const { 'x-live': _, ...rest } = op;
  const responses = Object.fromEntries(Object.entries(op.responses ?? {}).map(([status, r]) => {
    if (status !== '200' || !r.content?.[liveMedia]) return [status, r];
    const { [liveMedia]: __, ...content } = r.content;
    return [status, { ...r, content }];
  }).filter(([, r]) => r.$ref !== liveRefusal));
  return { ...rest, parameters: (op.parameters ?? []).filter((p) => p.$ref !== liveParameter), responses };
}
