// Checks a Register request against every rule of design.md §5 and reports all broken
// rules at once. The edge has already given every property its schema type, so only the
// rules are checked here.
import type { RequestDto } from '../contract-types.js';
import { ApiError, fail, ok, type FieldError, type Result } from '../errors/api-error.js';
import { codePoints, continueError, emailError, passwordError, userNameError } from './account-rules.js';

export interface RegisterInput {
  readonly userName: string | undefined;
  readonly email: string | undefined;
  readonly password: string;
  readonly firstName: string | undefined;
  readonly lastName: string | undefined;
  readonly displayName: string | undefined;
  readonly autoLogin: boolean;
  readonly meta: Readonly<Record<string, string>> | undefined;
  readonly referrerUrl: string | undefined;
}

export const metaLimits = { entries: 20, key: 64, value: 1024 } as const;
const nameMax = 100;

export function registerInput(dto: RequestDto<'Register'>): Result<RegisterInput> {
  const errors: FieldError[] = [];
  const add = (e: FieldError | undefined) => void (e && errors.push(e));
  const blankToUndefined = (s: string | undefined) => (s === '' ? undefined : s);
  const userName = blankToUndefined(dto.userName);
  const email = blankToUndefined(dto.email);
  const { password, confirmPassword, firstName, lastName, displayName, meta, autoLogin } = dto;
  const cont = dto.continue;

  if (userName === undefined && email === undefined) {
    errors.push({ errorCode: 'NotEmpty', fieldName: 'UserName', message: "'UserName' must not be empty." });
  }
  if (userName !== undefined) add(userNameError(userName));
  if (email !== undefined) add(emailError(email));
  add(passwordError(password));
  if (confirmPassword !== undefined && password !== undefined && confirmPassword !== password) {
    errors.push({ errorCode: 'PasswordsShouldMatch', fieldName: 'ConfirmPassword', message: "'ConfirmPassword' should match 'Password'." });
  }
  for (const [fieldName, v] of [['FirstName', firstName], ['LastName', lastName], ['DisplayName', displayName]] as const) {
    if (v !== undefined && codePoints(v) > nameMax) {
      errors.push({ errorCode: 'Length', fieldName, message: `'${fieldName}' must be ${nameMax} characters or fewer.` });
    }
  }
  if (meta !== undefined) errors.push(...metaErrors(meta));
  if (cont !== undefined) add(continueError(cont));

  if (errors.length > 0 || password === undefined) return fail(ApiError.validation(errors));
  return ok({ userName, email, password, firstName, lastName, displayName, autoLogin: autoLogin === true, meta, referrerUrl: cont });
}

function metaErrors(meta: Readonly<Record<string, string>>): FieldError[] {
  const entries = Object.entries(meta);
  const errors: FieldError[] = [];
  if (entries.length > metaLimits.entries) errors.push({ errorCode: 'TooMany', fieldName: 'Meta', message: `'Meta' must have at most ${metaLimits.entries} entries.` });
  if (entries.some(([k, v]) => codePoints(k) > metaLimits.key || codePoints(v) > metaLimits.value)) {
    errors.push({ errorCode: 'Length', fieldName: 'Meta', message: `'Meta' keys must be at most ${metaLimits.key} and values at most ${metaLimits.value} characters.` });
  }
  return errors;
}
