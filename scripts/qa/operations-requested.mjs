// Which operations of the contract a newman run requested: each execution's method and path
// against each operation's method and path template, below the base URL's own path.

const verbs = ['get', 'put', 'post', 'delete', 'patch'];

/** `METHOD /path` of every operation of the document, with a matcher for its template. */
export function operationsOf(document) {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) => verbs.filter((m) => item[m]).map((method) => {
    const pattern = path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^/]+');
    return { id: item[method].operationId, method: method.toUpperCase(), path, matches: new RegExp(`^${pattern}$`) };
  }));
}

/** The operation ids requested, and those of the document no request reached. */
export function requestedOperations(document, requests, basePath = '') {
  const operations = operationsOf(document);
  const requested = new Set();
  for (const { method, path } of requests) {
    const own = basePath !== '' && path.startsWith(basePath) ? path.slice(basePath.length) : path;
    const op = operations.find((o) => o.method === method && o.matches.test(own));
    if (op) requested.add(op.id);
  }
  return { requested: [...requested].sort(), missing: operations.filter((o) => !requested.has(o.id)).map((o) => o.id) };
}
