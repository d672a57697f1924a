/**
 * Language roots: `/`, `/en`, `/de` and `/fr` each serve the whole
 * namespace, and every API link in every response — `rest_url`, `next_rest_url`,
 * `previous_rest_url`, term `urls`, the `Link` header, the index's `_links`, `/doc`'s `servers` —
 * uses the root and host the request came in on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, EDITOR, NS, ROOTS as ROOT_LANGUAGES, type TestApp, json, openTestApp } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();

const ROOTS = ROOT_LANGUAGES.map(({ root }) => root);
const HOST = 'calendar.example.org:8443';

/** Every string below `value` that points into the API namespace. */
const apiLinksOf = (value: unknown): string[] =>
  typeof value === 'string'
    ? value.includes(`/${NS}`)
      ? [value]
      : []
    : Array.isArray(value)
      ? value.flatMap(apiLinksOf)
      : value !== null && typeof value === 'object'
        ? Object.values(value).flatMap(apiLinksOf)
        : [];

describe.each(engines)('$name engine: language roots', (engine) => {
  let t: TestApp;
  const ids: Record<string, number | string> = {};
  beforeAll(async () => {
    t = await openTestApp(engine);
    const post = async (path: string, payload: Record<string, unknown>) => {
      const response = await t.app.inject({ method: 'POST', url: `${API}${path}`, headers: EDITOR, payload });
      if (response.statusCode !== 201) throw new Error(`${path}: ${response.statusCode} ${response.body}`);
      return json<{ id: number; slug: string }>(response);
    };
    const venue = await post('/venues', { venue: 'Roots hall' });
    const organizer = await post('/organizers', { organizer: 'Roots club' });
    const parent = await post('/categories', { name: 'Roots parent' });
    const category = await post('/categories', { name: 'Roots child', parent: parent.id });
    const tag = await post('/tags', { name: 'Roots tag' });
    for (const day of [10, 11, 12]) {
      const event = await post('/events', {
        title: `Roots event ${day}`,
        start_date: `2030-05-${day} 10:00:00`,
        end_date: `2030-05-${day} 12:00:00`,
        venue: venue.id,
        organizer: [organizer.id],
        categories: [category.id],
        tags: [tag.id],
      });
      ids.event = event.id;
      ids.eventSlug = event.slug;
    }
    Object.assign(ids, { venue: venue.id, venueSlug: venue.slug, organizer: organizer.id, organizerSlug: organizer.slug, category: category.id, tag: tag.id });
  });
  afterAll(async () => {
    await t?.close();
  });

  const urls = () => [
    '',
    '/doc',
    '/events?per_page=1&page=2&start_date=2030-01-01&end_date=2031-01-01',
    `/events/${ids.event}`,
    `/events/by-slug/${ids.eventSlug}`,
    '/venues?per_page=1',
    `/venues/${ids.venue}`,
    `/venues/by-slug/${ids.venueSlug}`,
    '/organizers?per_page=1',
    `/organizers/${ids.organizer}`,
    `/organizers/by-slug/${ids.organizerSlug}`,
    '/categories?per_page=1&page=2',
    `/categories/${ids.category}`,
    '/tags',
    `/tags/${ids.tag}`,
  ];

  it.each(ROOTS)('root "%s" serves every route, with every API link on that root and host', async (root) => {
    const expected = `http://${HOST}${root}/${NS}`;
    let links = 0;
    for (const path of urls()) {
      const response = await t.app.inject({ method: 'GET', url: `${root}/${NS}${path}`, headers: { host: HOST } });
      expect(response.statusCode, path).toBe(200);
      const found = [...apiLinksOf(json(response)), ...[...String(response.headers.link ?? '').matchAll(/<([^>]+)>/g)].map((m) => m[1] as string)];
      for (const link of found) expect(link.startsWith(`${expected}/`) || link === expected, `${path}: ${link}`).toBe(true);
      links += found.length;
    }
    expect(links).toBeGreaterThan(40);
  });

  it('serves the same representation under every root, apart from the links', async () => {
    const bodies = await Promise.all(
      ROOTS.map(async (root) =>
        (await t.app.inject({ method: 'GET', url: `${root}/${NS}/events/${ids.event}` })).body.replaceAll(`localhost:80${root}/`, 'localhost:80/'),
      ),
    );
    for (const body of bodies) expect(body).toBe(bodies[0]);
  });

  it('does not serve other roots', async () => {
    for (const url of [`/es/${NS}/events`, `/de/de/${NS}/events`, `/DE/${NS}/events`]) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
      expect(json(response)).toMatchObject({ code: 'rest_no_route' });
    }
  });
});
