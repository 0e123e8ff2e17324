// The path and query of a request target as the client sent it: origin form (`/a?b`) or
// absolute form (`http://h/a?b`, RFC 9112 §3.2.2). express's req.path reads the target the
// router sees, which a mounted router or the predefined-route leniency may have rewritten;
// the request log and the next-page link name the one the client asked for (req.originalUrl).

export interface Target {
  /** Still percent-encoded. */
  readonly path: string;
  /** After the `?`, without it; '' when there is none. */
  readonly search: string;
}

export function splitTarget(url: string): Target {
  let target = url;
  if (!url.startsWith('/')) {
    try {
      const u = new URL(url);
      target = u.pathname + u.search;
    } catch {
      // `*` (OPTIONS) or garbage: no operation has such a path, so it falls to the 404.
      return { path: url, search: '' };
    }
  }
  const q = target.indexOf('?');
  return q < 0 ? { path: target, search: '' } : { path: target.slice(0, q), search: target.slice(q + 1) };
}
