// The rule stage (design.md §3): openapi-backend's validators, compiled from the contract,
// check the DTO laid out as the contract declares it (path, query, body), and every broken
// rule comes back as a field error under the spec's PascalCase name.
import { expect } from 'chai';
import { contractOf, loadContract, type Contract } from '../../src/http/contract.js';
import { requestValidator } from '../../src/http/validate-request.js';

async function validatorFor(contract: Contract, operationId: string) {
  return requestValidator(contract.api, contract.operations.get(operationId)!);
}

const fieldErrors = (r: { ok: boolean; error?: unknown }) =>
  r.ok ? [] : (r.error as { errors: { fieldName: string; errorCode: string }[] }).errors.map((e) => [e.fieldName, e.errorCode]);

describe('request validation by openapi-backend', () => {
  let contract: Contract;
  before(async () => { contract = await loadContract(); });

  it('lists every broken rule of a body, under the spec\'s names, and passes a good DTO as it is', async () => {
    const validate = await validatorFor(contract, 'Authenticate');
    expect(fieldErrors(validate({ provider: 'other', userName: 'u'.repeat(255), password: 'p' }))).to.deep.equal([['Provider', 'InvalidValue'], ['UserName', 'Length']]);
    const good = { provider: 'credentials', userName: 'mario', password: 'secret' };
    expect(validate(good)).to.deep.equal({ ok: true, value: good });
  });

  it('checks a path parameter under its contract name, and the same property in the query of the predefined route', async () => {
    for (const id of ['GetImpiantoFilesRequest', 'GetImpiantoFilesRequestReply']) {
      const validate = await validatorFor(contract, id);
      expect(fieldErrors(validate({ impiantoId: 0 })), id).to.deep.equal([['ImpiantoId', 'InvalidValue']]);
      expect(validate({ impiantoId: 5 }).ok, id).to.equal(true);
    }
  });

  it('follows an edit of the contract: a rule added to the spec is enforced with no code changed', async () => {
    const document = structuredClone(contract.document) as { components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> } };
    document.components.schemas['Authenticate']!.properties['userName']!['maxLength'] = 5;
    const validate = await validatorFor(await contractOf(document), 'Authenticate');
    expect(fieldErrors(validate({ userName: 'mario' }))).to.deep.equal([]);
    expect(fieldErrors(validate({ userName: 'mario1' }))).to.deep.equal([['UserName', 'Length']]);
  });
});
