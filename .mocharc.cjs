// The suites `make test` runs, the slowest first: mocha's parallel workers take the files in
// this order, so no long suite starts last and runs alone while the other worker idles. A
// suite missing from the list runs after them, in name order.
const fs = require('node:fs');
const path = require('node:path');

const root = 'dist/test';
// Their own targets: make test-reliability, make test-cluster.
const elsewhere = new Set(['reliability', 'cluster', 'galera']);
// The contract through the tools of its users, each a heavy process of its own: Spectral,
// Portman and newman, Prism, client generators, Swagger UI in Chromium, and tsc on edited
// copies of the contract. They change only with the contract or the build, and take a quarter
// of the suite's time: `make test-reliability` runs them (SUITES=tools).
const tools = new Set([
  'unit/contract-ruleset', 'unit/contract-compile-guard', 'http/qa-portman', 'http/prism-proxy',
  'client/generated-clients', 'browser/docs-page',
]);
const stem = (file) => file.replace(/\.test\.js$/, '');
const wanted = process.env.SUITES === 'tools'
  ? (file) => tools.has(stem(file))
  : (file) => !elsewhere.has(file.split('/')[0]) && !tools.has(stem(file));
const slowest = [
  'browser/docs-page', 'http/query-export', 'fuzz/malformed-requests', 'db/operator-loading-bad-input', 'http/qa-portman',
  'unit/contract-compile-guard', 'db/sqlite-backup-restore', 'client/generated-clients', 'http/startup', 'unit/contract-ruleset',
  'fuzz/sql-injection-probes', 'db/sqlite-file-tools', 'http/workers-live', 'db/backup-schedule', 'unit/generator',
  'browser/live-eventsource', 'db/query-substring-index', 'db/operator-loading-disk-full', 'http/auth-register',
  'http/workers-replaced', 'db/operator-loading-progress', 'http/prism-proxy',
];
const rank = (file) => {
  const i = slowest.indexOf(stem(file));
  return i < 0 ? slowest.length : i;
};
const files = fs.existsSync(root)
  ? fs.readdirSync(root, { recursive: true }).map((f) => f.split(path.sep).join('/')).filter((f) => f.endsWith('.test.js') && wanted(f)).sort()
  : [];

module.exports = {
  spec: files.sort((a, b) => rank(a) - rank(b)).map((f) => `${root}/${f}`),
  timeout: 30000,
  slow: 2000,
  exit: true,
};
