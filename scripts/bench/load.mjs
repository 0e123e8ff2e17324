// Load generators. `closedLoop` drives a server flat out with autocannon (N connections,
// each sending its next request when the last answer arrives) and times every answer
// itself, in microseconds: autocannon's own histogram counts whole milliseconds, too
// coarse for answers that take one or two. `paced` sends at a fixed rate whatever the
// answers do, timing each from when it was due, so a stall is not hidden by the requests
// it kept from being sent (coordinated omission).
import http from 'node:http';
import autocannon from 'autocannon';

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function summarize(latencies) {
  const sorted = Float64Array.from(latencies).sort();
  const round = (v) => Math.round(v * 1000) / 1000;
  return { count: sorted.length, p50: round(percentile(sorted, 50)), p90: round(percentile(sorted, 90)), p99: round(percentile(sorted, 99)), max: round(sorted[sorted.length - 1] ?? NaN) };
}

const headersFor = (r, tokens) => ({
  Authorization: `Bearer ${tokens[r.role]}`,
  Accept: 'application/json',
  ...(r.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
});

/**
 * Runs `next()`'s requests against `url` for `seconds` on `connections` connections; or,
 * given `amount`, exactly that many requests however long they take.
 */
export async function closedLoop({ url, next, tokens, connections, seconds, amount }) {
  const latencies = [];
  const byKind = new Map();
  const statuses = {};
  const instance = autocannon({
    url,
    connections,
    ...(amount === undefined ? { duration: seconds } : { amount }),
    timeout: 30,
    requests: [
      {
        setupRequest: (req, context) => {
          const r = next();
          context.kind = r.name;
          return { ...req, method: r.method, path: r.path, headers: headersFor(r, tokens), body: r.body === undefined ? undefined : JSON.stringify(r.body) };
        },
      },
    ],
  });
  instance.on('response', (client, status, _bytes, ms) => {
    statuses[status] = (statuses[status] ?? 0) + 1;
    latencies.push(ms);
    const kind = client.requestIterator?.context?.kind ?? '?';
    let list = byKind.get(kind);
    if (!list) byKind.set(kind, (list = []));
    list.push(ms);
  });
  const result = await instance;
  return roundOf({ latencies, byKind, statuses, errors: result.errors + result.timeouts, seconds: result.duration });
}

/** A round's figures from its answers. */
function roundOf({ latencies, byKind, statuses, errors, seconds }) {
  const out = {
    rps: Math.round((latencies.length / seconds) * 10) / 10,
    ...summarize(latencies),
    errors,
    statuses,
    byKind: Object.fromEntries([...byKind].map(([k, v]) => [k, summarize(v)])),
  };
  // Kept for joinRounds, but not enumerable: a round written to results.json stays a summary.
  Object.defineProperty(out, 'raw', { value: { latencies, byKind, seconds } });
  return out;
}

/**
 * Two closedLoop rounds against one side as one: req/s over their joint time, percentiles
 * over every answer of both. A pair of the bench gives each side two half-rounds (run.mjs).
 */
export function joinRounds(x, y) {
  const latencies = [...x.raw.latencies, ...y.raw.latencies];
  const byKind = new Map(x.raw.byKind);
  for (const [k, v] of y.raw.byKind) byKind.set(k, [...(byKind.get(k) ?? []), ...v]);
  const statuses = { ...x.statuses };
  for (const [st, n] of Object.entries(y.statuses)) statuses[st] = (statuses[st] ?? 0) + n;
  return roundOf({ latencies, byKind, statuses, errors: x.errors + y.errors, seconds: x.raw.seconds + y.raw.seconds });
}

/** Sends `rate` requests a second for `seconds`, each timed from its due time. */
export async function paced({ url, next, tokens, rate, seconds }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const base = new URL(url);
  const latencies = [];
  const statuses = {};
  let errors = 0;
  const total = Math.round(rate * seconds);
  const start = performance.now();
  const pending = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const r = next();
    const body = r.body === undefined ? undefined : JSON.stringify(r.body);
    pending.push(
      new Promise((resolve) => {
        const req = http.request({ host: base.hostname, port: base.port, path: r.path, method: r.method, agent, headers: headersFor(r, tokens) }, (res) => {
          res.resume();
          res.on('end', () => {
            statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
            latencies.push(performance.now() - due);
            resolve();
          });
        });
        req.on('error', () => {
          errors++;
          resolve();
        });
        req.end(body);
      }),
    );
  }
  await Promise.all(pending);
  agent.destroy();
  return { rate, ...summarize(latencies), errors, statuses };
}
