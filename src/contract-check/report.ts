// The contract suite's summary for people: one line per case, the reasons under each
// failure or skip, the operations left uncovered, and the totals.
import type { SuiteReport } from './suite-types.js';

const label = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' } as const;

export function formatReport(report: SuiteReport): string {
  const lines = [`Contract check of ${report.baseUrl}`, ''];
  for (const r of report.results) {
    lines.push(`${label[r.outcome]}  ${r.name}  (${r.ms} ms)`);
    for (const note of r.notes) lines.push(`        ${note}`);
  }
  lines.push('');
  if (report.uncovered.length > 0) lines.push(`UNCOVERED operations (need a positive and a negative case): ${report.uncovered.join(', ')}`);
  lines.push(
    `${report.results.length} cases: ${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped; ` +
      `${report.violations} contract violation${report.violations === 1 ? '' : 's'}`,
  );
  lines.push(report.ok ? 'RESULT: the deployment conforms to the contract' : 'RESULT: the deployment does NOT conform to the contract');
  return `${lines.join('\n')}\n`;
}
