/**
 * The embedded engine's geo index (src/storage/embedded/geo-index.ts) against brute force: for
 * random points over the whole sphere (clusters at the poles and on the antimeridian, documents with
 * several points) and random caps from metres to more than a hemisphere, `within` returns exactly
 * the documents a haversine test of every point keeps, each with its nearest point's angle, and
 * `nearest` the same nearest first. Fails when the candidate box misses part of a cap (a wrap past ±180°, a pole inside it, a
 * longitude span too narrow) or when the order is not by angle.
 */
import { describe, expect, it } from 'vitest';
import { centralAngle } from '../../src/lib/geo.js';
import { GeoIndex, type LngLat } from '../../src/storage/embedded/geo-index.js';
import { random } from '../helpers/random.js';

const next = random(20261121);
const between = (low: number, high: number) => low + next() * (high - low);
const anywhere = (): LngLat => [between(-180, 180), (Math.asin(between(-1, 1)) * 180) / Math.PI];
const polar = (): LngLat => [between(-180, 180), (next() < 0.5 ? -1 : 1) * between(89, 90)];
const antimeridian = (): LngLat => [(next() < 0.5 ? -1 : 1) * between(179, 180), between(-60, 60)];
const edges: LngLat[] = [
  [180, 0],
  [-180, 0],
  [0, 90],
  [0, -90],
  [180, 45],
  [-180, -45],
];
const somewhere = (): LngLat => {
  const roll = next();
  return roll < 0.6 ? anywhere() : roll < 0.8 ? polar() : antimeridian();
};

describe('GeoIndex.within and nearest', () => {
  const index = new GeoIndex('venues_location_2dsphere', 'location');
  const points = new Map<number, LngLat[]>();
  for (let id = 1; id <= 3000; id++) {
    const own = id <= edges.length ? [edges[id - 1]!] : next() < 0.1 ? [somewhere(), somewhere()] : [somewhere()];
    points.set(id, own);
    index.set(id, own);
  }

  const bruteForce = (center: LngLat, radius: number) => {
    const hits = new Map<number, number>();
    for (const [id, own] of points) {
      const angle = Math.min(...own.map((p) => centralAngle(p, center)));
      if (angle <= radius) hits.set(id, angle);
    }
    return hits;
  };

  /** How an answer differs from the brute force's (missing, extra or other angles, or out of order); [] when it does not. */
  const differences = (label: string, slots: readonly number[], angles: readonly number[], expected: Map<number, number>, ordered: boolean): string[] => {
    const problems: string[] = [];
    if (slots.length !== expected.size) problems.push(`${label}: ${slots.length} documents, expected ${expected.size}`);
    if (new Set(slots).size !== slots.length) problems.push(`${label}: a document twice`);
    slots.forEach((id, k) => {
      if (expected.get(id) !== angles[k]) problems.push(`${label}: document ${id} at ${angles[k]}, expected ${expected.get(id)}`);
      if (ordered && k > 0 && angles[k]! < angles[k - 1]!) problems.push(`${label}: document ${id} out of order`);
    });
    return problems;
  };

  it('finds exactly the documents in the cap, each at its nearest point, nearest first', () => {
    let found = 0;
    // Gathered over every query and checked once: an expect per document would cost more than the queries.
    const problems: string[] = [];
    for (let query = 0; query < 400; query++) {
      const center = next() < 0.1 ? edges[Math.floor(next() * edges.length)]! : somewhere();
      const kind = next();
      const radius = kind < 0.4 ? between(1e-4, 0.05) : kind < 0.8 ? between(0.05, 1) : between(1, 3.3);
      const expected = bruteForce(center, radius);
      const label = `cap ${query} at ${center.join(',')} of ${radius}`;
      const inCap = index.within(center, radius);
      problems.push(...differences(`${label} (within)`, inCap.slots, inCap.angles, expected, false));
      const { slots, angles } = index.nearest(center, radius);
      problems.push(...differences(`${label} (nearest)`, slots, angles, expected, true));
      found += slots.length;
    }
    expect(problems.slice(0, 20)).toEqual([]);
    // The caps reached many documents, not just empty ones.
    expect(found).toBeGreaterThan(50_000);
  });

  it('orders a crowd of points in a narrow ring of a wide cap (a far city) by angle too', () => {
    const crowd = new GeoIndex('venues_location_2dsphere', 'location');
    const city: LngLat = [13.4, 52.5];
    const expected = new Map<number, number>();
    for (let id = 1; id <= 2000; id++) {
      const at: LngLat = id % 3 === 0 ? somewhere() : [city[0] + between(-0.05, 0.05), city[1] + between(-0.05, 0.05)];
      crowd.set(id, [at]);
      const angle = centralAngle(at, [0, 0]);
      if (angle <= 1.5) expected.set(id, angle);
    }
    const { slots, angles } = crowd.nearest([0, 0], 1.5);
    expect(new Map(slots.map((id, k) => [id, angles[k]]))).toEqual(expected);
    for (let k = 1; k < angles.length; k++) expect(angles[k]!).toBeGreaterThanOrEqual(angles[k - 1]!);
  });
});
