// Where the load and fault tests write what they measured: test-output/reliability.json
// (one section per test, rewritten as each finishes) and a Markdown summary for the
// README at /tmp/readme-reliability.md. A new run starts both afresh.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const jsonFile = path.resolve('test-output/reliability.json');
const mdFile = '/tmp/readme-reliability.md';
const run = new Date(Math.round(performance.timeOrigin)).toISOString();

type Figures = Record<string, string | number | boolean>;

export function record(section: string, title: string, figures: Figures): void {
  const all = recordIn(jsonFile, section, title, figures);
  fs.writeFileSync(mdFile, markdown(all.sections, all.machine as Record<string, unknown>));
}

/** Adds one section to the figures of this run in `file` (a JSON file under test-output). */
export function recordIn(file: string, section: string, title: string, figures: Figures): { sections: Record<string, { title: string; figures: Figures }>; machine: unknown } {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  let all: { run?: string; machine?: unknown; sections?: Record<string, { title: string; figures: Figures }> } = {};
  try {
    all = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof all;
  } catch { /* first section of the first run */ }
  if (all.run !== run) all = { run, sections: {} };
  all.machine = { cpus: os.cpus().length, model: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version, loadAverage1m: Number(os.loadavg()[0]!.toFixed(2)) };
  const sections = { ...all.sections, [section]: { title, figures } };
  fs.writeFileSync(file, JSON.stringify({ ...all, sections }, null, 2) + '\n');
  return { sections, machine: all.machine };
}

function markdown(sections: Record<string, { title: string; figures: Figures }>, machine: Record<string, unknown>): string {
  const lines = [
    '## Robustness and reliability',
    '',
    '`make test` fuzzes every operation from `generated/openapi-routes.json` (test/fuzz: 10,000 malformed',
    'requests, 5,000 per engine, and 20,000 per engine in `make test-reliability`, each answered 4xx with a well-formed `responseStatus`, tables checksummed before and',
    'after) and attacks tokens and sessions (test/security). `make test-reliability` (also run by `.ci/run`)',
    'starts the built service on a private MariaDB that it stops, restarts and locks itself, and measures:',
    '',
    `Machine: ${machine['cpus']} CPUs (${machine['model']}), Node ${machine['node']}, load average ${machine['loadAverage1m']} at the end. Raw numbers: \`test-output/reliability.json\`.`,
    '',
    ...fuzzFigures(),
  ];
  for (const { title, figures } of Object.values(sections)) {
    lines.push(`### ${title}`, '', '| Figure | Value |', '|---|---|');
    for (const [k, v] of Object.entries(figures)) lines.push(`| ${k} | ${v} |`);
    lines.push('');
  }
  return lines.join('\n');
}

/** The last `make test` fuzz tallies (test-output/fuzz-<dialect>.json), when present. */
function fuzzFigures(): string[] {
  const rows = ['sqlite', 'mysql'].flatMap((dialect) => {
    try {
      const f = JSON.parse(fs.readFileSync(path.resolve(`test-output/fuzz-${dialect}.json`), 'utf8')) as { requests: number; seconds: number; byStatus: Record<string, number>; byKind: Record<string, number> };
      const statuses = Object.entries(f.byStatus).map(([k, v]) => `${k}: ${v}`).join(', ');
      return [`| ${dialect} | ${f.requests} | ${Object.keys(f.byKind).length} | ${statuses} | ${f.seconds.toFixed(1)} |`];
    } catch {
      return [];
    }
  });
  if (rows.length === 0) return [];
  return ['### Fuzzing (last `make test`)', '', '| Engine | Malformed requests | Kinds | Answers by status | Seconds |', '|---|---|---|---|---|', ...rows, ''];
}

export const percentile = (values: readonly number[], p: number): number => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

export const round = (n: number, digits = 1): number => Number(n.toFixed(digits));
