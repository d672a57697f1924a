/**
 * A small seedable PRNG (mulberry32) for tests' generated data and queries: the same seed gives the
 * same sequence on every run, so a failure can be replayed. (bench/calendar.ts has the same
 * generator for the benchmarks; tests do not import bench code.)
 */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
