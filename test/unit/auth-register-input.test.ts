// Every Register rule of design.md §5, its error code and field, table-driven; and that
// all broken rules are reported at once: the contract's, checked by openapi-backend's
// validators as the edge runs them, and the handler's own, in one list.
import { expect } from 'chai';
import { emailError, passwordError, userNameError } from '../../src/auth/account-rules.js';
import { registerInput } from '../../src/auth/register-input.js';
import { loadContract } from '../../src/http/contract.js';
import type { RequestDto } from '../../src/http/operation.js';
import { requestValidators } from '../../src/http/validate-request.js';

const contract = await loadContract();
const validate = requestValidators(contract.api, contract).get('Register')!;
/** What the Register handler decides on a DTO the edge built: the contract's errors, then its rules. */
const check = (dto: RequestDto<'Register'>) => registerInput(dto, validate(dto));

const valid = { userName: 'mario.rossi', password: 'correct-horse' };
type Case = [string, RequestDto<'Register'>, Array<[code: string, field: string]>];

const cases: Case[] = [
  ['neither user name nor e-mail', { password: 'correct-horse' }, [['NotEmpty', 'UserName']]],
  ['empty user name and e-mail', { userName: '', email: '', password: 'correct-horse' }, [['NotEmpty', 'UserName']]],
  ['user name too short', { ...valid, userName: 'ab' }, [['InvalidUserName', 'UserName']]],
  ['user name too long', { ...valid, userName: 'a'.repeat(37) }, [['InvalidUserName', 'UserName']]],
  ['user name with two separators', { ...valid, userName: 'mario..rossi' }, [['InvalidUserName', 'UserName']]],
  ['user name starting with a separator', { ...valid, userName: '.mario' }, [['InvalidUserName', 'UserName']]],
  ['user name with a space', { ...valid, userName: 'mario rossi' }, [['InvalidUserName', 'UserName']]],
  ['user name with an @', { ...valid, userName: 'mario@rossi' }, [['InvalidUserName', 'UserName']]],
  ['user name with an accent', { ...valid, userName: 'niccolò' }, [['InvalidUserName', 'UserName']]],
  ['e-mail without @', { ...valid, email: 'mario.example.com' }, [['Email', 'Email']]],
  ['e-mail without domain', { ...valid, email: 'mario@' }, [['Email', 'Email']]],
  ['e-mail over 254 characters', { ...valid, email: `m@${'a'.repeat(62)}.${'b'.repeat(62)}.${'c'.repeat(62)}.${'d'.repeat(62)}.it` }, [['Email', 'Email']]],
  ['password missing', { userName: 'mario' }, [['NotEmpty', 'Password']]],
  ['password empty', { userName: 'mario', password: '' }, [['NotEmpty', 'Password']]],
  ['password of 7', { userName: 'mario', password: '1234567' }, [['Length', 'Password']]],
  ['password of 257', { userName: 'mario', password: 'p'.repeat(257) }, [['Length', 'Password']]],
  ['password of 7 code points in 14 UTF-16 units', { userName: 'mario', password: '😀'.repeat(7) }, [['Length', 'Password']]],
  ['confirm password differs', { ...valid, confirmPassword: 'correct-horsE' }, [['PasswordsShouldMatch', 'ConfirmPassword']]],
  ['first name over 100', { ...valid, firstName: 'x'.repeat(101) }, [['Length', 'FirstName']]],
  ['last name over 100', { ...valid, lastName: 'x'.repeat(101) }, [['Length', 'LastName']]],
  ['display name over 100', { ...valid, displayName: 'x'.repeat(101) }, [['Length', 'DisplayName']]],
  ['meta with 21 entries', { ...valid, meta: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }, [['TooMany', 'Meta']]],
  ['meta key over 64', { ...valid, meta: { ['k'.repeat(65)]: 'v' } }, [['Length', 'Meta']]],
  ['meta value over 1024', { ...valid, meta: { k: 'v'.repeat(1025) } }, [['Length', 'Meta']]],
  ['continue absolute URL', { ...valid, continue: 'https://evil.example/' }, [['InvalidValue', 'Continue']]],
  ['continue protocol-relative', { ...valid, continue: '//evil.example/' }, [['InvalidValue', 'Continue']]],
  ['continue with backslash', { ...valid, continue: '/\\evil.example' }, [['InvalidValue', 'Continue']]],
  ['continue with a tab', { ...valid, continue: '/\t/evil.example' }, [['InvalidValue', 'Continue']]],
  ['continue without a leading slash', { ...valid, continue: 'home' }, [['InvalidValue', 'Continue']]],
  ['confirm password over 256, the password valid', { ...valid, confirmPassword: 'p'.repeat(257) }, [['Length', 'ConfirmPassword'], ['PasswordsShouldMatch', 'ConfirmPassword']]],
  ['password and confirm password over 256, matching', { userName: 'mario', password: 'p'.repeat(257), confirmPassword: 'p'.repeat(257) }, [['Length', 'Password'], ['Length', 'ConfirmPassword']]],
  ['confirm password alone', { confirmPassword: 'correct-horse' }, [['NotEmpty', 'UserName'], ['NotEmpty', 'Password'], ['PasswordsShouldMatch', 'ConfirmPassword']]],
  [
    'everything wrong at once',
    { userName: 'x', email: 'bad', password: 'short', confirmPassword: 'other', displayName: 'd'.repeat(101), continue: '//x' },
    [['InvalidUserName', 'UserName'], ['Email', 'Email'], ['Length', 'Password'], ['PasswordsShouldMatch', 'ConfirmPassword'], ['Length', 'DisplayName'], ['InvalidValue', 'Continue']],
  ],
];

const accepted: Array<[string, RequestDto<'Register'>]> = [
  ['the minimal request', valid],
  ['e-mail only', { email: 'Mario.Rossi@Example.it', password: 'correct-horse' }],
  ['3-character and 36-character names', { userName: 'abc', email: 'a@b.it', password: 'p'.repeat(256) }],
  ['separators between letters', { ...valid, userName: 'm.a_r-i0' }],
  ['matching confirm password', { ...valid, confirmPassword: 'correct-horse' }],
  ['100-character names and a full meta', { ...valid, firstName: 'è'.repeat(100), meta: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`${i}`.padEnd(64, 'k'), 'v'.repeat(1024)])) }],
  ['a relative continue with a query', { ...valid, continue: '/benvenuto?x=1#top' }],
  ['errorView and autoLogin', { ...valid, errorView: 'ignored', autoLogin: true }],
];

describe('auth Register rules', () => {
  for (const [name, dto, want] of cases) {
    it(`refuses ${name}`, () => {
      const r = check(dto);
      expect(r.ok).to.equal(false);
      if (r.ok) return;
      expect(r.error.errors.map((e) => [e.errorCode, e.fieldName])).to.deep.equal(want);
      expect(r.error.status).to.equal(400);
      expect(r.error.code).to.equal(want[0]![0]);
      expect(JSON.stringify(r.error.errors)).not.to.include('correct-horse');
    });
  }
  for (const [name, dto] of accepted) {
    it(`accepts ${name}`, () => {
      const r = check(dto);
      expect(r.ok, JSON.stringify(!r.ok && r.error.errors)).to.equal(true);
    });
  }

  it('keeps continue as the referrer URL and reads autoLogin strictly', () => {
    const r = check({ ...valid, continue: '/home', autoLogin: true, meta: { a: 'b' } });
    expect(r.ok && r.value).to.deep.include({ referrerUrl: '/home', autoLogin: true, meta: { a: 'b' }, userName: 'mario.rossi', email: undefined });
    const off = check(valid);
    expect(off.ok && off.value.autoLogin).to.equal(false);
  });

  it('words each error as the answer gives it', () => {
    const r = check({ userName: 'x', email: 'bad', password: 'short', confirmPassword: 'p'.repeat(257), displayName: 'd'.repeat(101), meta: { ['k'.repeat(65)]: 'v' }, continue: '//x' });
    expect(r.ok ? [] : r.error.errors.map((e) => e.message)).to.deep.equal([
      'UserName must be 3 to 36 letters or digits, optionally separated by single . _ or -',
      "'Email' is not a valid email address.",
      "'Password' must be between 8 and 256 characters.",
      "'ConfirmPassword' must be 256 characters or fewer.",
      "'ConfirmPassword' should match 'Password'.",
      "'DisplayName' must be 100 characters or fewer.",
      "'Meta' keys must be at most 64 and values at most 1024 characters.",
      "'Continue' must be a relative path starting with a single '/'.",
    ]);
    const empty = check({ userName: 'mario', password: '' });
    expect(empty.ok ? [] : empty.error.errors).to.deep.equal([{ errorCode: 'NotEmpty', fieldName: 'Password', message: "'Password' must not be empty." }]);
  });

  // The admin bootstrap and the CLI check names with account-rules.ts: the same verdicts.
  const names = ['mario', 'ab', 'a'.repeat(36), 'a'.repeat(37), 'mario..rossi', '.mario', 'm.a_r-i0', 'niccolò', 'mario@rossi'];
  const emails = ['mario@example.it', 'a@b', 'mario.example.com', 'mario@', `${'l'.repeat(65)}@example.it`, `${'l'.repeat(64)}@example.it`, 'a..b@example.it', `m@${'a'.repeat(64)}.it`];
  const passwords = ['', '1234567', '12345678', 'p'.repeat(256), 'p'.repeat(257), '😀'.repeat(8)];
  const contractRefuses = (field: string, dto: RequestDto<'Register'>) => validate(dto).some((e) => e.fieldName === field);
  it('accepts the user names, e-mails and passwords that account-rules.ts accepts', () => {
    for (const name of names) expect(contractRefuses('UserName', { userName: name, password: 'correct-horse' }), name).to.equal(userNameError(name) !== undefined);
    for (const email of emails) expect(contractRefuses('Email', { email, password: 'correct-horse' }), email).to.equal(emailError(email) !== undefined);
    for (const password of passwords) expect(contractRefuses('Password', { userName: 'mario', password }), password).to.equal(passwordError(password) !== undefined);
  });
});
