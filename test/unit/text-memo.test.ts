// The memo behind the edge's header reads and the planner's texts (src/text-memo.ts): one read per distinct
// text while it is kept, at most `limit` texts kept, the oldest forgotten first.
import { expect } from 'chai';
import { memoByText } from '../../src/text-memo.js';

describe('memoByText', () => {
  it('reads a text once while it is kept, and gives the same answer', () => {
    const reads: string[] = [];
    const memo = memoByText(2, (t) => (reads.push(t), t.length));
    expect([memo('ab'), memo('ab'), memo('abc'), memo('ab')]).to.deep.equal([2, 2, 3, 2]);
    expect(reads).to.deep.equal(['ab', 'abc']);
  });

  it('keeps at most `limit` texts: past it the oldest is read again', () => {
    const reads: string[] = [];
    const memo = memoByText(2, (t) => (reads.push(t), t.toUpperCase()));
    for (const t of ['a', 'b', 'c', 'b', 'a']) memo(t);
    // 'c' pushed 'a' out; 'b' was still kept; 'a' is read again.
    expect(reads).to.deep.equal(['a', 'b', 'c', 'a']);
  });

  it('keeps nothing of a read that throws: the next request reads again', () => {
    let calls = 0;
    const memo = memoByText(4, (t) => {
      calls += 1;
      if (t === 'bad') throw new Error('refused');
      return t;
    });
    expect(() => memo('bad')).to.throw('refused');
    expect(() => memo('bad')).to.throw('refused');
    expect(calls).to.equal(2);
  });

  it('keeps only the values `keep` accepts: the others are read again each time', () => {
    const reads: string[] = [];
    const memo = memoByText(4, (t) => (reads.push(t), t.length), (n) => n > 1);
    for (const t of ['a', 'a', 'bb', 'bb']) memo(t);
    expect(reads).to.deep.equal(['a', 'a', 'bb']);
  });
});
