/**
 * Geolocation arithmetic: the haversine (src/lib/geo.ts) against published great-circle distances
 * on the mean Earth radius and an independent formula; units, radians of arc, reported distances and
 * the `$centerSphere` clause (src/query/geo.ts).
 */
import { describe, expect, it } from 'vitest';
import { angleBetween, centralAngle, latitudeCosine } from '../../src/lib/geo.js';
import { DEFAULT_RADIUS, EARTH_RADIUS_KM, fromKm, KM_PER_MILE, MAX_RADIUS, reportDistance, toKm, toRadians, withinRadius } from '../../src/query/geo.js';
import { random } from '../helpers/random.js';
import { angleViaVectors } from '../helpers/sphere.js';

type LngLat = [number, number];

const BERLIN: LngLat = [13.405, 52.52];
const PARIS: LngLat = [2.3522, 48.8566];
const LONDON: LngLat = [-0.1278, 51.5074];
const NEW_YORK: LngLat = [-74.006, 40.7128];
const SYDNEY: LngLat = [151.2093, -33.8688];

describe('constants', () => {
  it('uses the IUGG mean Earth radius, the international mile, 25 by default and 500 at most', () => {
    expect(EARTH_RADIUS_KM).toBe(6371.0088);
    expect(KM_PER_MILE).toBe(1.609344);
    expect(DEFAULT_RADIUS).toBe(25);
    expect(MAX_RADIUS).toBe(500);
  });
});

describe('toKm / fromKm', () => {
  it.each<[number, 'mi' | 'km', number]>([
    [1, 'mi', 1.609344],
    [10, 'mi', 16.09344],
    [25, 'mi', 40.2336],
    [0, 'mi', 0],
    [1, 'km', 1],
    [42.5, 'km', 42.5],
  ])('%d %s is %d km', (value, unit, km) => {
    expect(toKm(value, unit)).toBeCloseTo(km, 10);
  });

  it.each<[number, 'mi' | 'km', number]>([
    [1.609344, 'mi', 1],
    [100, 'mi', 62.13711922],
    [0, 'mi', 0],
    [100, 'km', 100],
  ])('%d km is %d %s', (km, unit, value) => {
    expect(fromKm(km, unit)).toBeCloseTo(value, 8);
  });

  it('round-trips in both units', () => {
    for (const value of [0.001, 1, 3.7, 25, 500]) {
      expect(fromKm(toKm(value, 'mi'), 'mi')).toBeCloseTo(value, 12);
      expect(fromKm(toKm(value, 'km'), 'km')).toBe(value);
    }
  });
});

describe('toRadians', () => {
  it('divides the distance in km by the Earth radius', () => {
    expect(toRadians(EARTH_RADIUS_KM, 'km')).toBeCloseTo(1, 15);
    expect(toRadians(10, 'km')).toBeCloseTo(10 / 6371.0088, 15);
    expect(toRadians(10, 'mi')).toBeCloseTo(16.09344 / 6371.0088, 15);
    expect(toRadians(0, 'mi')).toBe(0);
  });

  it('half the circumference is π', () => {
    expect(toRadians(Math.PI * EARTH_RADIUS_KM, 'km')).toBeCloseTo(Math.PI, 12);
    expect(toRadians((Math.PI * EARTH_RADIUS_KM) / KM_PER_MILE, 'mi')).toBeCloseTo(Math.PI, 12);
  });
});

describe('reportDistance', () => {
  const radiansOfKm = (km: number) => km / EARTH_RADIUS_KM;

  it.each<[string, number, 'mi' | 'km', number]>([
    ['12.3456 km in km → 12.35', 12.3456, 'km', 12.35],
    ['12.3449 km in km → 12.34', 12.3449, 'km', 12.34],
    ['12.3456 km in mi → 7.67', 12.3456, 'mi', 7.67],
    ['1 mile in mi → 1', 1.609344, 'mi', 1],
    ['1 mile in km → 1.61', 1.609344, 'km', 1.61],
    ['a metre in km → 0', 0.001, 'km', 0],
    ['zero → 0', 0, 'mi', 0],
    ['878.4049 km in km → 878.4', 878.4049, 'km', 878.4],
  ])('%s', (_name, km, unit, expected) => {
    expect(reportDistance(radiansOfKm(km), unit)).toBe(expected);
  });

  it('always has at most 2 decimals', () => {
    for (let i = 1; i < 200; i += 1) {
      const value = reportDistance(i * 0.000123457, i % 2 === 0 ? 'mi' : 'km');
      expect(Math.round(value * 100) / 100).toBe(value);
      expect(String(value)).toMatch(/^\d+(?:\.\d{1,2})?$/);
    }
  });

  it('reports a distance in mi 1.609344 times smaller than in km (before rounding)', () => {
    const radians = radiansOfKm(160.9344);
    expect(reportDistance(radians, 'km')).toBe(160.93);
    expect(reportDistance(radians, 'mi')).toBe(100);
  });
});

describe('centralAngle (the haversine)', () => {
  const km = (a: LngLat, b: LngLat) => centralAngle(a, b) * EARTH_RADIUS_KM;

  it.each<[string, LngLat, LngLat, number, number]>([
    // Published great-circle distances (mean radius); the tolerance covers the rounding of the
    // city coordinates.
    ['Berlin – Paris ≈ 878 km', BERLIN, PARIS, 878, 3],
    ['London – Paris ≈ 344 km', LONDON, PARIS, 344, 2],
    ['London – New York ≈ 5570 km', LONDON, NEW_YORK, 5570, 5],
    ['Berlin – Sydney ≈ 16 090 km', BERLIN, SYDNEY, 16_090, 15],
  ])('%s', (_name, a, b, expected, tolerance) => {
    expect(Math.abs(km(a, b) - expected)).toBeLessThanOrEqual(tolerance);
  });

  it('is 0 for the same point and symmetric', () => {
    expect(centralAngle(BERLIN, BERLIN)).toBe(0);
    expect(centralAngle(BERLIN, PARIS)).toBe(centralAngle(PARIS, BERLIN));
    expect(centralAngle(NEW_YORK, SYDNEY)).toBeCloseTo(centralAngle(SYDNEY, NEW_YORK), 14);
  });

  it('gives exact angles on the axes, across the antimeridian and at the poles', () => {
    expect(centralAngle([0, 0], [90, 0])).toBeCloseTo(Math.PI / 2, 12);
    expect(centralAngle([0, 0], [0, 90])).toBeCloseTo(Math.PI / 2, 12);
    expect(centralAngle([0, 0], [180, 0])).toBeCloseTo(Math.PI, 12);
    expect(centralAngle([10, 20], [-170, -20])).toBeCloseTo(Math.PI, 7);
    expect(centralAngle([179.5, 0], [-179.5, 0])).toBeCloseTo((1 * Math.PI) / 180, 12);
    // Every longitude is the same point at a pole.
    expect(centralAngle([0, 90], [123, 90])).toBeCloseTo(0, 12);
    expect(centralAngle([0, 90], [0, -90])).toBeCloseTo(Math.PI, 12);
  });

  it('one degree of latitude is about 111.2 km', () => {
    expect(km([13.4, 52], [13.4, 53])).toBeCloseTo((Math.PI / 180) * EARTH_RADIUS_KM, 9);
    expect(km([13.4, 52], [13.4, 53])).toBeCloseTo(111.195, 3);
  });

  it('agrees with the angle between 3-D unit vectors anywhere on the sphere, and with itself given the cosines', () => {
    const next = random(6371);
    const anywhere = (): LngLat => [next() * 360 - 180, (Math.asin(next() * 2 - 1) * 180) / Math.PI];
    for (let i = 0; i < 5000; i++) {
      const a = anywhere();
      // Near points too: the haversine is exact at short range, where the vector formula is not needed.
      const b: LngLat = i % 4 === 0 ? [a[0] + (next() - 0.5) * 1e-3, Math.max(-90, Math.min(90, a[1] + (next() - 0.5) * 1e-3))] : anywhere();
      expect(Math.abs(centralAngle(a, b) - angleViaVectors(a, b))).toBeLessThan(1e-9);
      expect(angleBetween(a[0], a[1], latitudeCosine(a[1]), b[0], b[1], latitudeCosine(b[1]))).toBe(centralAngle(a, b));
    }
  });
});

describe('withinRadius', () => {
  it('is a $geoWithin/$centerSphere clause on location, centred on [lng, lat], with the radius in radians', () => {
    expect(withinRadius([13.4132, 52.5219], 10, 'km')).toEqual({
      location: { $geoWithin: { $centerSphere: [[13.4132, 52.5219], 10 / 6371.0088] } },
    });
  });

  it('converts miles', () => {
    const clause = withinRadius([-73.99, 40.75], 25, 'mi') as {
      location: { $geoWithin: { $centerSphere: [[number, number], number] } };
    };
    const [center, radius] = clause.location.$geoWithin.$centerSphere;
    expect(center).toEqual([-73.99, 40.75]);
    expect(radius).toBeCloseTo(40.2336 / 6371.0088, 15);
  });

  it('does not keep a reference to the caller’s point', () => {
    const point: [number, number] = [1, 2];
    const clause = withinRadius(point, 1, 'km') as { location: { $geoWithin: { $centerSphere: [[number, number], number] } } };
    point[0] = 99;
    expect(clause.location.$geoWithin.$centerSphere[0]).toEqual([1, 2]);
  });
});
