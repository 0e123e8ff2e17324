// estimateOf (design.md §7): which statements an EstimatedTotal runs, and what it answers.
// Where the filter is one range of an index, EXPLAIN alone settles a figure far past the
// limit; where no index range serves it, a random sample of keys may; anything nearer the
// limit, or a plan that reads another index, is counted.
import { expect } from 'chai';
import type { Table } from '../../src/db/reads/select.js';
import { estimateOf, provingMatches, sampleSize } from '../../src/query/estimate.js';
import type { EngineEstimate, EstimateParts, SampleParts, SelectParts } from '../../src/query/select-parts.js';

const keys = { table: 'soggetto_recapito', columns: ['id'] } as unknown as SelectParts;
const capped = { table: 'soggetto_recapito', form: 'countUpTo' } as unknown as SelectParts;
const limit = 100;

interface Answers {
  counted: number;
  rows?: number;
  key?: string;
  stat?: string;
  /** The table's smallest and largest id, and how many of the sampled keys match. */
  ends?: [number, number];
  matches?: number;
}

/** Runs estimateOf against canned answers, recording the statements in the order asked and the keys sampled. */
async function estimate(engine: EngineEstimate | undefined, answers: Answers) {
  const ran: string[] = [];
  const sampled: number[][] = [];
  const sampleRun = { table: 'soggetto_recapito', form: 'plain' } as unknown as SelectParts;
  const lowest = { ...sampleRun, columns: ['id'] } as SelectParts;
  const highest = { ...sampleRun, columns: ['id'] } as SelectParts;
  const sample: SampleParts = {
    key: 'id',
    lowest,
    highest,
    matching: (keys) => {
      sampled.push([...keys]);
      return sampleRun;
    },
  };
  const run = async (parts: SelectParts): Promise<Table> => {
    if (parts === capped) {
      ran.push('count');
      return { columns: ['n'], keys: [0], rows: [[answers.counted]] };
    }
    if (parts === lowest || parts === highest) {
      ran.push('ends');
      return { columns: ['id'], keys: [0], rows: answers.ends ? [[answers.ends[parts === lowest ? 0 : 1]]] : [] };
    }
    if (parts === sampleRun) {
      ran.push('sample');
      return { columns: ['n'], keys: [0], rows: [[answers.matches]] };
    }
    ran.push('stat');
    return { columns: ['stat'], keys: [0], rows: [[answers.stat]] };
  };
  const explain = async (): Promise<Table> => {
    ran.push('explain');
    return { columns: ['id', 'key', 'rows'], keys: [0, 1, 2], rows: [[1, answers.key ?? null, answers.rows]] };
  };
  const parts: EstimateParts = { capped, engine, sample: answers.ends === undefined ? undefined : sample };
  const answer = await estimateOf(parts, run, explain, limit);
  return answers.ends === undefined ? { answer, ran } : { answer, ran, sampled };
}

/** ln P(X >= a) for X ~ Binomial(n, p), summed in log space. */
function binomialTailLog(n: number, p: number, a: number): number {
  let logTerm = 0;
  for (let k = 1; k <= a; k++) logTerm += Math.log((n - k + 1) / k) + Math.log(p) - Math.log(1 - p);
  logTerm += n * Math.log(1 - p);
  let sum = 0;
  let term = logTerm;
  for (let k = a; k <= n; k++) {
    sum += Math.exp(term - logTerm);
    term += Math.log((n - k) / (k + 1)) + Math.log(p) - Math.log(1 - p);
  }
  return logTerm + Math.log(sum);
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
    const byStat: EngineEstimate = { kind: 'stat', query: keys, figure: 0, times: 1 };
    const stat = await estimate(byStat, { counted: 101, stat: '5000 40' });
    expect(stat.answer).to.deep.equal({ estimatedTotal: 5000, estimatedTotalKind: 'estimate' });
    expect([...stat.ran].sort()).to.deep.equal(['count', 'stat']);
    // Statistics that claim far more than the filter holds: the count decides.
    const stale = await estimate(byStat, { counted: 37, stat: '5000 40' });
    expect(stale).to.deep.equal({ answer: { estimatedTotal: 37, estimatedTotalKind: 'exact' }, ran: ['count', 'stat'] });
    const none = await estimate(undefined, { counted: 101 });
    expect(none).to.deep.equal({ answer: { estimatedTotal: 101, estimatedTotalKind: 'atLeast' }, ran: ['count'] });
  });

  describe('a random sample of keys, where no index range serves the filter', () => {
    const notDived: EngineEstimate = { kind: 'explain', query: keys, dived: undefined };

    it('settles a filter proven far past the limit with the sample alone: no count', async () => {
      const r = await estimate(undefined, { counted: 101, ends: [1, 1_000_000], matches: 100 });
      expect(r.answer).to.deep.equal({ estimatedTotal: Math.round((100 * 1_000_000) / sampleSize), estimatedTotalKind: 'estimate' });
      expect(r.ran).to.deep.equal(['ends', 'ends', 'sample']);
      const [drawn] = r.sampled ?? [];
      expect(drawn).to.have.length(sampleSize);
      expect(new Set(drawn).size, 'distinct keys').to.equal(sampleSize);
      expect(drawn).to.deep.equal([...drawn!].sort((a, b) => a - b));
      expect(Math.min(...drawn!)).to.be.at.least(1);
      expect(Math.max(...drawn!)).to.be.at.most(1_000_000);
    });

    it('counts when the sample proves too little, and is then exact below the limit', async () => {
      const few = await estimate(undefined, { counted: 40, ends: [1, 1_000_000], matches: 3 });
      expect(few.answer).to.deep.equal({ estimatedTotal: 40, estimatedTotalKind: 'exact' });
      expect(few.ran).to.deep.equal(['ends', 'ends', 'sample', 'count']);
      const past = await estimate(undefined, { counted: 101, ends: [1, 1_000_000], matches: 3 });
      expect(past.answer).to.deep.equal({ estimatedTotal: 101, estimatedTotalKind: 'atLeast' });
    });

    it('counts at once a key range within four times the limit or the sample, and an empty table', async () => {
      const small = await estimate(undefined, { counted: 101, ends: [1, 4 * sampleSize], matches: sampleSize });
      expect(small.ran).to.deep.equal(['ends', 'ends', 'count']);
      const empty = await estimate(undefined, { counted: 0, ends: [Number.NaN, Number.NaN], matches: 0 });
      expect(empty).to.deep.include({ answer: { estimatedTotal: 0, estimatedTotalKind: 'exact' } });
      expect(empty.ran).to.deep.equal(['ends', 'ends', 'count']);
    });

    it('on MySQL samples only when the plan may read more than four times the limit', async () => {
      const wide = await estimate(notDived, { counted: 101, rows: 1_000_000, ends: [1, 1_000_000], matches: 100 });
      expect(wide.answer.estimatedTotalKind).to.equal('estimate');
      expect(wide.ran).to.have.members(['ends', 'ends', 'explain', 'sample']);
      expect(wide.ran).not.to.include('count');
      const narrow = await estimate(notDived, { counted: 30, rows: 300, ends: [1, 1_000_000], matches: 100 });
      expect(narrow.answer).to.deep.equal({ estimatedTotal: 30, estimatedTotalKind: 'exact' });
      expect(narrow.ran).not.to.include('sample');
      expect(narrow.ran).to.include('count');
    });

    it('asks for a number of matches that a filter within the limit reaches with a chance below one in a billion', () => {
      for (const [limit, range] of [[10_000, 1_000_000], [10_000, 50_000], [100, 1_000_000], [15, 5_000], [10_000, 2_000_000_000]] as const) {
        const a = provingMatches(limit, range, sampleSize);
        expect(binomialTailLog(sampleSize, limit / range, a), `${limit} of ${range}`).to.be.at.most(Math.log(1e-9));
        // Not so many that a filter matching ten times the limit rarely proves it (where the bound is not loose by nature: a mean of 1 or more).
        const mean = (limit * sampleSize) / range;
        if (mean >= 1 && (10 * limit) / range < 0.5) expect(a, `${limit} of ${range}`).to.be.below((10 * limit * sampleSize) / range);
      }
      expect(provingMatches(0, 1_000_000, sampleSize)).to.equal(1);
    });
  });
});
