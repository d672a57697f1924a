/**
 * GET /events geolocation (issue "events near me"): `geoloc`, `geoloc_lat` +
 * `geoloc_lng`, `geoloc_radius`, `geoloc_unit` and `orderby=distance`, over HTTP on every engine.
 *
 * Venues are created through `POST /venues` with real coordinates; every expected distance is
 * computed here independently (3-D unit vectors and atan2, not the service's haversine) on the
 * mean Earth radius, then rounded to 2 decimals.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { MESSAGES } from '../../src/i18n/index.js';
import { API, EDITOR, NS, type TestApp, VIEWER, createEventOk, json, openTestApp } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';
import { sharedTestApp } from '../helpers/shared-app.js';
import { angleViaVectors } from '../helpers/sphere.js';

const { engines } = await routeEnginesUnderTest();

type Body = Record<string, unknown>;
type ListBody = {
  events: Body[];
  rest_url: string;
  next_rest_url?: string;
  previous_rest_url?: string;
  total: number;
  total_pages: number;
};
type ErrorBody = { code: string; message: string; data: { status: number; params?: Record<string, string> | string[] } };
/** [latitude, longitude], the way people write them. */
type LatLng = readonly [number, number];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MEAN_EARTH_RADIUS_KM = 6371.0088;
const KM_PER_MILE = 1.609344;

/** Great-circle distance in km (independent of the service's haversine). */
const greatCircleKm = ([lat1, lng1]: LatLng, [lat2, lng2]: LatLng): number => angleViaVectors([lng1, lat1], [lng2, lat2]) * MEAN_EARTH_RADIUS_KM;
const round2 = (value: number) => Math.round(value * 100) / 100;
const expectedDistance = (from: LatLng, to: LatLng, unit: 'km' | 'mi') =>
  round2(unit === 'km' ? greatCircleKm(from, to) : greatCircleKm(from, to) / KM_PER_MILE);

const TODAY_MS = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
const dayString = (offset: number) => new Date(TODAY_MS + offset * DAY).toISOString().slice(0, 10);
/** A UTC wall clock `offset` days from today's midnight (UTC), at `hour`. */
const at = (offset: number, hour: number, minute = 0) =>
  new Date(TODAY_MS + offset * DAY + hour * HOUR + minute * 60_000).toISOString().slice(0, 19).replace('T', ' ');

// Real places. The search point is Alexanderplatz, Berlin.
const ALEXANDERPLATZ: LatLng = [52.5219, 13.4132];
const PLACES = {
  konzerthaus: [52.5136, 13.3918], // ≈ 1.7 km
  gate: [52.5163, 13.3777], // Brandenburger Tor, ≈ 2.5 km
  tempelhof: [52.473, 13.401], // Tempelhofer Feld, ≈ 5.5 km
  spandau: [52.5413, 13.2124], // Zitadelle Spandau, ≈ 13.7 km: outside 10 km, inside 10 mi
  potsdam: [52.4043, 13.0384], // Sanssouci, ≈ 28.5 km: outside 25 km, inside 25 mi
  fuerstenwalde: [52.36, 14.0617], // ≈ 47 km: outside the default 25 mi (40.2 km)
  hamburg: [53.5413, 9.9841], // Elbphilharmonie, ≈ 255 km
  paris: [48.872, 2.3317], // Opéra Garnier, ≈ 880 km
} as const satisfies Record<string, LatLng>;
type PlaceName = keyof typeof PLACES;

async function createVenue(app: FastifyInstance, body: Record<string, unknown>): Promise<number> {
  const response = await app.inject({ method: 'POST', url: `${API}/venues`, headers: EDITOR, payload: body });
  if (response.statusCode !== 201) throw new Error(`venue create failed: ${response.statusCode} ${response.body}`);
  return json(response).id as number;
}

/** A venue at a place, through the API with geo_lat/geo_lng (as strings, as forms send them). */
const venueAt = (app: FastifyInstance, name: string, [lat, lng]: LatLng, extra: Record<string, unknown> = {}) =>
  createVenue(app, { venue: name, geo_lat: String(lat), geo_lng: String(lng), ...extra });

async function addEvent(app: FastifyInstance, title: string, start: string, overrides: Record<string, unknown> = {}): Promise<number> {
  const end = new Date(`${start.replace(' ', 'T')}Z`).getTime() + 2 * HOUR;
  const body = await createEventOk(app, {
    title,
    start_date: start,
    end_date: new Date(end).toISOString().slice(0, 19).replace('T', ' '),
    ...overrides,
  });
  return body.id as number;
}

function clientFor(getApp: () => FastifyInstance) {
  const list = (query = '', headers: Record<string, string> = {}) =>
    getApp().inject({ method: 'GET', url: `${API}/events${query === '' ? '' : `?${query}`}`, headers });
  const listOk = async (query = '', headers: Record<string, string> = {}): Promise<ListBody & { response: LightMyRequestResponse }> => {
    const response = await list(query, headers);
    expect(response.statusCode, `${query}: ${response.body}`).toBe(200);
    return { ...json<ListBody>(response), response };
  };
  const idsOf = async (query = '', headers: Record<string, string> = {}) => (await listOk(query, headers)).events.map((e) => e.id as number);
  const expectError = async (query: string, code: string, param: string) => {
    const response = await list(query);
    expect(response.statusCode, `${query}: ${response.body}`).toBe(400);
    const body = json<ErrorBody>(response);
    expect(body.code).toBe(code);
    expect(body.data.status).toBe(400);
    if (code === 'rest_missing_callback_param') expect(body.data.params).toEqual([param]);
    else expect(Object.keys(body.data.params ?? {})).toContain(param);
    return body;
  };
  return { list, listOk, idsOf, expectError };
}

const queryOf = (url: string) => Object.fromEntries(new URL(url).searchParams);
const point = ([lat, lng]: LatLng) => `geoloc_lat=${lat}&geoloc_lng=${lng}`;

const GEO_PARAMS = ['geoloc', 'geoloc_lat', 'geoloc_lng', 'geoloc_radius', 'geoloc_unit'];
const ORDER_BY = ['start_date', 'end_date', 'date', 'modified', 'id'];
const ROOT_LANGUAGES = [
  ['', 'en'],
  ['/de', 'de'],
  ['/fr', 'fr'],
] as const;

/**
 * How GET /events is documented under a root: its args in the namespace index, and the names of its
 * parameters and the orderby parameter in /doc.
 */
async function documentedListArgs(app: FastifyInstance, root: string) {
  const index = await app.inject({ method: 'GET', url: `${root}/${NS}` });
  expect(index.statusCode).toBe(200);
  const endpoints = json<{ routes: Record<string, { endpoints: Array<{ methods: string[]; args: Record<string, Body> }> }> }>(index).routes[`/${NS}/events`]!
    .endpoints;
  const args = endpoints.find((e) => e.methods.includes('GET'))!.args;
  const doc = await app.inject({ method: 'GET', url: `${root}/${NS}/doc` });
  expect(doc.statusCode).toBe(200);
  const parameters = json<{ paths: Record<string, { get: { parameters: Body[] } }> }>(doc).paths['/events']!.get.parameters;
  return { args, parameters: parameters.map((p) => p.name as string), orderby: parameters.find((p) => p.name === 'orderby') };
}

describe.each(engines)('$name engine: GET /events near a point (Berlin and beyond)', (engine) => {
  let t: TestApp;
  const venues = {} as Record<PlaceName | 'unlocated' | 'draft', number>;
  const ev = {} as Record<string, number>;
  /** Event id → where its venue is (events at located, visible venues only). */
  const placeOf = new Map<number, LatLng>();
  const { list, listOk, idsOf, expectError } = clientFor(() => t.app);

  beforeAll(async () => {
    t = await openTestApp(engine);
    for (const [name, latLng] of Object.entries(PLACES) as Array<[PlaceName, LatLng]>) {
      venues[name] = await venueAt(t.app, `Venue ${name}`, latLng);
    }
    // No address: the gazetteer has nothing to go on, so it stays without coordinates.
    venues.unlocated = await createVenue(t.app, { venue: 'Hall without coordinates' });
    venues.draft = await venueAt(t.app, 'Draft hall by the TV tower', [52.5208, 13.4094], { status: 'draft' });

    const add = async (key: string, place: PlaceName | 'unlocated' | 'draft' | null, start: string, overrides: Record<string, unknown> = {}) => {
      ev[key] = await addEvent(t.app, `Event ${key}`, start, { ...(place === null ? {} : { venue: venues[place] }), ...overrides });
      if (place !== null && place !== 'unlocated' && place !== 'draft') placeOf.set(ev[key], PLACES[place]);
    };
    await add('kz1', 'konzerthaus', at(2, 19), { title: 'Jazz night at the Konzerthaus', categories: ['Jazz'], featured: true });
    await add('kz2', 'konzerthaus', at(10, 19), { title: 'Late jazz', categories: ['Jazz'] });
    await add('gt1', 'gate', at(1, 20), { title: 'Open air cinema', categories: ['Film'] });
    await add('tf1', 'tempelhof', at(3, 14), { title: 'Kite festival', featured: true });
    await add('tfPast', 'tempelhof', at(-3, 14), { title: 'Last week on the field' });
    await add('sp1', 'spandau', at(2, 18), { title: 'Citadel jazz', categories: ['Jazz'] });
    await add('pd1', 'potsdam', at(4, 11), { title: 'Summer festival in the park' });
    await add('fw1', 'fuerstenwalde', at(1, 10));
    await add('hh1', 'hamburg', at(1, 19), { title: 'Harbour festival' });
    await add('pa1', 'paris', at(1, 20));
    await add('unlocated1', 'unlocated', at(1, 9));
    await add('noVenue1', null, at(2, 9));
    await add('draft1', 'draft', at(1, 12));
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Every event carries `distance` (last key) equal to the independent computation. */
  function expectDistances(body: ListBody, unit: 'km' | 'mi', from: LatLng = ALEXANDERPLATZ) {
    for (const event of body.events) {
      const place = placeOf.get(event.id as number);
      expect(place, `event ${String(event.id)} is at a located venue`).toBeDefined();
      expect(event.distance, `distance of event ${String(event.id)}`).toBe(expectedDistance(from, place as LatLng, unit));
      expect(Object.keys(event).at(-1)).toBe('distance');
    }
  }

  it('answers "within 10 km of this point, next 7 days, nearest first" in one request, with correct distances', async () => {
    const query = `${point(ALEXANDERPLATZ)}&geoloc_radius=10&geoloc_unit=km&start_date=${dayString(0)}&end_date=${dayString(7)}&orderby=distance`;
    const body = await listOk(query);
    // kz2 is 10 days away, tfPast is over, sp1 is 13.7 km away, draft1's venue is a draft.
    expect(body.events.map((e) => e.id)).toEqual([ev.kz1, ev.gt1, ev.tf1]);
    expect([body.total, body.total_pages]).toEqual([3, 1]);
    expect([body.response.headers['x-tec-total'], body.response.headers['x-tec-totalpages']]).toEqual(['3', '1']);
    expectDistances(body, 'km');
    // Sanity against hand estimates (≈ 1.7, 2.5 and 5.5 km).
    expect(body.events.map((e) => Math.round(e.distance as number))).toEqual([2, 2, 6]);
    // The embedded venue is the one the distance is about.
    expect(body.events.map((e) => (e.venue as Body).id)).toEqual([venues.konzerthaus, venues.gate, venues.tempelhof]);
    const distances = body.events.map((e) => e.distance as number);
    expect([...distances].sort((a, b) => a - b)).toEqual(distances);
  });

  it('uses the default radius of 25 miles, and reports miles by default', async () => {
    const body = await listOk(`${point(ALEXANDERPLATZ)}&orderby=distance`);
    // Potsdam (≈ 28.5 km) is inside 25 mi (40.2 km); Fürstenwalde (≈ 47 km) is not.
    expect(body.events.map((e) => e.id)).toEqual([ev.kz1, ev.kz2, ev.gt1, ev.tf1, ev.sp1, ev.pd1]);
    expectDistances(body, 'mi');
    expect(greatCircleKm(ALEXANDERPLATZ, PLACES.potsdam)).toBeLessThan(25 * KM_PER_MILE);
    expect(greatCircleKm(ALEXANDERPLATZ, PLACES.fuerstenwalde)).toBeGreaterThan(25 * KM_PER_MILE);
    // Explicit 25 mi is the same.
    expect(await idsOf(`${point(ALEXANDERPLATZ)}&orderby=distance&geoloc_radius=25&geoloc_unit=mi`)).toEqual(body.events.map((e) => e.id));
  });

  it('reads the radius and reports distances in geoloc_unit: 10 km vs 10 mi', async () => {
    const km = await listOk(`${point(ALEXANDERPLATZ)}&orderby=distance&geoloc_radius=10&geoloc_unit=km`);
    const mi = await listOk(`${point(ALEXANDERPLATZ)}&orderby=distance&geoloc_radius=10`);
    expect(km.events.map((e) => e.id)).toEqual([ev.kz1, ev.kz2, ev.gt1, ev.tf1]);
    // Spandau (≈ 13.7 km ≈ 8.5 mi) is only within 10 mi.
    expect(mi.events.map((e) => e.id)).toEqual([ev.kz1, ev.kz2, ev.gt1, ev.tf1, ev.sp1]);
    expectDistances(km, 'km');
    expectDistances(mi, 'mi');
    for (const [i, event] of km.events.entries()) {
      expect(mi.events[i]?.distance as number).toBeCloseTo((event.distance as number) / KM_PER_MILE, 1);
      expect(mi.events[i]?.distance as number).toBeLessThan(event.distance as number);
    }
    // 25 km leaves Potsdam out, 25 mi keeps it.
    expect(await idsOf(`${point(ALEXANDERPLATZ)}&orderby=distance&geoloc_radius=25&geoloc_unit=km`)).toEqual([ev.kz1, ev.kz2, ev.gt1, ev.tf1, ev.sp1]);
  });

  it('filters by the point without orderby=distance: start-date order, the same set', async () => {
    const body = await listOk(`${point(ALEXANDERPLATZ)}&geoloc_radius=10&geoloc_unit=km`);
    expect(body.events.map((e) => e.id)).toEqual([ev.gt1, ev.kz1, ev.tf1, ev.kz2]);
    expect(body.total).toBe(4);
  });

  it('accepts a radius up to 500 and finds far venues with it; a tiny radius finds nothing', async () => {
    const far = await listOk(`${point(ALEXANDERPLATZ)}&orderby=distance&geoloc_radius=500&geoloc_unit=km`);
    expect(far.events.map((e) => e.id)).toEqual([ev.kz1, ev.kz2, ev.gt1, ev.tf1, ev.sp1, ev.pd1, ev.fw1, ev.hh1]);
    expectDistances(far, 'km');
    const paris = await listOk(`${point(ALEXANDERPLATZ)}&orderby=distance&geoloc_radius=500`);
    // 500 mi ≈ 805 km: Paris (≈ 880 km) is still out.
    expect(paris.events.map((e) => e.id)).not.toContain(ev.pa1);
    const none = await listOk(`${point(ALEXANDERPLATZ)}&orderby=distance&geoloc_radius=0.5&geoloc_unit=km`);
    expect([none.events, none.total, none.total_pages]).toEqual([[], 0, 0]);
  });

  it('searches around any point: from Paris, nearest first', async () => {
    const opera: LatLng = [48.8708, 2.3322];
    const body = await listOk(`${point(opera)}&orderby=distance&geoloc_radius=5&geoloc_unit=km`);
    expect(body.events.map((e) => e.id)).toEqual([ev.pa1]);
    expectDistances(body, 'km', opera);
    expect(body.events[0]?.distance).toBe(0.14);
  });

  it('orders farthest first with order=desc (events of one venue by start date, descending)', async () => {
    const body = await listOk(`${point(ALEXANDERPLATZ)}&orderby=distance&order=desc`);
    expect(body.events.map((e) => e.id)).toEqual([ev.pd1, ev.sp1, ev.tf1, ev.gt1, ev.kz2, ev.kz1]);
    expectDistances(body, 'mi');
    expect(queryOf(body.rest_url).order).toBe('desc');
  });

  it('combines with categories, featured, search and the date filters', async () => {
    const base = `${point(ALEXANDERPLATZ)}&orderby=distance`;
    const jazz = await listOk(`${base}&categories=jazz`);
    expect(jazz.events.map((e) => e.id)).toEqual([ev.kz1, ev.kz2, ev.sp1]);
    expect(jazz.total).toBe(3);
    expectDistances(jazz, 'mi');
    expect(await idsOf(`${base}&categories=jazz&geoloc_radius=10&geoloc_unit=km`)).toEqual([ev.kz1, ev.kz2]);
    expect(await idsOf(`${base}&categories=jazz&end_date=${dayString(7)}`)).toEqual([ev.kz1, ev.sp1]);
    expect(await idsOf(`${base}&featured=true`)).toEqual([ev.kz1, ev.tf1]);
    expect(await idsOf(`${base}&featured=false`)).toEqual([ev.kz2, ev.gt1, ev.sp1, ev.pd1]);
    // "Harbour festival" matches the words but Hamburg is outside the radius.
    const festival = await listOk(`${base}&search=festival`);
    expect(festival.events.map((e) => e.id)).toEqual([ev.tf1, ev.pd1]);
    expect(festival.total).toBe(2);
    expectDistances(festival, 'mi');
    expect(await idsOf(`${point(ALEXANDERPLATZ)}&geoloc_radius=500&geoloc_unit=km&orderby=distance&search=festival`)).toEqual([ev.tf1, ev.pd1, ev.hh1]);
    expect(await idsOf(`${base}&search=festival&featured=true&categories=jazz`)).toEqual([]);
    expect(await idsOf(`${base}&venue=${venues.spandau},${venues.paris}`)).toEqual([ev.sp1]);
  });

  it('geoloc=true: only events whose venue has coordinates; events without a venue are left out', async () => {
    const located = await listOk('geoloc=true&per_page=50');
    expect(located.events.map((e) => e.id)).toEqual([ev.fw1, ev.hh1, ev.gt1, ev.pa1, ev.sp1, ev.kz1, ev.tf1, ev.pd1, ev.kz2]);
    expect(located.total).toBe(9);
    expect(await idsOf('geoloc=1&per_page=50')).toEqual(located.events.map((e) => e.id));
    for (const event of located.events) {
      expect(event.venue).toMatchObject({ geo_lat: expect.any(Number), geo_lng: expect.any(Number) });
    }
    // Combines with other filters.
    expect(await idsOf('geoloc=true&categories=jazz')).toEqual([ev.sp1, ev.kz1, ev.kz2]);
  });

  it('geoloc=false: only events without a venue or whose venue has no coordinates', async () => {
    // draft1's venue is a draft: anonymous callers do not see it (its event shows no venue).
    const body = await listOk('geoloc=false&per_page=50');
    expect(body.events.map((e) => e.id)).toEqual([ev.unlocated1, ev.draft1, ev.noVenue1]);
    expect(body.events.map((e) => e.venue)).toEqual([expect.objectContaining({ id: venues.unlocated }), [], []]);
    expect(body.events[0]?.venue).not.toHaveProperty('geo_lat');
    expect(await idsOf('geoloc=0&per_page=50')).toEqual([ev.unlocated1, ev.draft1, ev.noVenue1]);
    // Token holders see the draft venue and its coordinates.
    expect(await idsOf('geoloc=false&per_page=50', EDITOR)).toEqual([ev.unlocated1, ev.noVenue1]);
    expect(await idsOf('geoloc=true&per_page=50', EDITOR)).toContain(ev.draft1);
  });

  it('ignores a draft venue near the point for anonymous callers, counts it for token holders', async () => {
    const query = `${point(ALEXANDERPLATZ)}&orderby=distance&geoloc_radius=1&geoloc_unit=km`;
    const anonymous = await listOk(query);
    expect([anonymous.events, anonymous.total]).toEqual([[], 0]);
    for (const headers of [EDITOR, VIEWER]) {
      const body = await listOk(query, headers);
      expect(body.events.map((e) => e.id)).toEqual([ev.draft1]);
      expect(body.total).toBe(1);
      expect(body.events[0]?.distance).toBe(expectedDistance(ALEXANDERPLATZ, [52.5208, 13.4094], 'km'));
      expect(body.events[0]?.venue).toMatchObject({ id: venues.draft, status: 'draft' });
    }
    const wider = await listOk(`${point(ALEXANDERPLATZ)}&orderby=distance&geoloc_radius=10&geoloc_unit=km`, EDITOR);
    expect(wider.events.map((e) => e.id)).toEqual([ev.draft1, ev.kz1, ev.kz2, ev.gt1, ev.tf1]);
  });

  it('echoes the effective geoloc parameters in rest_url', async () => {
    const body = await listOk(`${point(ALEXANDERPLATZ)}&geoloc_radius=10&geoloc_unit=km&orderby=distance`);
    expect(queryOf(body.rest_url)).toMatchObject({
      geoloc_lat: '52.5219',
      geoloc_lng: '13.4132',
      geoloc_radius: '10',
      geoloc_unit: 'km',
      orderby: 'distance',
    });
    // The defaults are echoed as what was applied.
    const defaults = queryOf((await listOk(point(ALEXANDERPLATZ))).rest_url);
    expect(defaults).toMatchObject({ geoloc_lat: '52.5219', geoloc_lng: '13.4132', geoloc_radius: '25', geoloc_unit: 'mi' });
    expect(defaults).not.toHaveProperty('orderby');
    expect(queryOf((await listOk('geoloc=true')).rest_url)).toMatchObject({ geoloc: '1' });
    expect(queryOf((await listOk('geoloc=false')).rest_url)).toMatchObject({ geoloc: '0' });
    // rest_url answers the same request.
    const again = await listOk(new URL(body.rest_url).search.slice(1));
    expect(again.events.map((e) => e.id)).toEqual(body.events.map((e) => e.id));
    expect(again.events.map((e) => e.distance)).toEqual(body.events.map((e) => e.distance));
  });

  describe('validation', () => {
    it.each(['0', '-1', '501', 'abc', '500.5'])('refuses geoloc_radius=%s naming geoloc_radius', async (radius) => {
      await expectError(`${point(ALEXANDERPLATZ)}&geoloc_radius=${radius}`, 'rest_invalid_param', 'geoloc_radius');
    });

    it('accepts geoloc_radius=500 and fractions', async () => {
      await listOk(`${point(ALEXANDERPLATZ)}&geoloc_radius=500`);
      await listOk(`${point(ALEXANDERPLATZ)}&geoloc_radius=0.25`);
    });

    it.each(['ft', 'miles', 'KM', ''])('refuses geoloc_unit=%j naming geoloc_unit', async (unit) => {
      await expectError(`${point(ALEXANDERPLATZ)}&geoloc_unit=${unit}`, 'rest_invalid_param', 'geoloc_unit');
    });

    it('needs both coordinates: one alone is 400 rest_missing_callback_param naming the other', async () => {
      const latOnly = await expectError('geoloc_lat=52.52', 'rest_missing_callback_param', 'geoloc_lng');
      expect(latOnly.message).toBe('Missing parameter(s): geoloc_lng');
      await expectError('geoloc_lng=13.41', 'rest_missing_callback_param', 'geoloc_lat');
      await expectError('geoloc=true&geoloc_lng=13.41&orderby=distance', 'rest_missing_callback_param', 'geoloc_lat');
    });

    it.each([
      ['geoloc_lat', 'geoloc_lat=90.5&geoloc_lng=13'],
      ['geoloc_lat', 'geoloc_lat=-91&geoloc_lng=13'],
      ['geoloc_lng', 'geoloc_lat=52&geoloc_lng=180.01'],
      ['geoloc_lng', 'geoloc_lat=52&geoloc_lng=-181'],
      ['geoloc_lat', 'geoloc_lat=north&geoloc_lng=13'],
      ['geoloc_lng', 'geoloc_lat=52&geoloc_lng=east'],
    ])('refuses a bad %s (%s)', async (param, query) => {
      await expectError(query, 'rest_invalid_param', param);
    });

    it('names both coordinates when both are out of range', async () => {
      const body = await expectError('geoloc_lat=100&geoloc_lng=200', 'rest_invalid_param', 'geoloc_lat');
      expect(Object.keys(body.data.params ?? {}).sort()).toEqual(['geoloc_lat', 'geoloc_lng']);
    });

    it('accepts the range bounds', async () => {
      for (const query of ['geoloc_lat=90&geoloc_lng=180', 'geoloc_lat=-90&geoloc_lng=-180', 'geoloc_lat=0&geoloc_lng=0']) {
        const body = await listOk(`${query}&orderby=distance`);
        expect(body.events).toEqual([]);
      }
    });

    it('refuses orderby=distance without a point, naming orderby', async () => {
      await expectError('orderby=distance', 'rest_invalid_param', 'orderby');
      await expectError('orderby=distance&geoloc=true', 'rest_invalid_param', 'orderby');
      await expectError('orderby=distance&geoloc_radius=10', 'rest_invalid_param', 'orderby');
    });

    it('reports every invalid parameter of the request together', async () => {
      const response = await list(`${point(ALEXANDERPLATZ)}&geoloc_radius=0&geoloc_unit=ft&orderby=distance`);
      expect(response.statusCode).toBe(400);
      expect(Object.keys(json<ErrorBody>(response).data.params ?? {}).sort()).toEqual(['geoloc_radius', 'geoloc_unit']);
    });
  });
});

describe.each(engines)('$name engine: orderby=distance ties and paging', (engine) => {
  let t: TestApp;
  const { list, listOk, idsOf } = clientFor(() => t.app);
  const shared = sharedTestApp(engine);
  beforeEach(async () => {
    t = await shared.fresh();
  });
  afterAll(() => shared.close());

  it('interleaves the events of venues at the same coordinates by start date, then id', async () => {
    const marienplatz: LatLng = [48.1374, 11.5755];
    const from: LatLng = [48.137, 11.575];
    const near = await venueAt(t.app, 'Right here', from);
    const a = await venueAt(t.app, 'Twin hall A', marienplatz);
    const b = await venueAt(t.app, 'Twin hall B', marienplatz);
    const farther = await venueAt(t.app, 'Hofbräuhaus', [48.1376, 11.5799]);
    const a1 = await addEvent(t.app, 'A1', at(1, 10), { venue: a });
    const b1 = await addEvent(t.app, 'B1', at(1, 11), { venue: b });
    const a2 = await addEvent(t.app, 'A2', at(1, 12), { venue: a });
    const b2 = await addEvent(t.app, 'B2', at(1, 12), { venue: b }); // same start as A2, higher id
    const b3 = await addEvent(t.app, 'B3', at(1, 13), { venue: b });
    const a3 = await addEvent(t.app, 'A3', at(1, 13), { venue: a }); // same start as B3, higher id
    const n1 = await addEvent(t.app, 'N1', at(5, 10), { venue: near });
    const f1 = await addEvent(t.app, 'F1', at(0, 23), { venue: farther });

    const body = await listOk(`${point(from)}&orderby=distance&geoloc_unit=km&geoloc_radius=2`);
    expect(body.events.map((e) => e.id)).toEqual([n1, a1, b1, a2, b2, b3, a3, f1]);
    const twin = expectedDistance(from, marienplatz, 'km');
    expect(body.events.map((e) => e.distance)).toEqual([0, twin, twin, twin, twin, twin, twin, expectedDistance(from, [48.1376, 11.5799], 'km')]);
    // Paging cuts through the tie group consistently.
    const pages = [];
    for (let page = 1; page <= 3; page += 1)
      pages.push(...(await idsOf(`${point(from)}&orderby=distance&geoloc_unit=km&geoloc_radius=2&per_page=3&page=${page}`)));
    expect(pages).toEqual([n1, a1, b1, a2, b2, b3, a3, f1]);
    // Descending: everything reversed, ties by start date then id, both descending.
    expect(await idsOf(`${point(from)}&orderby=distance&order=desc&geoloc_unit=km&geoloc_radius=2`)).toEqual([f1, a3, b3, b2, a2, b1, a1, n1]);
  });

  it('leaves password-protected events out for whoever could not read them in full, unless they send the password', async () => {
    const hall = await venueAt(t.app, 'Konzerthaus', PLACES.konzerthaus);
    const open = await addEvent(t.app, 'Open concert', at(1, 19), { venue: hall });
    const secret = await addEvent(t.app, 'Secret concert', at(2, 19), { venue: hall });
    const locked = await t.app.inject({ method: 'PATCH', url: `${API}/events/${secret}`, headers: EDITOR, payload: { password: 'hunter2' } });
    expect(locked.statusCode, locked.body).toBe(200);
    const query = `${point(ALEXANDERPLATZ)}&geoloc_radius=5&geoloc_unit=km&orderby=distance`;
    // The venue of a protected event is hidden from them: matching on its location would reveal it.
    expect(await idsOf(query)).toEqual([open]);
    expect(await idsOf('geoloc=true')).toEqual([open]);
    const unlocked = await listOk(`${query}&password=hunter2`);
    expect(unlocked.events.map((e) => e.id)).toEqual([open, secret]);
    expect(unlocked.events.map((e) => e.distance)).toEqual([0, 0].map(() => expectedDistance(ALEXANDERPLATZ, PLACES.konzerthaus, 'km')));
    // A token alone does not read it in full; an editor asking context=edit does.
    expect(await idsOf(query, EDITOR)).toEqual([open]);
    expect(await idsOf(`${query}&context=edit`, EDITOR)).toEqual([open, secret]);
    // Without a geoloc filter the protected event is listed (redacted).
    expect(await idsOf('')).toEqual([open, secret]);
  });

  it('pages consistently: per_page 2 over 5 events at 3 venues, totals, next_rest_url, past the end → 404', async () => {
    const opera: LatLng = [48.8708, 2.3322];
    const x = await venueAt(t.app, 'Palais Garnier', [48.872, 2.3317]);
    const y = await venueAt(t.app, 'Le Louvre', [48.8606, 2.3376]);
    const z = await venueAt(t.app, 'Notre-Dame', [48.853, 2.3499]);
    await venueAt(t.app, 'Empty hall', [48.871, 2.332]); // near, but no events: not counted
    const z1 = await addEvent(t.app, 'Z1', at(1, 9), { venue: z });
    const y2 = await addEvent(t.app, 'Y2', at(2, 9), { venue: y });
    const x1 = await addEvent(t.app, 'X1', at(3, 9), { venue: x });
    const y1 = await addEvent(t.app, 'Y1', at(1, 18), { venue: y });
    const y3 = await addEvent(t.app, 'Y3', at(4, 9), { venue: y });
    await addEvent(t.app, 'Far away', at(1, 9), { venue: await venueAt(t.app, 'Versailles', [48.8049, 2.1204]) });
    const base = `${point(opera)}&geoloc_radius=5&geoloc_unit=km&orderby=distance`;
    const all = [x1, y1, y2, y3, z1];

    const full = await listOk(`${base}&per_page=50`);
    expect(full.events.map((e) => e.id)).toEqual(all);
    const expected = new Map<number, LatLng>([
      [x1, [48.872, 2.3317]],
      [y1, [48.8606, 2.3376]],
      [y2, [48.8606, 2.3376]],
      [y3, [48.8606, 2.3376]],
      [z1, [48.853, 2.3499]],
    ]);
    for (const event of full.events) expect(event.distance).toBe(expectedDistance(opera, expected.get(event.id as number) as LatLng, 'km'));

    const seen: number[] = [];
    let url: string | undefined = `${API}/events?${base}&per_page=2`;
    const pageSizes: number[] = [];
    while (url !== undefined) {
      const response: LightMyRequestResponse = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode, response.body).toBe(200);
      const body: ListBody = json<ListBody>(response);
      expect([body.total, body.total_pages]).toEqual([5, 3]);
      expect([response.headers['x-tec-total'], response.headers['x-tec-totalpages']]).toEqual(['5', '3']);
      for (const event of body.events) expect(event.distance).toBe(full.events.find((e) => e.id === event.id)?.distance);
      seen.push(...body.events.map((e) => e.id as number));
      pageSizes.push(body.events.length);
      expect(queryOf(body.rest_url)).toMatchObject({ orderby: 'distance', geoloc_radius: '5', geoloc_unit: 'km', per_page: '2' });
      const next = body.next_rest_url === undefined ? undefined : new URL(body.next_rest_url);
      url = next === undefined ? undefined : `${next.pathname}${next.search}`;
    }
    expect(seen).toEqual(all);
    expect(pageSizes).toEqual([2, 2, 1]);

    const page2 = await listOk(`${base}&per_page=2&page=2`);
    expect(page2.events.map((e) => e.id)).toEqual([y2, y3]);
    expect(queryOf(page2.previous_rest_url as string)).not.toHaveProperty('page');
    const page3 = await listOk(`${base}&per_page=2&page=3`);
    expect(page3.events.map((e) => e.id)).toEqual([z1]);
    expect(page3.next_rest_url).toBeUndefined();

    const past = await list(`${base}&per_page=2&page=4`);
    expect(past.statusCode).toBe(404);
    expect(json<ErrorBody>(past).code).toBe('event-archive-page-not-found');

    // Descending pages mirror the ascending ones.
    const desc: number[] = [];
    for (let page = 1; page <= 3; page += 1) desc.push(...(await idsOf(`${base}&order=desc&per_page=2&page=${page}`)));
    expect(desc).toEqual([...all].reverse());
  });
});

describe.each(engines)('$name engine: GEOLOC_ENABLED=false', (engine) => {
  let t: TestApp;
  const ids: number[] = [];
  const { listOk } = clientFor(() => t.app);
  beforeAll(async () => {
    t = await openTestApp(engine, { GEOLOC_ENABLED: 'false' });
    const berlin = await venueAt(t.app, 'Konzerthaus', PLACES.konzerthaus);
    const paris = await venueAt(t.app, 'Palais Garnier', PLACES.paris);
    const unlocated = await createVenue(t.app, { venue: 'Hall without coordinates' });
    ids.push(await addEvent(t.app, 'In Paris', at(1, 9), { venue: paris }));
    ids.push(await addEvent(t.app, 'Without venue', at(1, 10)));
    ids.push(await addEvent(t.app, 'In Berlin', at(2, 9), { venue: berlin }));
    ids.push(await addEvent(t.app, 'Somewhere', at(3, 9), { venue: unlocated }));
    // Password-protected, in Berlin: listed (redacted) to anonymous callers like any other.
    const secret = await addEvent(t.app, 'Secret gig', at(4, 9), { venue: berlin });
    const locked = await t.app.inject({ method: 'PATCH', url: `${API}/events/${secret}`, headers: EDITOR, payload: { password: 'hunter2' } });
    expect(locked.statusCode, locked.body).toBe(200);
    ids.push(secret);
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each([
    ['a point and a radius', `${point(ALEXANDERPLATZ)}&geoloc_radius=1&geoloc_unit=km`],
    ['a point with order=desc', `${point(ALEXANDERPLATZ)}&order=desc`],
    ['geoloc=true', 'geoloc=true'],
    ['geoloc=false', 'geoloc=false'],
    ['geoloc_lat alone', 'geoloc_lat=52.52'],
    ['out-of-range coordinates', 'geoloc_lat=100&geoloc_lng=200'],
  ])('ignores %s: the same result as without them, no distance', async (_name, query) => {
    const plain = await listOk('');
    expect(plain.events.map((e) => e.id)).toEqual(ids);
    const body = await listOk(query);
    const desc = query.includes('order=desc');
    expect(body.events.map((e) => e.id)).toEqual(desc ? [...ids].reverse() : ids);
    expect(body.total).toBe(plain.total);
    for (const event of body.events) expect(event).not.toHaveProperty('distance');
  });

  it.each([
    ['without a point', 'orderby=distance'],
    ['with a point', `${point(ALEXANDERPLATZ)}&orderby=distance`],
    ['with order=desc', 'orderby=distance&order=desc'],
  ])('refuses orderby=distance %s: 400 rest_invalid_param naming orderby', async (_name, query) => {
    const response = await t.app.inject({ method: 'GET', url: `${API}/events?${query}` });
    expect(response.statusCode, response.body).toBe(400);
    expect(json<ErrorBody>(response)).toMatchObject({
      code: 'rest_invalid_param',
      data: { status: 400, params: { orderby: 'orderby=distance needs geolocation, which is turned off on this server.' } },
    });
  });

  it.each(ROOT_LANGUAGES)('leaves the geolocation parameters and orderby=distance out of the index and /doc under "%s"', async (root, language) => {
    const documented = await documentedListArgs(t.app, root);
    for (const name of GEO_PARAMS) expect(documented.args, name).not.toHaveProperty(name);
    expect(documented.args.orderby).toMatchObject({ enum: ORDER_BY, description: MESSAGES[language]['eventList.orderby_without_geolocation'] });
    expect(documented.parameters.filter((name) => GEO_PARAMS.includes(name))).toEqual([]);
    expect(documented.orderby).toEqual({
      name: 'orderby',
      in: 'query',
      description: MESSAGES[language]['eventList.orderby_without_geolocation'],
      required: false,
      schema: { type: 'string', enum: ORDER_BY },
    });
    // The rest is documented as with geolocation on, the computed defaults of the window included.
    expect(documented.parameters).toEqual(expect.arrayContaining(['order', 'start_date', 'featured', 'search']));
    expect(documented.args.start_date).toHaveProperty('default', expect.any(String));
  });
});

describe.each(engines)('$name engine: GEOLOC_ENABLED=true (the default) documents geolocation', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(ROOT_LANGUAGES)('lists the geolocation parameters and orderby=distance in the index and /doc under "%s"', async (root, language) => {
    const documented = await documentedListArgs(t.app, root);
    for (const name of GEO_PARAMS) expect(documented.args, name).toHaveProperty(name);
    expect(documented.args.orderby).toMatchObject({ enum: [...ORDER_BY, 'distance'], description: MESSAGES[language]['eventList.orderby'] });
    expect(documented.parameters).toEqual(expect.arrayContaining(GEO_PARAMS));
    expect(documented.orderby).toMatchObject({
      description: MESSAGES[language]['eventList.orderby'],
      schema: { type: 'string', enum: [...ORDER_BY, 'distance'] },
    });
  });
});
