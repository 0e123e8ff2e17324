// The suites `make test` runs, the slowest first: mocha's parallel workers take the files in
// this order, so no long suite starts last and runs alone while the other worker idles. A
// suite missing from the list runs after them, in name order.
const fs = require('node:fs');
const path = require('node:path');

const root = 'dist/test';
// Their own targets: make test-reliability, make test-cluster.
const elsewhere = new Set(['reliability', 'cluster', 'galera']);
const slowest = [
  'unit/contract-compile-guard', 'unit/generator', 'fuzz/malformed-requests', 'db/operator-loading-bad-input',
  'http/query-export', 'browser/docs-page', 'browser/live-eventsource', 'http/qa-portman', 'client/generated-clients',
  'db/sqlite-backup-restore', 'db/sqlite-file-tools', 'http/auth-register', 'fuzz/sql-injection-probes', 'http/client-address',
  'db/operator-loading-progress', 'db/query-substring-index', 'http/startup', 'db/backup-schedule', 'db/operator-loading-disk-full',
];
const rank = (file) => {
  const i = slowest.indexOf(file.replace(/\.test\.js$/, ''));
  return i < 0 ? slowest.length : i;
};
const files = fs.existsSync(root)
  ? fs.readdirSync(root, { recursive: true }).map((f) => f.split(path.sep).join('/')).filter((f) => f.endsWith('.test.js') && !elsewhere.has(f.split('/')[0])).sort()
  : [];

module.exports = {
  spec: files.sort((a, b) => rank(a) - rank(b)).map((f) => `${root}/${f}`),
  timeout: 30000,
  slow: 2000,
  exit: true,
};
