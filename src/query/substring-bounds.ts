// How many candidate rows the substring index route reads at most (design.md §8, "Substring
// index"), by what the answer needs; the engine context carries them (engine-context.ts).

/**
 * The answer is the first rows of the key's order: 10,000 primary-key lookups take about
 * 10 ms at 1M rows, and a term past it matches often enough that a scan meets a page of it soon.
 */
export const indexedUpTo = 10_000;

/**
 * The answer needs every match (a count, an order other than the key's): a scan then reads
 * the whole table whatever the term (0.1-0.3 s at 1M rows on either engine), where the index
 * reads each candidate in 1.6-3 µs.
 */
export const everyMatchUpTo = 50_000;
