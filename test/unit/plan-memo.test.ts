// The planner remembers its order, Fields and Include of a text (src/query/plan-memo.ts): the same
// text plans once per DTO and engine context, and a refused text is refused afresh each time.
import { expect } from 'chai';
import { compile } from '../../src/query/run-query.js';
import type { QueryPlan } from '../../src/query/plan-types.js';
import { cg, sr, testContext } from '../support/query-catalog.js';

const ctx = testContext();
const planOf = (request: Record<string, unknown>, dto = sr, context = ctx): QueryPlan => {
  const planned = compile(dto, request, context);
  if (!planned.ok) throw new Error(JSON.stringify(planned.error.errors));
  return planned.value;
};
const names = (plan: QueryPlan) => plan.order.map((t) => `${t.field.name}${t.desc ? ' desc' : ''}`);

describe('planner passes remembered by text', () => {
  it('plans an OrderBy text once, and answers every request of it the same order', () => {
    const first = planOf({ orderBy: 'Recapito' });
    const again = planOf({ orderBy: 'Recapito', soggettoId: 3 });
    expect(names(first)).to.deep.equal(['Recapito', 'Id']);
    expect(again.order).to.equal(first.order);
    expect(names(planOf({ orderByDesc: 'Recapito' }))).to.deep.equal(['Recapito desc', 'Id desc']);
    expect(names(planOf({ orderBy: 'Recapito', orderByDesc: 'SoggettoId' }))).to.deep.equal(['Recapito', 'SoggettoId desc', 'Id desc']);
  });

  it('plans a Fields text once, and all fields once per DTO', () => {
    const first = planOf({ fields: 'Recapito, Id' });
    expect(first.projection.map((f) => f.name)).to.deep.equal(['Recapito', 'Id']);
    expect(planOf({ fields: 'Recapito, Id', soggettoId: 3 }).projection).to.equal(first.projection);
    expect(planOf({}).projection).to.equal(planOf({ take: 5 }).projection);
    expect(planOf({}).projection.map((f) => f.name)).to.deep.equal(sr.fields.map((f) => f.name));
    expect(planOf({}, cg).projection.map((f) => f.name)).to.deep.equal(cg.fields.map((f) => f.name));
  });

  it('keeps DTOs and engine contexts apart', () => {
    expect(names(planOf({}, sr))).to.deep.equal(['Id']);
    expect(names(planOf({}, cg))).to.deep.equal(['Id']);
    expect(planOf({}, cg).order[0]!.field).to.not.equal(planOf({}, sr).order[0]!.field);
    expect(planOf({ include: 'Total' }).total).to.equal(true);
    const counting = testContext({ includeTotal: true });
    expect(planOf({}, sr, counting).total).to.equal(true);
    expect(planOf({ include: 'MAX(Id) Top' }, sr, counting).total).to.equal(true);
    expect(planOf({ include: 'MAX(Id) Top' }, sr, ctx).total).to.equal(false);
  });

  it('refuses a bad text afresh each time, naming the field', () => {
    for (const request of [{ orderBy: 'Nope' }, { include: 'MAX(Nope)' }, { fields: 'Id,Nope' }]) {
      const a = compile(sr, request, ctx);
      const b = compile(sr, request, ctx);
      expect(a.ok || b.ok).to.equal(false);
      if (a.ok || b.ok) return;
      expect(a.error).to.not.equal(b.error);
      expect(a.error.errors.map((e) => e.fieldName)).to.deep.equal(b.error.errors.map((e) => e.fieldName));
      expect(a.error.errors[0]!.fieldName).to.match(/^(OrderBy|Include|Fields)$/);
    }
  });

  it('hands out plans no request can change', () => {
    const plan = planOf({ orderBy: 'Recapito', include: 'Total, MAX(Id) Top' });
    expect(Object.isFrozen(plan.order)).to.equal(true);
    expect(Object.isFrozen(plan.aggregates)).to.equal(true);
    expect(Object.isFrozen(plan.projection)).to.equal(true);
    expect(Object.isFrozen(planOf({ fields: 'Id' }).projection)).to.equal(true);
    expect(Object.isFrozen(planOf({}).aggregates)).to.equal(true);
    expect(() => (plan.order as unknown as unknown[]).push(1)).to.throw(TypeError);
  });
});
