/**
 * Venues, organizers and terms that events share: an event write never changes a shared record
 * it names, moving one to the trash by any route unlinks it, and records created inside the write
 * of an unpublished event stay out of public view until the event is published.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, EDITOR, type TestApp, VIEWER, json, makeEventInput, openTestApp } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();

type Body = Record<string, unknown>;

describe.each(engines)('$name engine: shared records', (engine) => {
  let t: TestApp;
  let clock = new Date('2026-03-01T12:00:00Z');
  beforeAll(async () => {
    t = await openTestApp(engine, {}, undefined, () => clock);
  });
  afterAll(async () => {
    await t?.close();
  });

  const send = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, payload?: Body, headers: Record<string, string> = EDITOR) =>
    t.app.inject({ method, url: `${API}${path}`, headers, ...(payload === undefined ? {} : { payload }) });
  const anonymous = (path: string) => send('GET', path, undefined, {});
  async function ok(method: 'POST' | 'PUT' | 'PATCH', path: string, payload: Body, status = method === 'POST' && !/\/\d+$/.test(path) ? 201 : 200) {
    const response = await send(method, path, payload);
    expect(response.statusCode, response.body).toBe(status);
    return json(response);
  }
  const createEvent = (overrides: Body) => ok('POST', '/events', makeEventInput(overrides));
  const totalOf = async (path: string) => json<{ total: number }>(await anonymous(path)).total;
  const idOf = (body: Body, key: 'venue' | 'organizer') => (key === 'venue' ? (body.venue as Body).id : (body.organizer as Body[])[0]!.id) as number;

  describe('a nested record that matches an existing one links it and changes nothing', () => {
    it('cannot rewrite, unpublish or trash a venue or organizer other events use', async () => {
      const venue = await ok('POST', '/venues', { venue: 'Konzerthaus Berlin', address: 'Gendarmenmarkt 2', phone: '+49 30 203090' });
      const organizer = await ok('POST', '/organizers', { organizer: 'Konzerthausorchester', email: 'info@example.org' });
      const others = [];
      for (let i = 0; i < 3; i++) others.push(await createEvent({ title: `Concert ${i}`, venue: venue.id, organizer: [organizer.id] }));
      const before = [json(await anonymous(`/venues/${venue.id as number}`)), json(await anonymous(`/organizers/${organizer.id as number}`))];

      const attack = await createEvent({
        title: 'Attack',
        venue: { venue: 'KONZERTHAUS BERLIN', address: 'Attacker Street 666', phone: '666', status: 'draft' },
        organizer: [{ organizer: 'konzerthausorchester', email: 'evil@example.org', status: 'trash' }],
      });
      expect(idOf(attack, 'venue')).toBe(venue.id);
      expect(idOf(attack, 'organizer')).toBe(organizer.id);
      expect([json(await anonymous(`/venues/${venue.id as number}`)), json(await anonymous(`/organizers/${organizer.id as number}`))]).toEqual(before);
      for (const event of others) {
        const seen = json(await anonymous(`/events/${event.id as number}`));
        expect(seen.venue).toMatchObject({ id: venue.id, address: 'Gendarmenmarkt 2' });
        expect((seen.organizer as Body[]).map((o) => o.id)).toEqual([organizer.id]);
      }
    });
  });

  describe('moving a venue or organizer to the trash by any route unlinks it from its events', () => {
    for (const method of ['POST', 'PUT', 'PATCH'] as const) {
      it(`${method} {status: "trash"} has DELETE's effects`, async () => {
        const venue = await ok('POST', '/venues', { venue: `Trash venue ${method}` });
        const organizer = await ok('POST', '/organizers', { organizer: `Trash org ${method}` });
        const keep = await ok('POST', '/organizers', { organizer: `Kept org ${method}` });
        const event = await createEvent({ title: `Trash links ${method}`, venue: venue.id, organizer: [organizer.id, keep.id] });

        expect(await ok(method, `/venues/${venue.id as number}`, { status: 'trash' })).toMatchObject({ status: 'trash' });
        expect(await ok(method, `/organizers/${organizer.id as number}`, { status: 'trash' })).toMatchObject({ status: 'trash' });
        const stored = await t.storage.events.findById(event.id as number);
        expect(stored).toMatchObject({ venueId: null, organizerIds: [keep.id] });
        expect(json(await send('GET', `/events/${event.id as number}`))).toMatchObject({ venue: [] });
        // Already in the trash: DELETE answers 410 as after a DELETE.
        expect((await send('DELETE', `/venues/${venue.id as number}`)).statusCode).toBe(410);
        expect((await send('DELETE', `/organizers/${organizer.id as number}`)).statusCode).toBe(410);
      });
    }
  });

  describe('records created by the write of an unpublished event are held back with it', () => {
    const nested = (name: string) => ({
      venue: { venue: `${name} Hall`, city: 'Springfield' },
      organizer: [{ organizer: `${name} Org` }],
      categories: [`${name} Secret`],
      tags: [`${name}-tag`],
    });

    /** What anonymous callers can learn about the records named `name`: nothing while held. */
    async function publicTrace(name: string, ids: { venue: number; organizer: number; category: number; tag: number }) {
      const search = encodeURIComponent(name);
      return {
        venues: await totalOf(`/venues?search=${search}`),
        organizers: await totalOf(`/organizers?search=${search}`),
        categories: await totalOf(`/categories?hide_empty=false&search=${search}`),
        tags: await totalOf(`/tags?hide_empty=false&search=${search}`),
        venue: (await anonymous(`/venues/${ids.venue}`)).statusCode,
        organizer: (await anonymous(`/organizers/${ids.organizer}`)).statusCode,
        category: (await anonymous(`/categories/${ids.category}`)).statusCode,
        tag: (await anonymous(`/tags/${ids.tag}`)).statusCode,
        filter: (await anonymous(`/events?categories=${ids.category}`)).statusCode,
      };
    }
    const HIDDEN = { venues: 0, organizers: 0, categories: 0, tags: 0, venue: 403, organizer: 403, category: 404, tag: 404, filter: 400 };
    const SHOWN = { venues: 1, organizers: 1, categories: 1, tags: 1, venue: 200, organizer: 200, category: 200, tag: 200, filter: 200 };

    async function heldEvent(name: string, status: string, extra: Body = {}) {
      const event = await createEvent({ title: `${name} launch`, status, ...nested(name), ...extra });
      const ids = {
        venue: idOf(event, 'venue'),
        organizer: idOf(event, 'organizer'),
        category: ((event.categories as Body[])[0]!.id ?? 0) as number,
        tag: ((event.tags as Body[])[0]!.id ?? 0) as number,
      };
      return { event, ids };
    }

    for (const status of ['draft', 'pending', 'private'] as const) {
      it(`a ${status} event's new venue, organizer and terms take its status and are published with it`, async () => {
        const name = `Acme${status}`;
        const { event, ids } = await heldEvent(name, status);
        expect(event.venue).toMatchObject({ status });
        expect((event.organizer as Body[])[0]).toMatchObject({ status });
        expect(await publicTrace(name, ids)).toEqual(HIDDEN);
        // Token holders see them (viewers too, as they see drafts).
        expect(json(await send('GET', `/categories/${ids.category}`, undefined, VIEWER))).toMatchObject({ id: ids.category });

        await ok('PATCH', `/events/${event.id as number}`, { status: 'publish' });
        expect(await publicTrace(name, ids)).toEqual(SHOWN);
        expect(json(await anonymous(`/venues/${ids.venue}`))).toMatchObject({ status: 'publish' });
      });
    }

    it("a scheduled event's new venue and organizer are scheduled with it, its terms shown once it is public", async () => {
      const name = 'Acmefuture';
      const { event, ids } = await heldEvent(name, 'publish', { date_utc: '2026-03-05 08:00:00' });
      expect(event.status).toBe('future');
      expect(event.venue).toMatchObject({ status: 'future', date_utc: '2026-03-05 08:00:00' });
      expect(await publicTrace(name, ids)).toEqual(HIDDEN);
      clock = new Date('2026-03-05T08:00:01Z');
      try {
        // Term counts are memoised until the next write (or 10 s): any event write drops them.
        await createEvent({ title: 'Clock tick' });
        expect(await publicTrace(name, ids)).toEqual(SHOWN);
      } finally {
        clock = new Date('2026-03-01T12:00:00Z');
      }
    });

    it('a status named in the nested record is the editor’s choice and wins', async () => {
      const event = await createEvent({ title: 'Open launch', status: 'draft', venue: { venue: 'Acmeopen Hall', status: 'publish' } });
      expect(event.venue).toMatchObject({ status: 'publish' });
      expect(await totalOf('/venues?search=Acmeopen')).toBe(1);
    });

    it('an edit through the record’s own route ends the hold', async () => {
      const name = 'Acmeedit';
      const { ids } = await heldEvent(name, 'draft');
      expect(await ok('PATCH', `/venues/${ids.venue}`, { phone: '123' })).toMatchObject({ status: 'publish', phone: '123' });
      expect(await ok('PATCH', `/organizers/${ids.organizer}`, { status: 'pending' })).toMatchObject({ status: 'pending' });
      await ok('POST', `/categories/${ids.category}`, { description: 'Now public' });
      expect((await t.storage.venues.findById(ids.venue))?.held).toBeUndefined();
      expect((await t.storage.categories.findById(ids.category))?.held).toBeUndefined();
      expect((await anonymous(`/categories/${ids.category}`)).statusCode).toBe(200);
      expect((await anonymous(`/tags/${ids.tag}`)).statusCode).toBe(404);
      // The organizer was given its own status: publishing the event leaves it alone.
      await ok('PATCH', `/events/${(await t.storage.events.findOne({ title: `${name} launch` }))!._id}`, { status: 'publish' });
      expect((await t.storage.organizers.findById(ids.organizer))?.status).toBe('pending');
    });

    it('publishing an event never publishes a venue an editor made a draft on its own', async () => {
      const venue = await ok('POST', '/venues', { venue: 'Deliberate draft hall', status: 'draft' });
      const event = await createEvent({ title: 'Uses a draft venue', status: 'draft', venue: venue.id });
      await ok('PATCH', `/events/${event.id as number}`, { status: 'publish' });
      expect((await t.storage.venues.findById(venue.id as number))?.status).toBe('draft');
    });

    it('a held venue named by a published event is published by that write', async () => {
      const { ids } = await heldEvent('Acmeshared', 'draft');
      await createEvent({ title: 'Public user of the held venue', venue: ids.venue, organizer: [ids.organizer] });
      expect(json(await anonymous(`/venues/${ids.venue}`))).toMatchObject({ status: 'publish' });
      expect(json(await anonymous(`/organizers/${ids.organizer}`))).toMatchObject({ status: 'publish' });
    });
  });
});
