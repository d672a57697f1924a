/**
 * Storage contract: `near` (MongoDB's $geoNear) on venues' 2dsphere-indexed `location`, on every
 * engine, checked against distances computed here independently (3-D vectors, not haversine), near
 * the poles, across the antimeridian and at radius boundaries.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EARTH_RADIUS_KM, toRadians } from '../../src/query/geo.js';
import { type Storage } from '../../src/storage/port.js';
import { enginesUnderTest } from '../helpers/engines.js';
import { makeVenueDoc, point } from '../helpers/factories.js';
// The reference angle: an independent check of the engines' distances.
import { angleViaVectors as angle } from '../helpers/sphere.js';

const { engines } = await enginesUnderTest();
const engineCases = engines.map((engine) => [engine.name, engine] as const);

type LngLat = [number, number];

const PLACES: Record<string, LngLat> = {
  alexanderplatz: [13.4132, 52.5219],
  potsdam: [13.0384, 52.4043],
  hamburg: [9.9841, 53.5413],
  paris: [2.3317, 48.872],
  // Either side of the antimeridian, 20 km apart.
  fijiWest: [179.95, -16.8],
  fijiEast: [-179.97, -16.85],
  // Near the north pole, on opposite meridians.
  poleA: [0, 89.9],
  poleB: [180, 89.9],
  svalbard: [15.6, 78.22],
};

describe.each(engineCases)('%s engine: near (geoNear on venues)', (_name, engine) => {
  let storage: Storage;
  const ids = new Map<string, number>();

  beforeEach(async () => {
    storage = await engine.open();
    let id = 100;
    for (const [name, coordinates] of Object.entries(PLACES)) {
      id += 1;
      ids.set(name, id);
      await storage.venues.insertOne(makeVenueDoc({ _id: id, slug: name, name, nameKey: name, location: point(...coordinates) }));
    }
    // A venue without coordinates is never a hit.
    await storage.venues.insertOne(makeVenueDoc({ _id: 999, slug: 'nowhere', location: null }));
  });
  afterEach(async () => {
    await storage.close();
  });

  const nameOf = (id: number) => [...ids].find(([, v]) => v === id)?.[0];

  it('returns the venues within the radius, nearest first, with distances matching an independent computation', async () => {
    const center = PLACES.alexanderplatz as LngLat;
    const hits = await storage.venues.near('location', { point: center, maxDistance: toRadians(300, 'km'), filter: {} });
    expect(hits.map((h) => nameOf(h._id))).toEqual(['alexanderplatz', 'potsdam', 'hamburg']);
    for (const hit of hits) {
      const expected = angle(center, PLACES[nameOf(hit._id) as string] as LngLat);
      // Within a metre on the Earth's surface.
      expect(Math.abs(hit.distance - expected) * EARTH_RADIUS_KM * 1000).toBeLessThan(1);
    }
    expect(hits[0]?.distance).toBeCloseTo(0, 9);
  });

  it('applies the filter to the candidates', async () => {
    await storage.venues.updateById(ids.get('potsdam') as number, { $set: { status: 'draft' } });
    const hits = await storage.venues.near('location', {
      point: PLACES.alexanderplatz as LngLat,
      maxDistance: toRadians(300, 'km'),
      filter: { status: 'publish' },
    });
    expect(hits.map((h) => nameOf(h._id))).toEqual(['alexanderplatz', 'hamburg']);
  });

  it('works across the antimeridian', async () => {
    const hits = await storage.venues.near('location', { point: [-179.99, -16.82], maxDistance: toRadians(50, 'km'), filter: {} });
    expect(hits.map((h) => nameOf(h._id)).sort()).toEqual(['fijiEast', 'fijiWest']);
    for (const hit of hits) {
      expect(Math.abs(hit.distance - angle([-179.99, -16.82], PLACES[nameOf(hit._id) as string] as LngLat)) * EARTH_RADIUS_KM).toBeLessThan(0.001);
    }
  });

  it('works near the poles (points on opposite meridians are close)', async () => {
    const hits = await storage.venues.near('location', { point: [90, 89.95], maxDistance: toRadians(30, 'km'), filter: {} });
    expect(hits.map((h) => nameOf(h._id)).sort()).toEqual(['poleA', 'poleB']);
    const apart = angle(PLACES.poleA as LngLat, PLACES.poleB as LngLat) * EARTH_RADIUS_KM;
    expect(apart).toBeGreaterThan(22);
    expect(apart).toBeLessThan(23);
  });

  it('includes a venue just inside the radius and excludes one just outside', async () => {
    const center = PLACES.alexanderplatz as LngLat;
    const exact = angle(center, PLACES.potsdam as LngLat);
    const inside = await storage.venues.near('location', { point: center, maxDistance: exact * (1 + 1e-6), filter: {} });
    expect(inside.map((h) => nameOf(h._id))).toContain('potsdam');
    const outside = await storage.venues.near('location', { point: center, maxDistance: exact * (1 - 1e-6), filter: {} });
    expect(outside.map((h) => nameOf(h._id))).not.toContain('potsdam');
  });

  it('agrees with $geoWithin/$centerSphere on the same radius', async () => {
    const center = PLACES.hamburg as LngLat;
    const radius = toRadians(500, 'mi');
    const near = await storage.venues.near('location', { point: center, maxDistance: radius, filter: {} });
    const within = await storage.venues.find({ filter: { location: { $geoWithin: { $centerSphere: [center, radius] } } }, sort: [['_id', 1]] });
    expect(near.map((h) => h._id).sort((a, b) => a - b)).toEqual(within.map((v) => v._id));
  });

  it('returns nothing when no venue is in range', async () => {
    expect(await storage.venues.near('location', { point: [-70, -40], maxDistance: toRadians(10, 'km'), filter: {} })).toEqual([]);
  });
});

describe('distance arithmetic (src/query/geo.ts)', () => {
  it('converts radii with the mean Earth radius and statute miles', () => {
    expect(toRadians(6371.0088, 'km')).toBeCloseTo(1, 12);
    expect(toRadians(1, 'mi') * EARTH_RADIUS_KM).toBeCloseTo(1.609344, 9);
  });
});
