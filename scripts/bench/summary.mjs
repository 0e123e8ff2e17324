// The results as one table (markdown, as the READMEs show it): each measure per engine, with
// its target; a figure that misses its target is marked ✗. Then the targets met.
import { shapes } from './scale-queries.mjs';
import { sizes } from './context.mjs';

const engines = ['mysql', 'sqlite'];
const ratio = (s) => `${s.median} (${s.min}–${s.max})`;

/** A cell: its text, and whether it meets `test` (undefined: no target). */
const cell = (text, value, test) => ({ text: test && !test(value) ? `${text} ✗` : String(text), met: test ? test(value) : undefined });

const kindNames = { in: '`in`', mix: 'mix' };
const measures = { rps: 'req/s', cpu: 'server CPU per request' };

/**
 * The compare phase's rows, for `in` and the mix: the service against the floor (the
 * targets), the floor against the bare side and the service against the bare side (what the
 * libraries and the whole stack cost), and each side's median req/s and CPU ms per request.
 * `key` names a ratio of a kind's figures; the service / bare ratio is the kind's own `rps`
 * and `cpu`.
 */
function compareRows(compare, at, atLeast, atMost) {
  const row = (kind, m, sides, key, target) => [
    `${kindNames[kind]}: ${measures[m]}, ${sides}`,
    target?.text ?? '',
    (e) => at(compare, e, (c) => {
      const r = (key ? c[kind][key] : c[kind])?.[m];
      return r && cell(ratio(r), r.median, target?.check);
    }),
  ];
  const goals = { rps: { text: '≥ 0.95', check: atLeast(0.95) }, cpu: { text: '≤ 1.1', check: atMost(1.1) } };
  const list = [];
  for (const [sides, key, withTarget] of [['service / floor', 'serviceFloor', true], ['floor / bare', 'floorBare'], ['service / bare']]) {
    for (const m of ['rps', 'cpu']) for (const kind of ['in', 'mix']) list.push(row(kind, m, sides, key, withTarget && goals[m]));
  }
  const figures = (f) => `${f.rps} / ${f.cpuMsPerRequest}`;
  for (const kind of ['in', 'mix']) {
    list.push([`${kindNames[kind]}: req/s / CPU ms per request, service; floor; bare`, '', (e) => at(compare, e, (c) => c[kind].sides && cell(['service', 'floor', 'bare'].map((n) => figures(c[kind].sides[n])).join('; ')))]);
  }
  return list;
}

/** Rows of [measure, target, (engine) => cell or undefined]. */
function rows(results) {
  const { compare = {}, workers = {}, scale = {}, etag = {}, live = {}, startup = [] } = results;
  const at = (o, e, f) => (o[e] ? f(o[e]) : undefined);
  const atLeast = (n) => (v) => v >= n;
  const atMost = (n) => (v) => v <= n;
  const below = (n) => (v) => v < n;
  const out = [
    ...compareRows(compare, at, atLeast, atMost),
    ['service peak RSS, MB', '< 200', (e) => at(compare, e, (c) => cell(c.peakRssMb, c.peakRssMb, below(200)))],
    ['`in`: req/s, WORKERS=2 / 1', '≥ 1.5', (e) => at(workers, e, (w) => cell(ratio(w.in.rps), w.in.rps.median, atLeast(1.5)))],
    ['mix: req/s, WORKERS=2 / 1', '≥ 1.3', (e) => at(workers, e, (w) => cell(ratio(w.mix.rps), w.mix.rps.median, atLeast(1.3)))],
    ['WORKERS=2 / 1: peak RSS of any process, MB', '< 200', (e) => at(workers, e, (w) => cell(w.peakRssMb, w.peakRssMb, below(200)))],
    ['WORKERS=2: CPU s of each process over the pairs, the primary first', '', (e) => at(workers, e, (w) => cell(w.processes.map((p) => p.cpuSeconds).join(', ')))],
    ['live, 1,000 streams: write to event p99, ms', '≤ interval + 100', (e) => at(live, e, (l) => l[1000] && cell(l[1000].writeToEventMs.p99, l[1000].writeToEventMs.p99, atMost(l.intervalMs + 100)))],
    ['live, 10,000 streams over 100 requests: executions a write', '≤ 100', (e) => at(live, e, (l) => l[10000] && cell(l[10000].rerunsPerWrite, l[10000].rerunsPerWrite, atMost(100)))],
    ['live, 10,000 streams, no writes: CPU, share of a core', '< 0.05', (e) => at(live, e, (l) => l[10000] && cell(l[10000].idleCpuShareOfACore, l[10000].idleCpuShareOfACore, below(0.05)))],
    ['live, 10,000 streams: peak RSS, MB', '< 300', (e) => at(live, e, (l) => l[10000] && cell(l[10000].peakRssMb, l[10000].peakRssMb, below(300)))],
    ['live, 10,000 streams: write to event p50 / p99, ms', '', (e) => at(live, e, (l) => l[10000] && cell(`${l[10000].writeToEventMs.p50} / ${l[10000].writeToEventMs.p99}`))],
    ['start to `/ready`, worst, ms', '< 1500', (e) => {
      const mine = startup.filter((s) => s.where.endsWith(e)).map((s) => s.readyMs);
      return mine.length ? cell(Math.max(...mine), Math.max(...mine), below(1500)) : undefined;
    }],
    ['indexed lookup p50, 1M / 10k', '≤ 1.5', (e) => at(scale, e, (s) => {
      const [small, large] = [sizes[0], sizes.at(-1)].map((z) => s[z.label]?.['indexed lookup, soggettoId']?.p50);
      const r = Math.round((large / small) * 100) / 100;
      return r >= 0 ? cell(r, r, atMost(1.5)) : undefined;
    })],
  ];
  for (const [name, , limit] of shapes(1)) {
    const limitOf = (e) => (typeof limit === 'object' ? limit[e] : limit);
    const target = limit === undefined ? '' : typeof limit === 'object' ? `≤ ${limit.mysql} / ${limit.sqlite} ms at 1M` : `≤ ${limit} ms at 1M`;
    out.push([`${name}: p50 ms, ${sizes.map((s) => s.label).join(' / ')}`, target, (e) => at(scale, e, (s) => {
      // `refused`: the service answered the shape with an error; –: not measured.
      const p50s = sizes.map((z) => s[z.label]?.[name]?.p50 ?? (s[z.label]?.[name] ? 'refused' : '–'));
      const test = limitOf(e) === undefined ? undefined : (v) => typeof v === 'number' && v <= limitOf(e);
      return p50s.every((p) => p === '–') ? undefined : cell(p50s.join(' / '), p50s.at(-1), test);
    })]);
  }
  const exported = results.export ?? {};
  out.push(
    ['export of 1M rows as CSV: rows/s', '≥ 50,000 / 100,000', (e) => at(exported, e, (x) => cell(x.rowsPerSecond, x.rowsPerSecond, atLeast(e === 'mysql' ? 50_000 : 100_000)))],
    ['export: first byte, ms', '≤ 100', (e) => at(exported, e, (x) => cell(x.firstByteMs, x.firstByteMs, atMost(100)))],
    ['export: service RSS growth, MB', '< 50', (e) => at(exported, e, (x) => cell(x.rssGrowthMb, x.rssGrowthMb, below(50)))],
  );
  for (const kind of ['in', 'page']) {
    out.push([`304: server CPU per request / the same GET answered 200, \`${kind}\``, '≤ 0.3', (e) => at(etag, e, (t) => t[kind] && cell(ratio(t[kind].cpu), t[kind].cpu.median, atMost(0.3)))]);
  }
  if (results.flood) out.push(['query p99 during a registration flood / idle', '≤ 2', (e) => (e === 'mysql' ? cell(results.flood.p99Ratio, results.flood.p99Ratio, atMost(2)) : undefined)]);
  return out;
}

/** Every figure that has a target: { measure, engine, value, target, met }. */
export function targets(results) {
  return rows(results).flatMap(([measure, target, of]) =>
    engines.map((engine) => ({ measure, engine, target, c: of(engine) })).filter((t) => t.c?.met !== undefined).map(({ c, ...t }) => ({ ...t, value: c.text.replace(' ✗', ''), met: c.met })));
}

export function printSummary(results) {
  const lines = ['| measure | MySQL | SQLite | target |', '|---|---|---|---|'];
  for (const [measure, target, of] of rows(results)) {
    const cells = engines.map((e) => of(e)?.text ?? '–');
    if (cells.some((c) => c !== '–')) lines.push(`| ${measure} | ${cells.join(' | ')} | ${target} |`);
  }
  if (results.config?.quick) console.log('\n--quick: every table a hundred times smaller than its label; the figures prove only that each phase runs.');
  console.log(`\n${lines.join('\n')}\n`);
  const all = targets(results);
  const missed = all.filter((t) => !t.met);
  console.log(`targets met: ${all.length - missed.length} of ${all.length}`);
  for (const t of missed) console.log(`  NOT MET ${t.engine}: ${t.measure}: ${t.value} (${t.target})`);
}
