/**
 * Venue coordinates over HTTP (issue "events near me", parts 1 and 2): `geo_lat` /
 * `geo_lng` on venue writes and on new venues inside event writes, stored as a GeoJSON point,
 * returned with `geo_source`; and the offline gazetteer filling coordinates from an address, on
 * every engine.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type LightMyRequestResponse } from 'fastify';
import { API, EDITOR, type TestApp, countAll, createEvent, createEventOk, json, snapshot } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';
import { sharedTestApp } from '../helpers/shared-app.js';

const { engines } = await routeEnginesUnderTest();

type Body = Record<string, unknown>;
type ErrorBody = { code: string; message: string; data: { status: number; params?: Record<string, string> } };

const DAY = 86_400_000;
const wall = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
/** Start and end of an event `days` from now (two hours long). */
const later = (days: number) => ({ start_date: wall(Date.now() + days * DAY), end_date: wall(Date.now() + days * DAY + 7_200_000) });

/** Berlin city centre per GeoNames, what the gazetteer answers for "Berlin, Germany". */
const BERLIN = { lat: 52.52, lng: 13.405 };

describe.each(engines)('$name engine: venue coordinates', (engine) => {
  let t: TestApp;
  const shared = sharedTestApp(engine);
  beforeEach(async () => {
    t = await shared.fresh();
  });
  afterAll(() => shared.close());

  const write = (method: 'POST' | 'PUT' | 'PATCH', path: string, payload: Body) => t.app.inject({ method, url: `${API}${path}`, headers: EDITOR, payload });
  const ok = async (response: LightMyRequestResponse, status = 200): Promise<Body> => {
    expect(response.statusCode, response.body).toBe(status);
    return json(response);
  };
  const createVenue = async (body: Body) => ok(await write('POST', '/venues', body), 201);
  const updateVenue = async (id: unknown, body: Body, method: 'POST' | 'PUT' | 'PATCH' = 'PATCH') => ok(await write(method, `/venues/${id as number}`, body));
  const readVenue = async (id: unknown) => ok(await t.app.inject({ method: 'GET', url: `${API}/venues/${id as number}` }));
  const stored = async (id: unknown) => t.storage.venues.findById(id as number);
  const expectRefused = async (path: string, body: Body, params: string[], method: 'POST' | 'PATCH' = 'POST') => {
    const before = await snapshot(t.storage);
    const response = await write(method, path, body);
    expect(response.statusCode, response.body).toBe(400);
    const error = json<ErrorBody>(response);
    expect(error.code).toBe('rest_invalid_param');
    expect(Object.keys(error.data.params ?? {}).sort()).toEqual([...params].sort());
    expect(await snapshot(t.storage)).toEqual(before);
    return error;
  };
  const expectNoCoordinates = (body: Body) => {
    for (const key of ['geo_lat', 'geo_lng', 'geo_source']) expect(body).not.toHaveProperty(key);
  };
  const expectNear = (body: Body, lat: number, lng: number, source: 'provided' | 'gazetteer', digits = 2) => {
    expect(body.geo_lat as number).toBeCloseTo(lat, digits);
    expect(body.geo_lng as number).toBeCloseTo(lng, digits);
    expect(body.geo_source).toBe(source);
  };

  describe('geo_lat / geo_lng on venue writes', () => {
    it.each<[string, Body, number, number]>([
      ['numbers', { geo_lat: 52.5163, geo_lng: 13.3777 }, 52.5163, 13.3777],
      ['numeric strings', { geo_lat: '52.5163', geo_lng: '13.3777' }, 52.5163, 13.3777],
      ['a number and a string', { geo_lat: -33.8568, geo_lng: '151.2153' }, -33.8568, 151.2153],
      ['integers and negative zero', { geo_lat: '0', geo_lng: -0 }, 0, 0],
      ['the bounds', { geo_lat: -90, geo_lng: '180' }, -90, 180],
    ])('stores %s as a GeoJSON point and returns them with geo_source "provided"', async (_name, coordinates, lat, lng) => {
      const created = await createVenue({ venue: 'Geo hall', ...coordinates });
      expect(created).toMatchObject({ geo_lat: lat, geo_lng: lng, geo_source: 'provided' });
      expect(Object.keys(created).slice(-3)).toEqual(['geo_lat', 'geo_lng', 'geo_source']);
      const doc = await stored(created.id);
      expect(doc?.location).toEqual({ type: 'Point', coordinates: [lng, lat] });
      expect(doc?.geoSource).toBe('provided');
      // Returned on reads and in lists too.
      expect(await readVenue(created.id)).toMatchObject({ geo_lat: lat, geo_lng: lng, geo_source: 'provided' });
      const list = await ok(await t.app.inject({ method: 'GET', url: `${API}/venues` }));
      expect((list.venues as Body[])[0]).toMatchObject({ id: created.id, geo_lat: lat, geo_lng: lng, geo_source: 'provided' });
    });

    it('needs both: one alone is 400 naming the missing one, and nothing is created', async () => {
      await expectRefused('/venues', { venue: 'Half hall', geo_lat: 52.5 }, ['geo_lng']);
      await expectRefused('/venues', { venue: 'Half hall', geo_lng: '13.4' }, ['geo_lat']);
      expect((await countAll(t.storage)).venues).toBe(0);
    });

    it.each<[string, Body, string[]]>([
      ['latitude above 90', { geo_lat: 90.0001, geo_lng: 0 }, ['geo_lat']],
      ['latitude below -90', { geo_lat: '-90.5', geo_lng: 0 }, ['geo_lat']],
      ['longitude above 180', { geo_lat: 0, geo_lng: 180.5 }, ['geo_lng']],
      ['longitude below -180', { geo_lat: 0, geo_lng: '-200' }, ['geo_lng']],
      ['both out of range', { geo_lat: 91, geo_lng: 181 }, ['geo_lat', 'geo_lng']],
      ['words', { geo_lat: 'north', geo_lng: 'east' }, ['geo_lat', 'geo_lng']],
      ['a number with a unit', { geo_lat: '52.5°', geo_lng: 13 }, ['geo_lat']],
      ['one empty string', { geo_lat: '', geo_lng: 13 }, ['geo_lat']],
    ])('refuses %s', async (_name, coordinates, params) => {
      await expectRefused('/venues', { venue: 'Bad geo hall', ...coordinates }, params);
    });

    it('refuses bad coordinates on update and keeps the stored ones', async () => {
      const created = await createVenue({ venue: 'Steady hall', geo_lat: 10, geo_lng: 20 });
      await expectRefused(`/venues/${created.id as number}`, { geo_lat: 95, geo_lng: 20 }, ['geo_lat'], 'PATCH');
      await expectRefused(`/venues/${created.id as number}`, { geo_lng: 21 }, ['geo_lat'], 'PATCH');
      expect(await readVenue(created.id)).toMatchObject({ geo_lat: 10, geo_lng: 20, geo_source: 'provided' });
    });

    it('clears the coordinates with "" for both (POST, PUT and PATCH)', async () => {
      for (const method of ['POST', 'PUT', 'PATCH'] as const) {
        const created = await createVenue({ venue: `Clear hall ${method}`, geo_lat: 1.5, geo_lng: 2.5 });
        const cleared = await updateVenue(created.id, { geo_lat: '', geo_lng: '' }, method);
        expectNoCoordinates(cleared);
        expectNoCoordinates(await readVenue(created.id));
        const doc = await stored(created.id);
        expect(doc?.location).toBeNull();
        expect(doc?.geoSource).toBeNull();
      }
    });

    it('moves a venue to new provided coordinates; other updates keep them', async () => {
      const created = await createVenue({ venue: 'Moving hall', geo_lat: 1, geo_lng: 2 });
      expect(await updateVenue(created.id, { geo_lat: '48.8566', geo_lng: 2.3522 })).toMatchObject({
        geo_lat: 48.8566,
        geo_lng: 2.3522,
        geo_source: 'provided',
      });
      expect(await updateVenue(created.id, { phone: '+33 1 23 45 67 89', venue: 'Moved hall' })).toMatchObject({
        geo_lat: 48.8566,
        geo_lng: 2.3522,
        geo_source: 'provided',
      });
    });
  });

  describe('offline gazetteer (geo_source "gazetteer")', () => {
    it('fills coordinates from city + country: Berlin, Germany ≈ 52.52, 13.40', async () => {
      const created = await createVenue({ venue: 'Berlin hall', address: 'Alexanderplatz 1', city: 'Berlin', country: 'Germany' });
      expectNear(created, BERLIN.lat, BERLIN.lng, 'gazetteer', 1);
      expect(Object.keys(created).slice(-3)).toEqual(['geo_lat', 'geo_lng', 'geo_source']);
      const doc = await stored(created.id);
      expect(doc?.geoSource).toBe('gazetteer');
      expect(doc?.location).toEqual({ type: 'Point', coordinates: [created.geo_lng, created.geo_lat] });
      expect(await readVenue(created.id)).toMatchObject({ geo_lat: created.geo_lat, geo_lng: created.geo_lng, geo_source: 'gazetteer' });
    });

    it('fills coordinates from a US ZIP code', async () => {
      const created = await createVenue({ venue: 'Chelsea hall', address: '1 W 29th St', zip: '10001', state: 'NY', country: 'United States' });
      expectNear(created, 40.748, -73.997, 'gazetteer', 2);
      const zipOnly = await createVenue({ venue: 'Mission hall', zip: '94103' });
      expectNear(zipOnly, 37.77, -122.41, 'gazetteer', 1);
    });

    it('leaves an unknown place without coordinates and without geo_source', async () => {
      for (const fields of [
        { city: 'Xqzzyville', country: 'Germany' },
        { city: 'Berlin', country: 'Atlantis' },
        { address: '12 Nowhere Lane' },
        { city: 'Paris' }, // in many countries: no guess without one
      ]) {
        const created = await createVenue({ venue: `Unknown ${JSON.stringify(fields)}`, ...fields });
        expectNoCoordinates(created);
        const doc = await stored(created.id);
        expect(doc?.location ?? null).toBeNull();
        expect(doc?.geoSource ?? null).toBeNull();
      }
    });

    it('never replaces provided coordinates, even when they disagree with the address', async () => {
      const created = await createVenue({ venue: 'Pinned hall', city: 'Berlin', country: 'Germany', geo_lat: 48.2082, geo_lng: 16.3738 });
      expect(created).toMatchObject({ geo_lat: 48.2082, geo_lng: 16.3738, geo_source: 'provided' });
    });

    it('moves a gazetteer-located venue when its city changes, and drops the guess for an unknown place', async () => {
      const created = await createVenue({ venue: 'Touring hall', city: 'Berlin', country: 'Germany' });
      expectNear(created, BERLIN.lat, BERLIN.lng, 'gazetteer', 1);
      const hamburg = await updateVenue(created.id, { city: 'Hamburg' });
      expectNear(hamburg, 53.55, 9.99, 'gazetteer', 1);
      const lyon = await updateVenue(created.id, { city: 'Lyon', country: 'France' }, 'PUT');
      expectNear(lyon, 45.75, 4.85, 'gazetteer', 1);
      // An unrelated update keeps the guess.
      expectNear(await updateVenue(created.id, { phone: '+33 4 00 00 00 00' }), 45.75, 4.85, 'gazetteer', 1);
      const nowhere = await updateVenue(created.id, { city: 'Xqzzyville' });
      expectNoCoordinates(nowhere);
      expect((await stored(created.id))?.location).toBeNull();
      // And back to a known place.
      expectNear(await updateVenue(created.id, { city: 'Potsdam', country: 'DE' }), 52.4, 13.07, 'gazetteer', 1);
    });

    it('keeps provided coordinates when the city of the venue changes', async () => {
      const created = await createVenue({ venue: 'Anchored hall', city: 'Berlin', country: 'Germany', geo_lat: '52.5163', geo_lng: '13.3777' });
      const moved = await updateVenue(created.id, { city: 'Hamburg' });
      expect(moved).toMatchObject({ city: 'Hamburg', geo_lat: 52.5163, geo_lng: 13.3777, geo_source: 'provided' });
      expect(await updateVenue(created.id, { city: 'Xqzzyville' })).toMatchObject({ geo_lat: 52.5163, geo_lng: 13.3777, geo_source: 'provided' });
    });

    it('turns a gazetteer guess into provided coordinates when the caller sends some', async () => {
      const created = await createVenue({ venue: 'Corrected hall', city: 'Berlin', country: 'Germany' });
      const corrected = await updateVenue(created.id, { geo_lat: 52.5219, geo_lng: 13.4132 });
      expect(corrected).toMatchObject({ geo_lat: 52.5219, geo_lng: 13.4132, geo_source: 'provided' });
      expect(await updateVenue(created.id, { city: 'Hamburg' })).toMatchObject({ geo_lat: 52.5219, geo_lng: 13.4132, geo_source: 'provided' });
    });

    it('changes neither the address nor the coordinates of a venue a create is de-duplicated onto', async () => {
      const provided = await createVenue({ venue: 'Twice hall', geo_lat: 10, geo_lng: 20 });
      expect(await createVenue({ venue: 'twice hall', city: 'Berlin', country: 'Germany' })).toEqual(provided);
      const guessed = await createVenue({ venue: 'Roaming hall', city: 'Berlin', country: 'Germany' });
      expectNear(guessed, BERLIN.lat, BERLIN.lng, 'gazetteer', 1);
      expect(await createVenue({ venue: 'Roaming hall', city: 'Hamburg' })).toEqual(guessed);
      expect(await createVenue({ venue: 'roaming hall', geo_lat: 1.25, geo_lng: '2.5' })).toEqual(guessed);
    });
  });

  describe('new venues inside event writes', () => {
    it('stores geo_lat / geo_lng of a nested new venue', async () => {
      const event = await createEventOk(t.app, {
        ...later(1),
        venue: { venue: 'Musikverein', city: 'Wien', country: 'Austria', geo_lat: '48.2005', geo_lng: 16.3727 },
      });
      const venue = event.venue as Body;
      expect(venue).toMatchObject({ venue: 'Musikverein', geo_lat: 48.2005, geo_lng: 16.3727, geo_source: 'provided' });
      expect((await stored(venue.id))?.location).toEqual({ type: 'Point', coordinates: [16.3727, 48.2005] });
      expect(await readVenue(venue.id)).toMatchObject({ geo_lat: 48.2005, geo_lng: 16.3727, geo_source: 'provided' });
    });

    it('geocodes a nested new venue with an address and no coordinates', async () => {
      const event = await createEventOk(t.app, { ...later(1), venue: { venue: 'Gasteig', city: 'München', country: 'Deutschland' } });
      const venue = event.venue as Body;
      expectNear(venue, 48.137, 11.575, 'gazetteer', 2);
      expect((await stored(venue.id))?.geoSource).toBe('gazetteer');
      // Also on an event update that links a new venue.
      const other = await createEventOk(t.app, { ...later(2), title: 'Moved concert' });
      const updated = await ok(await write('PATCH', `/events/${other.id as number}`, { venue: [{ venue: 'Kampnagel', city: 'Hamburg', country: 'DE' }] }));
      expectNear(updated.venue as Body, 53.55, 9.99, 'gazetteer', 1);
    });

    it('refuses a nested venue with half a point or a bad coordinate, naming venue, and creates nothing', async () => {
      for (const venue of [
        { venue: 'Half', geo_lat: 10 },
        { venue: 'Off the map', geo_lat: 10, geo_lng: 190 },
      ]) {
        const before = await countAll(t.storage);
        const { response, body } = await createEvent(t.app, { ...later(1), venue });
        expect(response.statusCode, response.body).toBe(400);
        expect(body.code).toBe('rest_invalid_param');
        expect(Object.keys((body.data as { params: object }).params)).toEqual(['venue']);
        expect(await countAll(t.storage)).toEqual(before);
      }
    });
  });

  describe('the event list geoloc filter with gazetteer coordinates', () => {
    it('finds events of gazetteer-located venues near a point, with their distance', async () => {
      const berlin = await createVenue({ venue: 'Berlin club', city: 'Berlin', country: 'Germany' });
      const zip = await createVenue({ venue: 'Chelsea club', zip: '10001', country: 'US' });
      const unknown = await createVenue({ venue: 'Mystery club', city: 'Xqzzyville', country: 'Germany' });
      const inBerlin = await createEventOk(t.app, { ...later(1), title: 'Berlin night', venue: berlin.id });
      const inNewYork = await createEventOk(t.app, { ...later(2), title: 'New York night', venue: zip.id });
      const nowhere = await createEventOk(t.app, { ...later(3), title: 'Mystery night', venue: unknown.id });
      const nested = await createEventOk(t.app, { ...later(4), title: 'Potsdam night', venue: { venue: 'Potsdam club', city: 'Potsdam', country: 'Germany' } });

      const list = async (query: string) => {
        const response = await t.app.inject({ method: 'GET', url: `${API}/events?${query}` });
        return ok(response) as Promise<{ events: Body[]; total: number }>;
      };
      const near = await list('geoloc_lat=52.5219&geoloc_lng=13.4132&geoloc_radius=50&geoloc_unit=km&orderby=distance');
      expect(near.events.map((e) => e.id)).toEqual([inBerlin.id, nested.id]);
      expect(near.total).toBe(2);
      // The distance is the one to the gazetteer's coordinates, as returned on the venue.
      for (const event of near.events) {
        const venue = event.venue as Body;
        expect(venue.geo_source).toBe('gazetteer');
        const rad = Math.PI / 180;
        const [lat1, lng1, lat2, lng2] = [52.5219 * rad, 13.4132 * rad, (venue.geo_lat as number) * rad, (venue.geo_lng as number) * rad];
        // Spherical law of cosines, mean Earth radius.
        const km = Math.acos(Math.sin(lat1) * Math.sin(lat2) + Math.cos(lat1) * Math.cos(lat2) * Math.cos(lng2 - lng1)) * 6371.0088;
        expect(event.distance).toBe(Math.round(km * 100) / 100);
      }
      expect((await list('geoloc_lat=40.75&geoloc_lng=-73.99&geoloc_radius=1')).events.map((e) => e.id)).toEqual([inNewYork.id]);
      expect((await list('geoloc=true')).events.map((e) => e.id)).toEqual([inBerlin.id, inNewYork.id, nested.id]);
      expect((await list('geoloc=false')).events.map((e) => e.id)).toEqual([nowhere.id]);
    });

    it('follows a venue moved by the gazetteer', async () => {
      const venue = await createVenue({ venue: 'Wandering club', city: 'Hamburg', country: 'Germany' });
      const event = await createEventOk(t.app, { ...later(1), venue: venue.id });
      const nearBerlin = `${API}/events?geoloc_lat=52.5219&geoloc_lng=13.4132&geoloc_radius=30&geoloc_unit=km`;
      expect((await ok(await t.app.inject({ method: 'GET', url: nearBerlin }))).events).toEqual([]);
      await updateVenue(venue.id, { city: 'Berlin' });
      expect(((await ok(await t.app.inject({ method: 'GET', url: nearBerlin }))).events as Body[]).map((e) => e.id)).toEqual([event.id]);
    });
  });
});
