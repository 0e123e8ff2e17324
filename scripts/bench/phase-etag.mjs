// `etag` (per engine): what a poll costs when nothing changed. The same GETs sent with the
// If-None-Match their answer's tag gave (answered 304) and without it (answered 200), in
// pairs of rounds A B B A on one service, as the ratio of the service's CPU per request,
// 304 / 200 (target ≤ 0.3), for two kinds: `in` (the contacts of 1-10 subjects, a page of
// 50: the cheapest query, where the service's fixed cost per request shows most) and `page`
// (a list screen's first page: 100 contacts of a range of subjects in address order, with
// the total). The database server's own CPU is not counted, as in `compare`: on MySQL a 304
// still costs it one primary-key read, where the 200 costs the query.
import { closedLoop } from './load.mjs';
import { mixKinds, mixSequence } from './mix.mjs';
import { cpuSeconds, settled, stop, treeOf } from './processes.mjs';
import { prepare } from './seed.mjs';
import { warmFile } from './phase-compare.mjs';
import { pairs, seconds, warmup, connections, largest, log, median, round3, spread, tokens, startService } from './context.mjs';

const soggetti = Math.floor(largest.soggettoRecapito / 5);

/** The query string of a GET of each kind, from the `in` kind's seeded draws. */
const kinds = {
  in: (body) => `soggettoIdIn=${body.soggettoIdIn.join(',')}&take=${body.take}`,
  page: (body) => {
    const low = Math.min(body.soggettoIdIn[0], soggetti - 200);
    return `soggettoIdBetween=${low},${low + 200}&orderBy=Recapito&take=100&include=Total`;
  },
};

/** 64 GETs of `kind`, each with the tag its answer carries now. */
async function taggedGets(port, kind) {
  const next = mixSequence(mixKinds(largest), 55, ['in']);
  const gets = [];
  for (let i = 0; i < 64; i++) {
    const path = `/json/reply/SoggettoRecapitoQuery?${kinds[kind](next().body)}`;
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { Authorization: `Bearer ${tokens.admin}` } });
    await res.arrayBuffer();
    const etag = res.headers.get('etag');
    if (res.status !== 200 || !etag) throw new Error(`GET ${path} answered ${res.status} without a tag`);
    gets.push({ method: 'GET', path, role: 'admin', etag });
  }
  return gets;
}

/** One closed-loop round of `gets` in turn, with or without their tags: answers and the service's CPU ms per request. */
async function round(service, gets, conditional, secs, warm) {
  warm?.();
  const pids = treeOf(service.child.pid);
  const before = pids.reduce((s, pid) => s + cpuSeconds(pid), 0);
  let i = 0;
  const next = () => {
    const g = gets[i++ % gets.length];
    return conditional ? { ...g, headers: { 'If-None-Match': g.etag } } : g;
  };
  const r = await closedLoop({ port: service.port, next, connections, seconds: secs });
  const cpu = pids.reduce((s, pid) => s + cpuSeconds(pid), 0) - before;
  return { requests: r.latencies.length, cpu, statuses: r.statuses };
}

/** Pairs of rounds A B B A of the GETs with and without their tags; the side that opens alternates. */
async function series(service, gets, label, warm) {
  for (const conditional of [false, true]) await round(service, gets, conditional, warmup, warm);
  const list = [];
  for (let p = 1; p <= pairs; p++) {
    const order = p % 2 ? [true, false, false, true] : [false, true, true, false];
    const sum = { true: { requests: 0, cpu: 0, statuses: {} }, false: { requests: 0, cpu: 0, statuses: {} } };
    for (const conditional of order) {
      const r = await round(service, gets, conditional, seconds / 2, warm);
      const s = sum[conditional];
      s.requests += r.requests;
      s.cpu += r.cpu;
      for (const [st, n] of Object.entries(r.statuses)) s.statuses[st] = (s.statuses[st] ?? 0) + n;
    }
    const msPer = (s) => round3((s.cpu * 1000) / s.requests);
    list.push({ notModified: msPer(sum.true), ok: msPer(sum.false), statuses: { notModified: sum.true.statuses, ok: sum.false.statuses } });
    log(`${label} pair ${p}: CPU ${list.at(-1).notModified} ms per 304, ${list.at(-1).ok} ms per 200; answers ${JSON.stringify(list.at(-1).statuses)}`);
  }
  return {
    cpuMsPer304: median(list.map((p) => p.notModified)),
    cpuMsPer200: median(list.map((p) => p.ok)),
    cpu: spread(list.map((p) => p.notModified / p.ok)),
    pairs: list,
  };
}

export async function etagPhase(engine, results) {
  const db = await prepare(engine, largest);
  const service = await startService(db, `etag-${engine}`);
  results.startup.push({ where: `etag, ${engine}`, readyMs: service.readyMs });
  try {
    await settled(service.child.pid);
    const figures = {};
    for (const kind of Object.keys(kinds)) {
      figures[kind] = await series(service, await taggedGets(service.port, kind), `${engine} etag ${kind}`, warmFile(db));
      log(`${engine} ${kind}: a 304 costs ${figures[kind].cpu.median} x the CPU of the same GET answered 200`);
    }
    (results.etag ??= {})[engine] = figures;
  } finally {
    await stop(service.child);
  }
}
