// estimateOf (design.md §7): which statements an EstimatedTotal runs, and what it answers.
// Where the filter is one range of an index, EXPLAIN alone settles a figure far past the
// limit; anything nearer the limit, or a plan that reads another index, is counted.
import { expect } from 'chai';
import type { Table } from '../../src/db/select.js';
import { estimateOf } from '../../src/query/estimate.js';
import type { EngineEstimate, EstimateParts, SelectParts } from '../../src/query/select-parts.js';

const keys = { table: 'soggetto_recapito', columns: ['id'] } as unknown as SelectParts;
const capped = { table: 'soggetto_recapito', form: 'countUpTo' } as unknown as SelectParts;
const limit = 100;

/** Runs estimateOf against canned answers, recording the statements in the order asked. */
async function estimate(engine: EngineEstimate | undefined, answers: { counted: number; rows?: number; key?: string; stat?: string }) {
  const ran: string[] = [];
  const run = async (parts: SelectParts): Promise<Table> => {
    if (parts === capped) {
      ran.push('count');
      return { columns: ['n'], rows: [[answers.counted]] };
    }
    ran.push('stat');
    return { columns: ['stat'], rows: [[answers.stat]] };
  };
  const explain = async (): Promise<Table> => {
    ran.push('explain');
    return { columns: ['id', 'key', 'rows'], rows: [[1, answers.key ?? null, answers.rows]] };
  };
  const parts: EstimateParts = { capped, engine };
  return { answer: await estimateOf(parts, run, explain, limit), ran };
}

const dived = (index?: string): EngineEstimate => ({ kind: 'explain', query: keys, dived: index === undefined ? {} : { index } });

describe('query estimate: the statements behind Include=EstimatedTotal', () => {
  it('settles from EXPLAIN alone when one index range is estimated far past the limit', async () => {
    const whole = await estimate(dived(), { counted: 101, rows: 1_000_000, key: 'ix_a' });
    expect(whole).to.deep.equal({ answer: { estimatedTotal: 1_000_000, estimatedTotalKind: 'estimate' }, ran: ['explain'] });
    const range = await estimate(dived('ix_soggetto_recapito_soggetto_id'), { counted: 101, rows: 401, key: 'ix_soggetto_recapito_soggetto_id' });
    expect(range).to.deep.equal({ answer: { estimatedTotal: 401, estimatedTotalKind: 'estimate' }, ran: ['explain'] });
  });

  it('counts when the estimate is within four times the limit, and is exact when the count is within it', async () => {
    const near = await estimate(dived('ix_x'), { counted: 37, rows: 400, key: 'ix_x' });
    expect(near).to.deep.equal({ answer: { estimatedTotal: 37, estimatedTotalKind: 'exact' }, ran: ['explain', 'count'] });
    const past = await estimate(dived('ix_x'), { counted: 101, rows: 90, key: 'ix_x' });
    expect(past).to.deep.equal({ answer: { estimatedTotal: 101, estimatedTotalKind: 'estimate' }, ran: ['explain', 'count'] });
  });

  it('counts when the plan reads another index than the filter\'s, or the filter is no single range', async () => {
    const other = await estimate(dived('ix_x'), { counted: 12, rows: 1_000_000, key: 'PRIMARY' });
    expect(other).to.deep.equal({ answer: { estimatedTotal: 12, estimatedTotalKind: 'exact' }, ran: ['explain', 'count'] });
    const pattern = await estimate({ kind: 'explain', query: keys, dived: undefined }, { counted: 5, rows: 1_000_000 });
    expect(pattern.answer).to.deep.equal({ estimatedTotal: 5, estimatedTotalKind: 'exact' });
    expect([...pattern.ran].sort()).to.deep.equal(['count', 'explain']);
  });

  it('on ANALYZE statistics or none, always counts: a lower bound where the engine has no figure', async () => {
    const stat = await estimate({ kind: 'stat', query: keys, figure: 0, times: 1 }, { counted: 101, stat: '5000 40' });
    expect(stat.answer).to.deep.equal({ estimatedTotal: 5000, estimatedTotalKind: 'estimate' });
    const none = await estimate(undefined, { counted: 101 });
    expect(none).to.deep.equal({ answer: { estimatedTotal: 101, estimatedTotalKind: 'atLeast' }, ran: ['count'] });
  });
});
