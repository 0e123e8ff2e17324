// Load generators. `closedLoop` drives a server flat out with autocannon (N connections, each
// sending its next request when the last answer arrives) and keeps every answer's latency
// in microseconds: autocannon's own histogram counts whole milliseconds, too coarse for
// answers of one or two. `paced` sends at a fixed rate whatever the answers do, timing each
// from when it was due, so a stall is not hidden by the requests it kept from being sent.
import http from 'node:http';
import autocannon from 'autocannon';
import { tokens } from './context.mjs';

/** The `p` percentile (0-100) of `latencies`, in ms to three decimals. */
export function percentile(latencies, p) {
  if (latencies.length === 0) return NaN;
  const sorted = Float64Array.from(latencies).sort();
  return Math.round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] * 1000) / 1000;
}

const headersOf = (r) => ({
  Authorization: `Bearer ${tokens[r.role]}`,
  Accept: 'application/json',
  ...(r.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
  ...r.headers,
});

/** `next()`'s requests against `port` for `seconds` on `connections` connections. */
export async function closedLoop({ port, next, connections, seconds }) {
  const latencies = [];
  const statuses = {};
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: seconds,
    timeout: 30,
    requests: [
      {
        setupRequest: (req) => {
          const r = next();
          return { ...req, method: r.method, path: r.path, headers: headersOf(r), body: r.body === undefined ? undefined : JSON.stringify(r.body) };
        },
      },
    ],
  }).on('response', (_client, status, _bytes, ms) => {
    statuses[status] = (statuses[status] ?? 0) + 1;
    latencies.push(ms);
  });
  return { latencies, seconds: result.duration, statuses, errors: result.errors + result.timeouts };
}

/** `rate` requests a second for `seconds` against `port`, each timed from its due time. */
export async function paced({ port, next, rate, seconds }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const latencies = [];
  const statuses = {};
  const start = performance.now();
  const pending = [];
  for (let i = 0; i < Math.round(rate * seconds); i++) {
    const due = start + (i * 1000) / rate;
    if (due - performance.now() > 1) await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
    const r = next();
    pending.push(new Promise((resolve) => {
      const req = http.request({ host: '127.0.0.1', port, path: r.path, method: r.method, agent, headers: headersOf(r) }, (res) => {
        res.resume();
        res.on('end', () => {
          statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
          latencies.push(performance.now() - due);
          resolve();
        });
      });
      req.on('error', () => {
        statuses.error = (statuses.error ?? 0) + 1;
        resolve();
      });
      req.end(r.body === undefined ? undefined : JSON.stringify(r.body));
    }));
  }
  await Promise.all(pending);
  agent.destroy();
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), statuses };
}
