// The fuzzer's vocabulary of hostile values: SQL injection (MySQL and SQLite dialects,
// blind/time-based, stacked statements, comment tricks), prototype-pollution keys,
// JSONP callback names a browser would run as script, and content types we do not serve.
import fc from 'fast-check';

export const sqlInjections: readonly string[] = [
  "' OR '1'='1",
  "' OR 1=1 --",
  "'; DROP TABLE app_user; --",
  "1; DELETE FROM caratteristica_gruppo; --",
  "\" OR \"\"=\"",
  "' UNION SELECT password_hash, 1, 1, 1, 1 FROM app_user --",
  "1' AND SLEEP(5) AND '1'='1",
  "' OR BENCHMARK(50000000,SHA1(1)) OR '",
  "'; UPDATE app_user SET password_hash='x'; --",
  "\\'; DROP TABLE impianto; --",
  "%' OR 1=1; --",
  "') OR ('a'='a",
  "1)) OR 1=1#",
  "'||(SELECT load_file('/etc/passwd'))||'",
  "`id`=1; --",
  "\u0000' OR 1=1; --",
  "'; SHUTDOWN; --",
  "admin'--",
  "' AND 1=(SELECT COUNT(*) FROM sqlite_master); --",
  "'; ATTACH DATABASE '/tmp/x.db' AS x; --",
  "' OR randomblob(1000000000); --",
  "1 AND extractvalue(1,concat(0x7e,version())) --",
  "'/**/OR/**/1=1/**/--",
  "' COLLATE utf8mb4_bin = 'x'; --",
  "Id; DROP TABLE soggetto_recapito",
  "Id DESC, (SELECT 1 FROM app_user)=",
  "COUNT(*)); DROP TABLE app_user; --",
  "MAX(Id) AS x; DELETE FROM impianto_file; --",
  "Descrizione'--",
];

export const protoKeys: readonly string[] = ['__proto__', 'constructor', 'prototype', '__defineGetter__', '__lookupGetter__', 'hasOwnProperty', 'toString', 'valueOf', 'isPrototypeOf'];

/** Names the callback pattern refuses: each would run as script or break out of the wrapper. */
export const hostileCallbacks: readonly string[] = [
  'alert(1)//', '<script>alert(1)</script>', 'a b', '1abc', 'a..b', 'a.', '.a', 'x'.repeat(129), 'cb;alert(1)', 'cb()',
  'cb[0]', 'c\u00f1b', "cb'", '', 'eval("x")', '/**/cb', 'cb\n', 'a-b', 'a:b', 'a=b', 'cb%00', '\u2028', 'a/b', '${x}', 'cb,cb',
];

export const validCallbacks: readonly string[] = ['cb', 'jQuery123_456', '$', '_', 'a.b.c', '$jsonp.cb_1', 'x'.repeat(128)];

/** Content types that must be refused with 415 whatever the body (none is JSON or a UTF-8 form). */
export const refusedContentTypes: readonly string[] = [
  'text/plain', 'application/xml', 'text/xml', 'multipart/form-data; boundary=x', 'application/octet-stream',
  'application/json; charset=latin1', 'application/json; charset=utf-16', 'application/x-www-form-urlencoded; charset=iso-8859-1',
  '*/*', 'application/*', 'json', 'application', ';;;', 'text/json', 'application/jsonp', 'application/javascript',
  'image/png', 'application/x-json', 'text/html', 'application/json5', 'application/x-www-form-urlencoded2', 'form',
];

/** Accept values that name nothing we serve (no format or callback alongside them). */
export const refusedAccepts: readonly string[] = ['application/xml', 'text/html', 'image/*', 'application/json;q=0', 'text/plain, application/xml;q=0.5', 'video/mp4'];

/**
 * Code points of every kind: ASCII, any plane, lone surrogates, NUL, RTL override.
 * (fc.string's binary unit does the same but is slow to generate by the thousand.)
 */
export function unicodeText(maxLength: number): fc.Arbitrary<string> {
  const codePoint = fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 0x10ffff }) },
    { weight: 1, arbitrary: fc.constantFrom(0, 0x0a, 0xd800, 0xdfff, 0x202e, 0xfeff, 0x1f600, 0x0300) },
  );
  return fc.array(codePoint, { maxLength }).map((cs) => cs.map((c) => (c <= 0xffff ? String.fromCharCode(c) : String.fromCodePoint(c))).join(''));
}

/** Text of any shape: hostile, unicode (astral, combining, RTL, lone surrogates), control characters. */
export const anyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...sqlInjections) },
  { weight: 1, arbitrary: fc.constantFrom(...protoKeys) },
  { weight: 3, arbitrary: unicodeText(40) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '%', '_', '\\', '%_\\', '\u202e', '\ud800', '\u0000', 'Città', 'null', 'undefined', 'NaN', 'fuzzuser', 'FuzzUser') },
  { weight: 1, arbitrary: fc.nat({ max: 3000 }).map((n) => 'x'.repeat(n)) },
);

/** Keys that are no property of any operation: checked against the operation at hand too. */
export const strangeKeys: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...protoKeys),
  fc.constantFrom(...sqlInjections),
  fc.constantFrom('', ' ', 'roles', 'Roles', 'isAdmin', 'password ', 'userName\u0000', 'take[]', 'idIn[0]', 'a.b', 'meta[roles]', '$where', '$gt'),
  unicodeText(20).filter((k) => k !== ''),
);
