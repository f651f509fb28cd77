// A seeded random source for the JS property tests (mulberry32): the same seed gives the same
// calls on every run, so a failure can be replayed.

/** A function returning numbers in [0, 1), determined by `seed`. */
export function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
