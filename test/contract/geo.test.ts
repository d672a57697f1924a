/**
 * Storage contract: `$geoWithin: { $centerSphere }` on venues' 2dsphere-indexed `location`
 *, on every engine.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Filter, type Storage, type VenueDoc } from '../../src/storage/port.js';
import { enginesUnderTest } from '../helpers/engines.js';
import { makeVenueDoc, point } from '../helpers/factories.js';
// The reference angle: independent of the engines' haversine.
import { angleViaVectors as angleBetween } from '../helpers/sphere.js';

const { engines } = await enginesUnderTest();
/** [name, engine] pairs: a plain name in test titles. */
const engineCases = engines.map((engine) => [engine.name, engine] as const);

type LngLat = [number, number];

/** The equatorial radius MongoDB's documentation uses to turn kilometres into radians. */
const EARTH_RADIUS_KM = 6378.1;
const km = (distance: number): number => distance / EARTH_RADIUS_KM;

const ALEXANDERPLATZ: LngLat = [13.4132, 52.5219];
const KONZERTHAUS: LngLat = [13.3918, 52.5136];
const BRANDENBURG_GATE: LngLat = [13.3777, 52.5163];
const SANSSOUCI: LngLat = [13.0384, 52.4043];
const ELBPHILHARMONIE: LngLat = [9.9841, 53.5413];
const OPERA_GARNIER: LngLat = [2.3317, 48.872];

function within(center: LngLat, radius: number): Filter {
  return { location: { $geoWithin: { $centerSphere: [center, radius] } } };
}

describe.each(engineCases)('%s engine: $geoWithin', (_name, engine) => {
  let storage: Storage;
  beforeEach(async () => {
    storage = await engine.open();
    const venues: VenueDoc[] = [
      makeVenueDoc({ _id: 1, slug: 'konzerthaus', name: 'Konzerthaus', location: point(...KONZERTHAUS) }),
      makeVenueDoc({ _id: 2, slug: 'gate', name: 'Brandenburger Tor', location: point(...BRANDENBURG_GATE) }),
      makeVenueDoc({ _id: 3, slug: 'sanssouci', name: 'Sanssouci', city: 'Potsdam', location: point(...SANSSOUCI) }),
      makeVenueDoc({ _id: 4, slug: 'elphi', name: 'Elbphilharmonie', city: 'Hamburg', location: point(...ELBPHILHARMONIE) }),
      makeVenueDoc({ _id: 5, slug: 'garnier', name: 'Opéra Garnier', city: 'Paris', location: point(...OPERA_GARNIER) }),
      makeVenueDoc({ _id: 6, slug: 'unknown', name: 'Somewhere in Berlin', location: null, geoSource: null }),
      makeVenueDoc({ _id: 7, slug: 'draft-hall', name: 'Draft hall', status: 'draft', location: point(13.4, 52.52) }),
    ];
    const missing = makeVenueDoc({ _id: 8, slug: 'no-field', name: 'No location field' });
    delete (missing as Partial<VenueDoc>).location;
    venues.push(missing);
    for (const venue of venues) await storage.venues.insertOne(venue);
  });
  afterEach(async () => {
    await storage.close();
  });

  async function idsOf(filter: Filter): Promise<number[]> {
    return (await storage.venues.find({ filter, sort: [['_id', 1]] })).map((venue) => venue._id);
  }

  it.each<[string, number, number[]]>([
    ['5 km around Alexanderplatz: central Berlin', km(5), [1, 2, 7]],
    ['50 km: Berlin and Potsdam', km(50), [1, 2, 3, 7]],
    ['300 km: and Hamburg', km(300), [1, 2, 3, 4, 7]],
    ['1000 km: and Paris', km(1000), [1, 2, 3, 4, 5, 7]],
    ['the whole sphere: every located venue, never one without location', Math.PI, [1, 2, 3, 4, 5, 7]],
    ['a zero radius', 0, []],
  ])('finds %s', async (_name, radius, expected) => {
    expect(await idsOf(within(ALEXANDERPLATZ, radius))).toEqual(expected);
  });

  it('is an exact great-circle radius: just inside and just outside', async () => {
    const angle = angleBetween(ALEXANDERPLATZ, SANSSOUCI);
    const fiftyMetres = km(0.05);
    expect(await idsOf({ ...within(ALEXANDERPLATZ, angle + fiftyMetres), city: 'Potsdam' })).toEqual([3]);
    expect(await idsOf({ ...within(ALEXANDERPLATZ, angle - fiftyMetres), city: 'Potsdam' })).toEqual([]);

    const toParis = angleBetween(ALEXANDERPLATZ, OPERA_GARNIER);
    expect(await idsOf(within(ALEXANDERPLATZ, toParis + fiftyMetres))).toContain(5);
    expect(await idsOf(within(ALEXANDERPLATZ, toParis - fiftyMetres))).not.toContain(5);
  });

  it('finds the point at the centre itself', async () => {
    expect(await idsOf(within(KONZERTHAUS, km(0.001)))).toEqual([1]);
  });

  it('combines with other conditions, sort and paging', async () => {
    const filter: Filter = { ...within(ALEXANDERPLATZ, km(50)), status: 'publish' };
    const page = await storage.venues.findPage({
      filter,
      sort: [
        ['name', 1],
        ['_id', 1],
      ],
      limit: 2,
    });
    expect(page.items.map((venue) => venue.name)).toEqual(['Brandenburger Tor', 'Konzerthaus']);
    expect(page.total).toBe(3);
    expect(await storage.venues.count({ $and: [within(ALEXANDERPLATZ, km(50)), { city: 'Potsdam' }] })).toBe(1);
    expect(await idsOf({ ...within(ALEXANDERPLATZ, km(50)), _id: { $in: [3, 4, 6] } })).toEqual([3]);
  });

  it('works under $or and $nor', async () => {
    expect(await idsOf({ $or: [within(ALEXANDERPLATZ, km(5)), { city: 'Paris' }] })).toEqual([1, 2, 5, 7]);
    // Venues without a location are outside every circle.
    expect(await idsOf({ $nor: [within(ALEXANDERPLATZ, km(50))] })).toEqual([4, 5, 6, 8]);
  });

  it('crosses the antimeridian', async () => {
    await storage.venues.insertOne(makeVenueDoc({ _id: 10, slug: 'fiji-east', location: point(179.9, -17.0) }));
    await storage.venues.insertOne(makeVenueDoc({ _id: 11, slug: 'fiji-west', location: point(-179.9, -17.1) }));
    await storage.venues.insertOne(makeVenueDoc({ _id: 12, slug: 'samoa', location: point(-171.76, -13.83) }));
    expect(await idsOf(within([-179.95, -17.05], km(100)))).toEqual([10, 11]);
    expect(await idsOf(within([179.95, -17.05], km(100)))).toEqual([10, 11]);
  });

  it('follows location changes, removals and deletions', async () => {
    const central = within(ALEXANDERPLATZ, km(5));
    await storage.venues.updateById(1, { $set: { location: point(...OPERA_GARNIER) } });
    expect(await idsOf(central)).toEqual([2, 7]);
    await storage.venues.updateById(2, { $set: { location: null } });
    await storage.venues.updateById(7, { $unset: ['location'] });
    expect(await idsOf(central)).toEqual([]);
    await storage.venues.updateById(6, { $set: { location: point(...KONZERTHAUS) } });
    expect(await idsOf(central)).toEqual([6]);
    await storage.venues.deleteById(6);
    expect(await idsOf(central)).toEqual([]);
    expect(await idsOf(within(OPERA_GARNIER, km(1)))).toEqual([1, 5]);
  });

  it('refuses a negative radius on every engine', async () => {
    await expect(storage.venues.find({ filter: within(ALEXANDERPLATZ, -0.1) })).rejects.toThrow();
  });
});
