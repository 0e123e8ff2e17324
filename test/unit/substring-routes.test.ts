// The grams a term is looked up by (src/query/substring-routes.ts): each distinct trigram at its
// first offset, in code points as both engines count characters, at most eight spread over it.
import { expect } from 'chai';
import { gramsOf } from '../../src/query/substring-routes.js';

describe('substring routes: the grams of a term', () => {
  it('gives each distinct trigram once, at its first offset', () => {
    expect(gramsOf('rossi')).to.deep.equal([{ gram: 'ros', offset: 0 }, { gram: 'oss', offset: 1 }, { gram: 'ssi', offset: 2 }]);
    expect(gramsOf('aaaa')).to.deep.equal([{ gram: 'aaa', offset: 0 }]);
  });

  it('counts characters, not UTF-16 units', () => {
    expect(gramsOf('😀ab😀')).to.deep.equal([{ gram: '😀ab', offset: 0 }, { gram: 'ab😀', offset: 1 }]);
  });

  it('gives none under three characters', () => {
    expect(gramsOf('ab')).to.deep.equal([]);
  });

  it('keeps at most eight of a long term, the first and the last among them', () => {
    const grams = gramsOf('abcdefghijklmnopqrstuvwxyz');
    expect(grams).to.have.length(8);
    expect(grams[0]).to.deep.equal({ gram: 'abc', offset: 0 });
    expect(grams.at(-1)).to.deep.equal({ gram: 'xyz', offset: 23 });
  });
});
