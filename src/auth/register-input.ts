// A Register request's field errors, all at once (design.md §5): the contract's (lengths, the
// user name's pattern, the e-mail's format, the password's bounds, `continue`'s pattern,
// which openapi-backend checks at the edge) and the rules a schema cannot say, in the order
// the answer lists them.
import type { RequestDto } from '../contract-types.js';
import { ApiError, fail, ok, type FieldError, type Result } from '../errors/api-error.js';
import { mergeFieldErrors, rankIn } from '../errors/field-errors.js';
import { codePoints } from './account-rules.js';

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

/** The 64-character key limit needs propertyNames, which OpenAPI 3.0 lacks; the contract bounds the rest. */
export const metaLimits = { key: 64, value: 1024 } as const;

/** The order the answer lists the fields in, as ServiceStack's Register validator declares its rules. */
const checkOrder = ['ErrorView', 'UserName', 'Email', 'Password', 'ConfirmPassword', 'FirstName', 'LastName', 'DisplayName', 'Meta', 'Continue'];
const rank = rankIn(checkOrder);

/** `contractErrors`: the contract's field errors of `dto` (request.fieldErrors). */
export function registerInput(dto: RequestDto<'Register'>, contractErrors: readonly FieldError[]): Result<RegisterInput> {
  const blankToUndefined = (s: string | undefined) => (s === '' ? undefined : s);
  const userName = blankToUndefined(dto.userName);
  const email = blankToUndefined(dto.email);
  const { password, confirmPassword, firstName, lastName, displayName, meta, autoLogin } = dto;
  // A blank user name or e-mail counts as absent, so the contract's rules of its value do not apply.
  const blank = new Set([...(userName === undefined ? ['UserName'] : []), ...(email === undefined ? ['Email'] : [])]);
  const contract = contractErrors.filter((e) => !blank.has(e.fieldName));
  const errors = mergeFieldErrors([contract, ruleErrors(dto, userName ?? email)], rank);
  // The contract requires a password: without one, `errors` names it.
  if (errors.length > 0 || password === undefined) return fail(ApiError.validation(errors));
  return ok({ userName, email, password, firstName, lastName, displayName, autoLogin: autoLogin === true, meta, referrerUrl: dto.continue });
}

/** The rules a schema cannot say: one of two properties, two that must match, the keys of a map. */
function ruleErrors(dto: RequestDto<'Register'>, login: string | undefined): FieldError[] {
  const errors: FieldError[] = [];
  if (login === undefined) errors.push({ errorCode: 'NotEmpty', fieldName: 'UserName', message: "'UserName' must not be empty." });
  if (dto.confirmPassword !== undefined && dto.confirmPassword !== dto.password) {
    errors.push({ errorCode: 'PasswordsShouldMatch', fieldName: 'ConfirmPassword', message: "'ConfirmPassword' should match 'Password'." });
  }
  if (dto.meta !== undefined && Object.keys(dto.meta).some((k) => codePoints(k) > metaLimits.key)) {
    errors.push({ errorCode: 'Length', fieldName: 'Meta', message: `'Meta' keys must be at most ${metaLimits.key} and values at most ${metaLimits.value} characters.` });
  }
  return errors;
}
