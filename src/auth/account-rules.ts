// The single-field rules of accounts (design.md §5), shared by Register, the admin
// bootstrap and the CLI so that every way of creating a user accepts the same names.
import type { FieldError } from '../errors/api-error.js';

/** Lengths count Unicode code points (design.md §1). */
export const codePoints = (s: string): number => [...s].length;

// Each repetition starts with a letter or digit, so the match is linear: no backtracking blow-up.
const userNamePattern = /^(?=.{3,36}$)([A-Za-z0-9][._-]?)*$/;

// The WHATWG (HTML input type=email) grammar: ASCII, dotted host labels of at most 63.
const emailPattern =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export const passwordLength = { min: 8, max: 256 } as const;

const err = (errorCode: FieldError['errorCode'], fieldName: string, message: string): FieldError => ({ errorCode, fieldName, message });

export function userNameError(value: string, fieldName = 'UserName'): FieldError | undefined {
  return userNamePattern.test(value)
    ? undefined
    : err('InvalidUserName', fieldName, 'UserName must be 3 to 36 letters or digits, optionally separated by single . _ or -');
}

export function emailError(value: string, fieldName = 'Email'): FieldError | undefined {
  const local = value.split('@')[0] ?? '';
  return codePoints(value) <= 254 && local.length <= 64 && emailPattern.test(value)
    ? undefined
    : err('Email', fieldName, "'Email' is not a valid email address.");
}

export function passwordError(value: string | undefined, fieldName = 'Password'): FieldError | undefined {
  if (value === undefined || value === '') return err('NotEmpty', fieldName, `'${fieldName}' must not be empty.`);
  const n = codePoints(value);
  return n >= passwordLength.min && n <= passwordLength.max
    ? undefined
    : err('Length', fieldName, `'${fieldName}' must be between ${passwordLength.min} and ${passwordLength.max} characters.`);
}

/** Lookup keys: the unique indexes hold these, so "Mario" and "mario" collide. */
export const userNameKey = (userName: string): string => userName.toLowerCase();
export const emailKey = (email: string): string => email.normalize('NFC').toLowerCase();

/** A sign-in name holds an e-mail when it has an @ (user names cannot). */
export const looksLikeEmail = (login: string): boolean => login.includes('@');

/**
 * `continue` must be a path on this site: one leading `/`, no `//` start (protocol-relative
 * URL), no backslash and no control characters (browsers turn `/\evil` and `/\t/evil` into
 * `//evil`).
 */
export function continueError(value: string, fieldName = 'Continue'): FieldError | undefined {
  const safe = /^\/(?![/\\])/.test(value) && !/[\\\u0000-\u001f\u007f\s]/.test(value) && codePoints(value) <= 2048;
  return safe ? undefined : err('InvalidValue', fieldName, "'Continue' must be a relative path starting with a single '/'.");
}
