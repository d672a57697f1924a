/**
 * POST|PUT|PATCH /events/{id} and /events/by-slug/{slug}: truly partial updates,
 * unlinking, slug conflicts, form-encoded bodies (sample 41), passwords
 * and the path winning over the body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API,
  EDITOR,
  type TestApp,
  VIEWER,
  createEventOk,
  insertCategory,
  insertOrganizer,
  insertTag,
  insertVenue,
  json,
  openTestApp,
  snapshot,
} from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();

type Body = Record<string, unknown>;
const METHODS = ['PATCH', 'PUT', 'POST'] as const;

/** Fields that change on every write and are left out of "nothing else changed" comparisons. */
function stable(body: Body): Body {
  const { modified: _m, modified_utc: _mu, ...rest } = body;
  return rest;
}

describe.each(engines)('$name engine: updating events', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  const update = (method: (typeof METHODS)[number], url: string, payload: Body, headers: Record<string, string> = EDITOR) =>
    t.app.inject({ method, url, headers, payload });

  /** A fully populated event: every field an update could wrongly reset. */
  async function richEvent(title: string) {
    const venue = await insertVenue(t.storage);
    const organizers = [await insertOrganizer(t.storage), await insertOrganizer(t.storage)];
    const category = await insertCategory(t.storage);
    const tag = await insertTag(t.storage);
    const body = await createEventOk(t.app, {
      title,
      description: 'Long description',
      excerpt: 'Short',
      timezone: 'Europe/Berlin',
      start_date: '2030-05-01 19:00:00',
      end_date: '2030-05-01 22:00:00',
      cost: '20$',
      website: 'https://example.com/event',
      featured: true,
      sticky: true,
      show_map: true,
      show_map_link: true,
      hide_from_listings: true,
      ticketed: true,
      image: 'https://example.com/img/poster.png',
      venue: venue._id,
      organizer: organizers.map((o) => o._id),
      categories: [category._id],
      tags: [tag._id],
    });
    return { body, venue, organizers, category, tag };
  }

  describe.each(METHODS)('%s', (method) => {
    it('on /events/{id} changes only the fields sent', async () => {
      const { body: before } = await richEvent(`Partial ${method} by id`);
      const id = before.id as number;
      const response = await update(method, `${API}/events/${id}`, { title: `Renamed ${method}` });
      expect(response.statusCode, response.body).toBe(200);
      const after = json(response);
      expect(stable(after)).toEqual({ ...stable(before), title: `Renamed ${method}` });
      // Cost, website, flags, organizers, venue, image and time zone all kept.
      expect(after).toMatchObject({
        cost: '20$',
        website: 'https://example.com/event',
        featured: true,
        timezone: 'Europe/Berlin',
        image: { url: 'https://example.com/img/poster.png', extension: 'png' },
      });
      expect((after.organizer as Body[]).length).toBe(2);
      expect((after.venue as Body).id).toBe((before.venue as Body).id);
      // The slug stays (no re-slugging on a title change), and the stored record agrees.
      expect(after.slug).toBe(before.slug);
      expect(json(await t.app.inject({ method: 'GET', url: `${API}/events/${id}` }))).toMatchObject({ title: `Renamed ${method}` });
    });

    it('on /events/by-slug/{slug} changes only the fields sent', async () => {
      const { body: before } = await richEvent(`Partial ${method} by slug`);
      const response = await update(method, `${API}/events/by-slug/${before.slug as string}`, { website: 'http://example.test/updated' });
      expect(response.statusCode, response.body).toBe(200);
      const after = json(response);
      expect(stable(after)).toEqual({ ...stable(before), website: 'http://example.test/updated' });
    });

    it('with an empty body changes nothing but the modification date', async () => {
      const { body: before } = await richEvent(`Empty ${method}`);
      const response = await update(method, `${API}/events/${before.id as number}`, {});
      expect(response.statusCode).toBe(200);
      expect(stable(json(response))).toEqual(stable(before));
    });
  });

  it('applies sample 39 (title, cost, end_date) and 40 (description, featured)', async () => {
    const { body: before } = await richEvent('Peer Launch');
    const id = before.id as number;
    const patched = json(await update('PATCH', `${API}/events/${id}`, { title: 'Peer Launch (updated)', cost: '15', end_date: '2030-05-01 23:00:00' }));
    expect(patched).toMatchObject({
      title: 'Peer Launch (updated)',
      cost: '$15',
      cost_details: { currency_symbol: '', currency_position: '', values: ['15'] },
      start_date: '2030-05-01 19:00:00',
      end_date: '2030-05-01 23:00:00',
      utc_end_date: '2030-05-01 21:00:00',
      website: 'https://example.com/event',
      featured: true,
    });
    const posted = json(await update('POST', `${API}/events/${id}`, { description: '<p>Updated via POST.</p>', featured: false }));
    expect(posted).toMatchObject({ description: '<p>Updated via POST.</p>', featured: false, title: 'Peer Launch (updated)', cost: '$15' });
  });

  it('applies a form-encoded update like sample 41', async () => {
    const { body: before } = await richEvent('Form target');
    const response = await t.app.inject({
      method: 'POST',
      url: `${API}/events/${before.id as number}`,
      headers: { ...EDITOR, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'excerpt=form-encoded+excerpt',
    });
    expect(response.statusCode, response.body).toBe(200);
    const after = json(response);
    expect(after.excerpt).toBe('<p>form-encoded excerpt</p>');
    expect(stable(after)).toEqual({ ...stable(before), excerpt: '<p>form-encoded excerpt</p>' });
  });

  it('reads form-encoded flags and lists (featured=0, organizer[]=…)', async () => {
    const { body: before, organizers } = await richEvent('Form lists');
    const [first] = organizers;
    const response = await t.app.inject({
      method: 'PATCH',
      url: `${API}/events/${before.id as number}`,
      headers: { ...EDITOR, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `featured=0&organizer[]=${first?._id ?? 0}`,
    });
    expect(response.statusCode, response.body).toBe(200);
    const after = json(response);
    expect(after.featured).toBe(false);
    expect((after.organizer as Body[]).map((o) => o.id)).toEqual([first?._id]);
  });

  describe('dates', () => {
    it('timezone alone keeps the wall-clock times and recomputes UTC', async () => {
      const created = await createEventOk(t.app, { timezone: 'America/New_York', start_date: '2030-12-21 18:00:00', end_date: '2030-12-21 21:30:00' });
      expect(created.utc_start_date).toBe('2030-12-21 23:00:00');
      const after = json(await update('PATCH', `${API}/events/${created.id as number}`, { timezone: 'Europe/Paris' }));
      expect(after).toMatchObject({
        timezone: 'Europe/Paris',
        timezone_abbr: 'CET',
        start_date: '2030-12-21 18:00:00',
        end_date: '2030-12-21 21:30:00',
        utc_start_date: '2030-12-21 17:00:00',
        utc_end_date: '2030-12-21 20:30:00',
      });
      const stored = await t.storage.events.findById(created.id as number);
      expect(stored?.startUtc.toISOString()).toBe('2030-12-21T17:00:00.000Z');
    });

    it('reads new dates sent with a new timezone in that timezone', async () => {
      const created = await createEventOk(t.app, { start_date: '2030-12-21 18:00:00', end_date: '2030-12-21 21:30:00' });
      const after = json(
        await update('POST', `${API}/events/${created.id as number}`, {
          timezone: 'Asia/Hong_Kong',
          start_date: '2030-12-22 10:00:00',
          end_date: '2030-12-22 12:00:00',
        }),
      );
      expect(after).toMatchObject({
        timezone: 'Asia/Hong_Kong',
        start_date: '2030-12-22 10:00:00',
        utc_start_date: '2030-12-22 02:00:00',
        timezone_abbr: 'HKT',
      });
    });

    it('all_day: true alone re-forces the stored dates to whole days', async () => {
      const created = await createEventOk(t.app, { timezone: 'America/New_York', start_date: '2030-01-05 09:00:00', end_date: '2030-01-07 11:00:00' });
      const after = json(await update('PATCH', `${API}/events/${created.id as number}`, { all_day: true }));
      expect(after).toMatchObject({
        all_day: true,
        start_date: '2030-01-05 00:00:00',
        end_date: '2030-01-07 23:59:59',
        utc_start_date: '2030-01-05 05:00:00',
        utc_end_date: '2030-01-08 04:59:59',
      });
      const stored = await t.storage.events.findById(created.id as number);
      expect(stored).toMatchObject({ allDay: true, startUtc: new Date('2030-01-05T05:00:00Z'), endUtc: new Date('2030-01-08T04:59:59Z') });
    });

    it('end_date alone is applied', async () => {
      const created = await createEventOk(t.app, { start_date: '2030-02-01 10:00:00', end_date: '2030-02-01 11:00:00' });
      const after = json(await update('PATCH', `${API}/events/${created.id as number}`, { end_date: '2030-02-03 15:00:00' }));
      expect(after).toMatchObject({ start_date: '2030-02-01 10:00:00', end_date: '2030-02-03 15:00:00' });
    });

    it('refuses a start after the stored end, naming end_date', async () => {
      const created = await createEventOk(t.app, { start_date: '2030-02-01 10:00:00', end_date: '2030-02-01 11:00:00' });
      const before = await snapshot(t.storage);
      const response = await update('PUT', `${API}/events/${created.id as number}`, { start_date: '2031-01-01 10:00:00' });
      expect(response.statusCode).toBe(400);
      expect(json(response)).toMatchObject({ code: 'rest_invalid_param', data: { params: { end_date: expect.any(String) } } });
      expect(await snapshot(t.storage)).toEqual(before);
    });

    it('refuses an end before the stored start, naming end_date, and stores nothing', async () => {
      const created = await createEventOk(t.app, { start_date: '2030-02-01 10:00:00', end_date: '2030-02-01 11:00:00' });
      const before = await snapshot(t.storage);
      const response = await update('PATCH', `${API}/events/${created.id as number}`, { end_date: '2030-01-31 10:00:00' });
      expect(response.statusCode).toBe(400);
      expect(json(response)).toMatchObject({ code: 'rest_invalid_param', data: { params: { end_date: expect.any(String) } } });
      expect(await snapshot(t.storage)).toEqual(before);
    });
  });

  describe('links', () => {
    it('venue: 0 unlinks the venue; "" and [] do too', async () => {
      for (const empty of [0, '', []]) {
        const { body: before } = await richEvent(`Venue unlink ${JSON.stringify(empty)}`);
        const after = json(await update('PATCH', `${API}/events/${before.id as number}`, { venue: empty }));
        expect(after.venue).toEqual([]);
        expect((after.organizer as Body[]).length).toBe(2);
        expect((await t.storage.events.findById(before.id as number))?.venueId).toBeNull();
      }
    });

    it('organizer: [] unlinks every organizer and keeps the venue', async () => {
      const { body: before } = await richEvent('Organizer unlink');
      const after = json(await update('PATCH', `${API}/events/${before.id as number}`, { organizer: [] }));
      expect(after.organizer).toEqual([]);
      expect((after.venue as Body).id).toBe((before.venue as Body).id);
    });

    it('replaces the venue, organizers and terms when sent', async () => {
      const { body: before } = await richEvent('Relink');
      const venue = await insertVenue(t.storage);
      const organizer = await insertOrganizer(t.storage);
      const category = await insertCategory(t.storage);
      const after = json(
        await update('PUT', `${API}/events/${before.id as number}`, { venue: venue._id, organizer: organizer._id, categories: [category._id], tags: [] }),
      );
      expect((after.venue as Body).id).toBe(venue._id);
      expect((after.organizer as Body[]).map((o) => o.id)).toEqual([organizer._id]);
      expect((after.categories as Body[]).map((c) => c.id)).toEqual([category._id]);
      expect(after.tags).toEqual([]);
    });

    it('refuses unknown references on update, naming each, and stores nothing', async () => {
      const { body: before } = await richEvent('Bad links');
      const snap = await snapshot(t.storage);
      const response = await update('PATCH', `${API}/events/${before.id as number}`, {
        title: 'Should not stick',
        venue: 999_999,
        organizer: [999_998],
        categories: [999_997],
        tags: [999_996],
      });
      expect(response.statusCode).toBe(400);
      const body = json<{ code: string; data: { params: Body } }>(response);
      expect(body.code).toBe('rest_invalid_param');
      expect(Object.keys(body.data.params).sort()).toEqual(['categories', 'organizer', 'tags', 'venue']);
      expect(await snapshot(t.storage)).toEqual(snap);
    });
  });

  describe('image', () => {
    it('image: "" removes the image', async () => {
      const { body: before } = await richEvent('Image removal');
      expect(before.image).toEqual({ url: 'https://example.com/img/poster.png', extension: 'png' });
      const after = json(await update('PATCH', `${API}/events/${before.id as number}`, { image: '' }));
      expect(after.image).toBe(false);
    });

    it('refuses a numeric image on update', async () => {
      const { body: before } = await richEvent('Image id');
      const response = await update('PATCH', `${API}/events/${before.id as number}`, { image: 23 });
      expect(response.statusCode).toBe(400);
      expect(json(response)).toMatchObject({ code: 'rest_invalid_param', data: { params: { image: expect.stringMatching(/media library/) } } });
    });
  });

  describe('slugs', () => {
    it('changes the slug when it is free, and refuses one another event owns with 409', async () => {
      const a = await createEventOk(t.app, { title: 'Slug Owner' });
      const b = await createEventOk(t.app, { title: 'Slug Taker' });
      const moved = await update('PATCH', `${API}/events/${b.id as number}`, { slug: 'an-interesting-event' });
      expect(moved.statusCode).toBe(200);
      expect(json(moved)).toMatchObject({ slug: 'an-interesting-event', url: 'http://localhost:80/event/an-interesting-event/' });

      const snap = await snapshot(t.storage);
      const clash = await update('PATCH', `${API}/events/${b.id as number}`, { slug: a.slug, title: 'Not applied' });
      expect(clash.statusCode).toBe(409);
      expect(json(clash)).toMatchObject({ code: expect.any(String), data: { status: 409 } });
      expect(await snapshot(t.storage)).toEqual(snap);

      // Its own slug is no conflict.
      const same = await update('PATCH', `${API}/events/${a.id as number}`, { slug: a.slug });
      expect(same.statusCode).toBe(200);
    });

    it('follows a slug change on the by-slug route', async () => {
      const created = await createEventOk(t.app, { title: 'Moving Slug' });
      const response = await update('PATCH', `${API}/events/by-slug/moving-slug`, { slug: 'moved-slug' });
      expect(response.statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: `${API}/events/by-slug/moved-slug` })).statusCode).toBe(200);
      const old = await t.app.inject({ method: 'GET', url: `${API}/events/by-slug/moving-slug` });
      expect(old.statusCode).toBe(404);
      expect(json(old).code).toBe('rest-event-not-found');
      expect(json(response).id).toBe(created.id);
    });
  });

  describe('password', () => {
    it('is accepted on id routes and refused (400 naming password) on by-slug routes', async () => {
      const created = await createEventOk(t.app, { title: 'Pass Route' });
      for (const method of METHODS) {
        const snap = await snapshot(t.storage);
        const bySlug = await update(method, `${API}/events/by-slug/pass-route`, { password: 'x-secret' });
        expect(bySlug.statusCode).toBe(400);
        expect(json(bySlug)).toMatchObject({ code: 'rest_invalid_param', data: { params: { password: expect.any(String) } } });
        expect(await snapshot(t.storage)).toEqual(snap);
      }
      const byId = await update('PUT', `${API}/events/${created.id as number}`, { password: 'x-secret' });
      expect(byId.statusCode).toBe(200);
      expect(byId.body).not.toContain('x-secret');
      expect((await t.app.inject({ method: 'GET', url: `${API}/events/${created.id as number}` })).statusCode).toBe(403);
    });
  });

  describe('path wins', () => {
    it('ignores an id in the body', async () => {
      const a = await createEventOk(t.app, { title: 'Path Event A' });
      const b = await createEventOk(t.app, { title: 'Path Event B' });
      const response = await update('PATCH', `${API}/events/${a.id as number}`, { id: b.id, title: 'Path Event A2' });
      expect(response.statusCode).toBe(200);
      expect(json(response)).toMatchObject({ id: a.id, title: 'Path Event A2' });
      expect((await t.storage.events.findById(b.id as number))?.title).toBe('Path Event B');
    });

    it('ignores generated fields sent back from a representation', async () => {
      const created = await createEventOk(t.app, { title: 'Round trip' });
      const response = await update('PUT', `${API}/events/${created.id as number}`, {
        title: 'Round trip 2',
        url: 'http://evil.example/',
        rest_url: 'http://evil.example/rest',
        utc_start_date: '1999-01-01 00:00:00',
        start_date_details: { year: '1999' },
        timezone_abbr: 'XYZ',
        cost_details: { values: ['1'] },
        global_id: 'evil?id=1',
        modified: '1999-01-01 00:00:00',
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(stable(json(response))).toEqual({ ...stable(created), title: 'Round trip 2' });
      const stored = await t.storage.events.findById(created.id as number);
      expect(stored?.startUtc.toISOString()).toBe('2030-06-10T19:00:00.000Z');
    });
  });

  describe('errors', () => {
    it.each(METHODS)('%s on an unknown id → 404 rest-event-not-found', async (method) => {
      const response = await update(method, `${API}/events/2389`, { title: 'Nobody' });
      expect(response.statusCode).toBe(404);
      expect(json(response)).toEqual({ code: 'rest-event-not-found', message: 'Event with ID 2389 does not exist.', data: { status: 404 } });
    });

    it('on an unknown slug → 404 rest-event-not-found', async () => {
      const response = await update('PATCH', `${API}/events/by-slug/nobody-here`, { title: 'Nobody' });
      expect(response.statusCode).toBe(404);
      expect(json(response).code).toBe('rest-event-not-found');
    });

    it.each([
      { field: 'title', value: '' },
      { field: 'featured', value: 'yes' },
      { field: 'website', value: 'foo' },
      { field: 'start_date', value: 'foo' },
      { field: 'timezone', value: 'Nowhere/Special' },
      { field: 'foo', value: 'bar' },
    ])('refuses $field = $value, naming it, and stores nothing', async ({ field, value }) => {
      const { body: before } = await richEvent(`Bad ${field}`);
      const snap = await snapshot(t.storage);
      const response = await update('PATCH', `${API}/events/${before.id as number}`, { [field]: value });
      expect(response.statusCode).toBe(400);
      expect(json(response)).toMatchObject({ code: 'rest_invalid_param', data: { status: 400, params: { [field]: expect.any(String) } } });
      expect(await snapshot(t.storage)).toEqual(snap);
    });

    it('refuses a viewer (403) and an anonymous caller (401) on every method and route', async () => {
      const created = await createEventOk(t.app, { title: 'Guarded' });
      const snap = await snapshot(t.storage);
      for (const method of METHODS) {
        for (const url of [`${API}/events/${created.id as number}`, `${API}/events/by-slug/guarded`]) {
          const viewer = await update(method, url, { title: 'Hacked' }, VIEWER);
          expect(viewer.statusCode).toBe(403);
          expect(json(viewer)).toEqual({ code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 403 } });
          const anonymous = await update(method, url, { title: 'Hacked' }, {});
          expect(anonymous.statusCode).toBe(401);
          expect(json(anonymous)).toEqual({ code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 401 } });
        }
      }
      expect(await snapshot(t.storage)).toEqual(snap);
    });
  });
});
