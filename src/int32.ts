// The int32 range of every integer in the contract (`format: int32`): ids, filters, Skip,
// Take and the numeric settings. Defined once; the generator's copy for the JSON schemas
// (scripts/lib/query-schemas.mjs) is held equal to it by test/unit/int32.test.ts.
export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;

export const isInt32 = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX;

/** The text every "not an int32" message ends with, so all of them read the same. */
export const int32Range = `an integer between ${INT32_MIN} and ${INT32_MAX}`;
