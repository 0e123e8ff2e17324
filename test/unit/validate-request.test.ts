// The contract's check (design.md §3): openapi-backend's validators, compiled from the
// contract, check the DTO laid out as the contract declares it (path, query, body), and
// every broken rule comes back as a field error under the spec's PascalCase name, worded as
// the contract's x-error-messages say.
import { expect } from 'chai';
import { contractOf, loadContract, type Contract } from '../../src/http/contract.js';
import { requestValidators } from '../../src/http/validate-request.js';

async function validatorFor(contract: Contract, operationId: string) {
  return requestValidators(contract.api, contract).get(operationId)!;
}

const fieldErrors = (errors: readonly { fieldName: string; errorCode: string }[]) => errors.map((e) => [e.fieldName, e.errorCode]);

describe('request validation by openapi-backend', () => {
  let contract: Contract;
  before(async () => { contract = await loadContract(); });

  it('lists every broken rule of a body, under the spec\'s names, and passes a good DTO as it is', async () => {
    const validate = await validatorFor(contract, 'Authenticate');
    expect(fieldErrors(validate({ provider: 'other', userName: 'u'.repeat(255), password: 'p' }))).to.deep.equal([['Provider', 'InvalidValue'], ['UserName', 'Length']]);
    const good = { provider: 'credentials', userName: 'mario', password: 'secret' };
    expect(validate(good)).to.deep.equal([]);
  });

  it('checks a path parameter under its contract name, and the same property in the query of the predefined route', async () => {
    for (const id of ['GetImpiantoFilesRequest', 'GetImpiantoFilesRequestReply']) {
      const validate = await validatorFor(contract, id);
      expect(fieldErrors(validate({ impiantoId: 0 })), id).to.deep.equal([['ImpiantoId', 'InvalidValue']]);
      expect(validate({ impiantoId: 5 }), id).to.deep.equal([]);
    }
  });

  it('follows an edit of the contract: a rule added to the spec is enforced with no code changed', async () => {
    const document = structuredClone(contract.document) as { components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> } };
    document.components.schemas['Authenticate']!.properties['userName']!['maxLength'] = 5;
    const validate = await validatorFor(await contractOf(document), 'Authenticate');
    expect(fieldErrors(validate({ userName: 'mario' }))).to.deep.equal([]);
    expect(fieldErrors(validate({ userName: 'mario1' }))).to.deep.equal([['UserName', 'Length']]);
  });

  it('checks Register and the queries too, worded as the handlers word their own rules', async () => {
    const register = await validatorFor(contract, 'Register');
    expect(register({ userName: 'mario', password: 'p', confirmPassword: 'c'.repeat(257) }).map((e) => [e.fieldName, e.errorCode, e.message])).to.deep.equal([
      ['Password', 'Length', "'Password' must be between 8 and 256 characters."],
      ['ConfirmPassword', 'Length', "'ConfirmPassword' must be 256 characters or fewer."],
    ]);
    expect(register({ userName: 'mario' }).map((e) => [e.fieldName, e.errorCode, e.message])).to.deep.equal([['Password', 'NotEmpty', "'Password' must not be empty."]]);
    const query = await validatorFor(contract, 'CaratteristicaGruppoQueryGet');
    expect(query({ idIn: Array.from({ length: 1001 }, () => 1), descrizioneBetween: ['a'], take: -1, orderBy: 'x'.repeat(1001), meta: { k: 'v'.repeat(1025) } }).map((e) => [e.fieldName, e.errorCode, e.message])).to.deep.equal([
      ['IdIn', 'TooMany', "'IdIn' takes at most 1000 values, got 1001"],
      ['DescrizioneBetween', 'InvalidValue', "'DescrizioneBetween' takes exactly 2 values, got 1"],
      ['Take', 'InvalidValue', "'Take' must be 0 or more"],
      ['OrderBy', 'Length', "'OrderBy' must be at most 1000 characters"],
      ['Meta', 'Length', "'Meta' values must be at most 1024 characters"],
    ]);
  });

  it('reports an integer outside int32 as a type mismatch', async () => {
    const query = await validatorFor(contract, 'CaratteristicaGruppoQuery');
    expect(fieldErrors(query({ ordineVista: 2147483648, take: 2147483648 }))).to.deep.equal([['OrdineVista', 'InvalidType'], ['Take', 'InvalidType']]);
  });
});
