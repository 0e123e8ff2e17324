import { expect } from 'chai';
import { ApiError } from '../../src/errors/api-error.js';
import { asApiError } from '../../src/http/respond.js';

// http-errors as express's sendFile raises them (status plus `expose: true`).
const httpError = (status: number) => Object.assign(new Error('from express'), { status, expose: true });

describe('asApiError', () => {
  it('keeps an ApiError as it is', () => {
    const e = ApiError.of('Forbidden', 'no');
    expect(asApiError(e)).to.equal(e);
  });

  it('maps a client error raised by express: 404 to NotFound, any other to SerializationException', () => {
    expect([asApiError(httpError(404)).status, asApiError(httpError(404)).code]).to.deep.equal([404, 'NotFound']);
    expect([asApiError(httpError(400)).status, asApiError(httpError(400)).code]).to.deep.equal([400, 'SerializationException']);
    expect([asApiError(httpError(416)).status, asApiError(httpError(416)).code]).to.deep.equal([400, 'SerializationException']);
  });

  it('does not trust a status that is not marked for exposure, nor a 5xx: a generic 500', () => {
    for (const err of [Object.assign(new Error('x'), { status: 404 }), Object.assign(new Error('x'), { status: 502, expose: true }), new Error('bug')]) {
      const e = asApiError(err);
      expect([e.status, e.code]).to.deep.equal([500, 'InternalServerError']);
      expect(e.message).not.to.include('bug');
    }
  });
});
