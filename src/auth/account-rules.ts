// The single-field rules of accounts (design.md §5) for the admin bootstrap and the CLI.
// Register's requests are checked against the contract, which states the same rules (its
// `format: email` is isEmailAddress below); a test holds the two to the same verdicts.
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

/** The WHATWG grammar with RFC 5321's 64-character local part: the contract's `format: email`. */
export function isEmailAddress(value: string): boolean {
  const local = value.split('@')[0] ?? '';
  return local.length <= 64 && emailPattern.test(value);
}

export function emailError(value: string, fieldName = 'Email'): FieldError | undefined {
  return codePoints(value) <= 254 && isEmailAddress(value) ? undefined : err('Email', fieldName, "'Email' is not a valid email address.");
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
