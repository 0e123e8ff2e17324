// Checks a Register request against every rule of design.md §5 and reports all broken
// rules at once. The HTTP edge has already checked types against the schema; this
// stands on its own anyway (CLI, tests, a future edge) and re-checks them.
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
/** ErrorView is ignored (it only mattered for HTML views) but bounded like every string. */
const errorViewMax = 100;

export function registerInput(dto: Readonly<Record<string, unknown>>): Result<RegisterInput> {
  const errors: FieldError[] = [];
  const text = (name: string, fieldName: string, raw: unknown = dto[name]): string | undefined => {
    if (raw === undefined || raw === null) return undefined;
    if (typeof raw === 'string') return raw;
    errors.push({ errorCode: 'InvalidType', fieldName, message: `'${fieldName}' must be a string.` });
    return undefined;
  };
  const blankToUndefined = (s: string | undefined) => (s === '' ? undefined : s);

  const userName = blankToUndefined(text('userName', 'UserName'));
  const email = blankToUndefined(text('email', 'Email'));
  const password = text('password', 'Password');
  const confirmPassword = text('confirmPassword', 'ConfirmPassword');
  const names = (['firstName', 'lastName', 'displayName'] as const).map((n) => text(n, n[0]!.toUpperCase() + n.slice(1)));
  const cont = text('continue', 'Continue');
  const errorView = text('errorView', 'ErrorView');
  if (errorView !== undefined && codePoints(errorView) > errorViewMax) {
    errors.push({ errorCode: 'Length', fieldName: 'ErrorView', message: `'ErrorView' must be ${errorViewMax} characters or fewer.` });
  }

  if (userName === undefined && email === undefined) {
    errors.push({ errorCode: 'NotEmpty', fieldName: 'UserName', message: "'UserName' must not be empty." });
  }
  const add = (e: FieldError | undefined) => void (e && errors.push(e));
  if (userName !== undefined) add(userNameError(userName));
  if (email !== undefined) add(emailError(email));
  add(passwordError(password));
  if (confirmPassword !== undefined && password !== undefined && confirmPassword !== password) {
    errors.push({ errorCode: 'PasswordsShouldMatch', fieldName: 'ConfirmPassword', message: "'ConfirmPassword' should match 'Password'." });
  }
  ['FirstName', 'LastName', 'DisplayName'].forEach((fieldName, i) => {
    const v = names[i];
    if (v !== undefined && codePoints(v) > nameMax) {
      errors.push({ errorCode: 'Length', fieldName, message: `'${fieldName}' must be ${nameMax} characters or fewer.` });
    }
  });
  const meta = metaOf(dto['meta'], errors);
  if (cont !== undefined) add(continueError(cont));
  const autoLogin = dto['autoLogin'];
  if (autoLogin !== undefined && autoLogin !== null && typeof autoLogin !== 'boolean') {
    errors.push({ errorCode: 'InvalidType', fieldName: 'AutoLogin', message: "'AutoLogin' must be a boolean." });
  }

  if (errors.length > 0) return fail(ApiError.validation(errors));
  const [firstName, lastName, displayName] = names;
  return ok({ userName, email, password: password!, firstName, lastName, displayName, autoLogin: autoLogin === true, meta, referrerUrl: cont });
}

function metaOf(raw: unknown, errors: FieldError[]): Record<string, string> | undefined {
  if (raw === undefined || raw === null) return undefined;
  const bad = (errorCode: FieldError['errorCode'], message: string) => void errors.push({ errorCode, fieldName: 'Meta', message });
  const entries = typeof raw === 'object' && !Array.isArray(raw) ? Object.entries(raw as Record<string, unknown>) : undefined;
  if (!entries || entries.some(([, v]) => typeof v !== 'string')) {
    bad('InvalidType', "'Meta' must be an object of strings.");
    return undefined;
  }
  if (entries.length > metaLimits.entries) bad('TooMany', `'Meta' must have at most ${metaLimits.entries} entries.`);
  if (entries.some(([k, v]) => codePoints(k) > metaLimits.key || codePoints(v as string) > metaLimits.value)) {
    bad('Length', `'Meta' keys must be at most ${metaLimits.key} and values at most ${metaLimits.value} characters.`);
  }
  return Object.fromEntries(entries) as Record<string, string>;
}
