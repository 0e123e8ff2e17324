// The one seeded random generator of the project: the bulk seed (seed-bulk.ts) and the
// bench's rows and requests (scripts/bench, from the build) draw from it, so the same seed
// gives the same numbers everywhere. Math.random cannot be seeded.

/** A source of numbers in [0, 1). */
export type Random = () => number;

/** mulberry32: tiny, fast and good enough for test and bench data; not for secrets. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit seed from a text (FNV-1a), for a generator per named stream. */
export function seedOf(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}
