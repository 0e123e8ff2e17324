// The ResponseStatus envelope every failure answers with (design.md §3), checked whole.
import { expect } from 'chai';
import type { TestResponse } from './server.js';

export function expectError(r: TestResponse, status: number, errorCode: string, fieldName?: string): void {
  expect(r.status, r.text).to.equal(status);
  expect(r.headers.get('content-type')).to.equal('application/json; charset=utf-8');
  expect(r.body.responseStatus.errorCode).to.equal(errorCode);
  expect(r.body.responseStatus.message).to.be.a('string').and.not.equal('');
  expect(r.body.responseStatus.errors).to.be.an('array');
  expect(r.body.responseStatus).not.to.have.property('stackTrace');
  if (fieldName !== undefined) expect(r.body.responseStatus.errors.map((e: { fieldName: string }) => e.fieldName)).to.include(fieldName);
}
