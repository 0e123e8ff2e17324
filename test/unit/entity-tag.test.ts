// If-None-Match against a tag (RFC 9110 §13.1.2, design.md §7 "Entity tags"), and the planned
// query's key: one key however the request was written, another wherever the answer differs.
import { expect } from 'chai';
import { ApiError } from '../../src/errors/api-error.js';
import { entityTag, ifNoneMatchMaxLength, noneMatch } from '../../src/http/entity-tag.js';
import { planKey } from '../../src/query/plan-key.js';
import { compile } from '../../src/query/run-query.js';
import { sr, testContext } from '../support/query-catalog.js';

const tag = entityTag(['a', 'b']);

describe('If-None-Match', () => {
  const cases: Array<[string, { given: string | undefined; want: 'tag' | 'any' | undefined }]> = [
    ['no header', { given: undefined, want: undefined }],
    ['the tag itself', { given: tag, want: 'tag' }],
    ['the tag, weak', { given: `W/${tag}`, want: 'tag' }],
    ['the tag in a list', { given: `"x", ${tag}, W/"y"`, want: 'tag' }],
    ['a list without spaces', { given: `"x",${tag}`, want: 'tag' }],
    ['*', { given: '*', want: 'any' }],
    ['* in a list, and no match', { given: '"x", *', want: 'any' }],
    ['another tag', { given: '"x"', want: undefined }],
    ['the digest without quotes', { given: tag.slice(1, -1), want: undefined }],
    ['a malformed member before the tag', { given: `x"y, ${tag}`, want: 'tag' }],
    ['a malformed member alone', { given: 'W/', want: undefined }],
    ['an empty header', { given: '', want: undefined }],
    ['the tag with a lower-case w/ (no weak prefix)', { given: `w/${tag}`, want: undefined }],
  ];
  for (const [name, { given, want }] of cases) it(name, () => expect(noneMatch(given, tag)).to.equal(want));

  it('compares a weak tag it gave weakly too', () => {
    const weak = entityTag(['a', 'b'], true);
    expect(weak).to.equal(`W/${tag}`);
    expect([noneMatch(tag, weak), noneMatch(weak, weak)]).to.deep.equal(['tag', 'tag']);
  });

  it(`refuses a header over ${ifNoneMatchMaxLength} characters with 400 naming it`, () => {
    expect(noneMatch(`${tag},`.repeat(90).slice(0, ifNoneMatchMaxLength), tag)).to.equal('tag');
    const err = (() => { try { return noneMatch(`"${'a'.repeat(ifNoneMatchMaxLength)}"`, tag); } catch (e) { return e; } })();
    expect(err).to.be.instanceOf(ApiError).and.to.include({ status: 400, code: 'Length' });
    expect((err as ApiError).errors[0]!.fieldName).to.equal('If-None-Match');
  });
});

describe('planned query key', () => {
  const key = (dto: Record<string, unknown>) => {
    const planned = compile(sr, dto, testContext());
    if (!planned.ok) throw planned.error;
    return planKey(planned.value);
  };

  it('is one for requests that differ only in how they were written', () => {
    const one = key({ soggettoIdIn: [2, 1], recapitoStartsWith: 'a', orderBy: 'Recapito', take: 5000 });
    expect(key({ recapitoStartsWith: 'a', soggettoIdIn: [1, 2, 2], orderBy: 'recapito', take: 1000 })).to.equal(one);
    expect(key({ take: 1000, orderBy: 'Recapito,Id', soggettoIdIn: [1, 2], recapitoStartsWith: 'a' })).to.equal(one);
  });

  it('differs wherever the answer may', () => {
    const keys = [
      {}, { soggettoId: 1 }, { soggettoIdIn: [1] }, { soggettoIdBetween: [1, 2] }, { soggettoIdBetween: [2, 1] },
      { orderBy: 'Recapito' }, { orderByDesc: 'Recapito' }, { skip: 1 }, { take: 1 }, { fields: 'Id' }, { fields: 'Id,Recapito' },
      { fields: 'Recapito,Id' }, { include: 'Total' }, { include: 'EstimatedTotal' }, { include: 'MAX(Id)' }, { include: 'MAX(Id) Massimo' },
    ].map(key);
    expect(new Set(keys).size).to.equal(keys.length);
  });
});
