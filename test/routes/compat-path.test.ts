/**
 * The drop-in path: The Events Calendar's base `/wp-json/tribe/events/v1` serves the same API with
 * every link, `namespace` and index entry under that path (TEC_COMPAT_PATH), and the small gaps a
 * black-box comparison with the reference found.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, EDITOR, type TestApp, insertVenue, json, makeEventInput, openTestApp } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();

type Body = Record<string, unknown>;
const COMPAT = '/wp-json/tribe/events/v1';
/** The links' origin: the request's host (PUBLIC_URL sets the permalinks). */
const ORIGIN = 'http://localhost:80';

/** Every string in a JSON value. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

describe.each(engines)('$name engine: the drop-in path', (engine) => {
  let t: TestApp;
  let eventId: number;
  beforeAll(async () => {
    t = await openTestApp(engine, { PUBLIC_URL: 'http://127.0.0.1:8080' });
    const created = await t.app.inject({
      method: 'POST',
      url: `${COMPAT}/events`,
      headers: EDITOR,
      payload: makeEventInput({
        title: 'Drop-in',
        start_date: '2027-01-10 10:00:00',
        end_date: '2027-01-10 11:00:00',
        venue: { venue: 'Drop-in hall' },
        categories: ['Drop-in'],
      }),
    });
    expect(created.statusCode, created.body).toBe(201);
    eventId = json(created).id as number;
    for (let i = 0; i < 11; i++) {
      await t.app.inject({
        method: 'POST',
        url: `${API}/events`,
        headers: EDITOR,
        payload: makeEventInput({ title: `Filler ${i}`, start_date: '2027-01-11 10:00:00', end_date: '2027-01-11 11:00:00' }),
      });
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = (url: string) => t.app.inject({ method: 'GET', url });

  it('answers every read under the drop-in path, each link under that path', async () => {
    for (const path of ['/events', `/events/${eventId}`, '/events/by-slug/drop-in', '/venues', '/organizers', '/categories', '/tags', '/events?page=2']) {
      const response = await get(`${COMPAT}${path}`);
      expect(response.statusCode, path).toBe(200);
      const links = strings(json(response)).filter((text) => text.includes('/calendar/') || text.includes('/wp-json/'));
      for (const link of links) expect(link.startsWith(`${ORIGIN}${COMPAT}/`), `${path}: ${link}`).toBe(true);
      expect(String(response.headers.link ?? ''), path).not.toContain('/calendar/events/v1');
      if (path.startsWith('/events') && !path.includes('/events/')) expect(links.length, path).toBeGreaterThan(0);
    }
    const list = json(await get(`${COMPAT}/events`));
    expect(String(list.rest_url).startsWith(`${ORIGIN}${COMPAT}/events/?`)).toBe(true);
    expect(String(list.next_rest_url)).toMatch(/^http:\/\/localhost:80\/wp-json\/tribe\/events\/v1\/events\/\?.*page=2$/);
  });

  it('writes with the same bearer tokens, answering links under the path it was asked on', async () => {
    const response = await t.app.inject({
      method: 'PATCH',
      url: `${COMPAT}/events/${eventId}`,
      headers: EDITOR,
      payload: { excerpt: 'Changed through the drop-in path' },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(json(response).rest_url).toBe(`${ORIGIN}${COMPAT}/events/${eventId}`);
    expect((await t.app.inject({ method: 'POST', url: `${COMPAT}/events`, payload: makeEventInput() })).statusCode).toBe(401);
  });

  it('names its own namespace in the index and in /doc', async () => {
    const index = json<{ namespace: string; routes: Record<string, Body>; _links: Body }>(await get(COMPAT));
    expect(index.namespace).toBe('tribe/events/v1');
    for (const key of Object.keys(index.routes)) expect(key.startsWith('/tribe/events/v1'), key).toBe(true);
    expect(index._links).toMatchObject({ self: [{ href: `${ORIGIN}${COMPAT}` }], describedby: [{ href: `${ORIGIN}${COMPAT}/doc` }] });
    expect((await get(`${COMPAT}?namespace=tribe/events/v1`)).statusCode).toBe(200);
    expect((await get(`${COMPAT}?namespace=other/v1`)).statusCode).toBe(404);
    const doc = json<{ servers: Array<{ url: string }> }>(await get(`${COMPAT}/doc`));
    expect(doc.servers[0]!.url).toBe(`${ORIGIN}${COMPAT}`);
  });

  it('keeps the cached answers of the two paths apart', async () => {
    const ours = (await get(`${API}/events`)).body;
    const theirs = (await get(`${COMPAT}/events`)).body;
    expect(ours).toContain(`${ORIGIN}${API}/events/`);
    expect(ours).not.toContain(COMPAT);
    expect(theirs).not.toContain(`${ORIGIN}${API}/`);
  });

  it('is off with TEC_COMPAT_PATH=false', async () => {
    const off = await openTestApp(engine, { TEC_COMPAT_PATH: 'false' });
    try {
      const response = await off.app.inject({ method: 'GET', url: `${COMPAT}/events` });
      expect(response.statusCode).toBe(404);
      expect(json(response).code).toBe('rest_no_route');
    } finally {
      await off.close();
    }
  });

  it('shows the author of venues and organizers always ("0" for none), as the reference does', async () => {
    const venue = await insertVenue(t.storage, { name: 'Authorless hall', nameKey: 'authorless hall', slug: 'authorless-hall', authorId: 0 });
    expect(json(await get(`${API}/venues/${venue._id}`))).toMatchObject({ author: '0' });
    const organizer = await t.app.inject({ method: 'POST', url: `${API}/organizers`, headers: EDITOR, payload: { organizer: 'Authored org' } });
    expect(json(organizer)).toHaveProperty('author');
  });

  it('answers any page past the last with the archive 404, however far', async () => {
    for (const page of ['3', '1000001', '99999999999', '9007199254740991']) {
      const response = await get(`${API}/events?page=${page}`);
      expect(response.statusCode, page).toBe(404);
      expect(json(response).code).toBe('event-archive-page-not-found');
    }
    expect((await get(`${API}/events?page=0`)).statusCode).toBe(400);
  });
});
