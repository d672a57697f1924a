/**
 * The namespace index and the reference UI (item 5)
 * under every root: routes in registration order keyed by their WordPress pattern, methods,
 * endpoints and args (required, type, default — computed ones included — and the description in
 * the root's language), `_links` on the root and host the request came in on; `namespace` and
 * `context` parameters.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MESSAGES } from '../../src/i18n/index.js';
import { type TestApp, json, NS, openTestApp, ROOTS } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();
// The documentation does not depend on the storage engine: one is enough.
const engine = engines[0]!;

/** The reference's order: the index, /doc, then every resource's routes as registered; our sync route last. */
const ROUTE_KEYS = [
  `/${NS}`,
  `/${NS}/doc`,
  `/${NS}/events`,
  `/${NS}/events/(?P<id>\\d+)`,
  `/${NS}/events/by-slug/(?P<slug>[^/]+)`,
  `/${NS}/events.ics`,
  `/${NS}/events/(?P<id>\\d+).ics`,
  `/${NS}/events/by-slug/(?P<slug>[^/]+).ics`,
  `/${NS}/venues`,
  `/${NS}/venues/(?P<id>\\d+)`,
  `/${NS}/venues/by-slug/(?P<slug>[^/]+)`,
  `/${NS}/organizers`,
  `/${NS}/organizers/(?P<id>\\d+)`,
  `/${NS}/organizers/by-slug/(?P<slug>[^/]+)`,
  `/${NS}/categories`,
  `/${NS}/categories/(?P<id>\\d+)`,
  `/${NS}/tags`,
  `/${NS}/tags/(?P<id>\\d+)`,
  `/${NS}/deleted`,
  `/${NS}/series/(?P<id>\\d+)`,
];

type Arg = Record<string, unknown> & { required: boolean; description?: string; default?: unknown; type?: unknown };
type Endpoint = { methods: string[]; args: Record<string, Arg> | [] };
type Route = { namespace: string; methods: string[]; endpoints: Endpoint[]; schema?: Record<string, unknown>; _links?: { self: Array<{ href: string }> } };
type Index = { namespace: string; routes: Record<string, Route>; _links: Record<string, Array<{ href: string }>> };

const argsOf = (index: Index, key: string, method: string): Record<string, Arg> => {
  const endpoint = index.routes[`/${NS}${key}`]?.endpoints.find((e) => e.methods.includes(method));
  if (endpoint === undefined) throw new Error(`no ${method} endpoint on ${key}`);
  return Array.isArray(endpoint.args) ? {} : endpoint.args;
};

/** Every `href` anywhere in a value. */
const hrefsOf = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.flatMap(hrefsOf)
    : value !== null && typeof value === 'object'
      ? Object.entries(value).flatMap(([k, v]) => (k === 'href' && typeof v === 'string' ? [v] : hrefsOf(v)))
      : [];

/** The index without its descriptions and links: what must be identical under every root. */
const withoutText = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(withoutText)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .filter(([k]) => k !== 'description' && k !== '_links')
            .map(([k, v]) => [k, withoutText(v)]),
        )
      : value;

describe(`${engine.name} engine: namespace index`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const get = async (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

  describe.each(ROOTS)('under root "$root"', ({ root, language }) => {
    const origin = 'http://localhost:80';
    const base = `${origin}${root}/${NS}`;
    const text = (key: string) => MESSAGES[language][key];

    it('answers at the namespace base, with or without a trailing slash', async () => {
      for (const url of [`${root}/${NS}`, `${root}/${NS}/`]) {
        const response = await get(url);
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-type']).toMatch(/^application\/json/);
      }
    });

    it('lists every route in the reference order, keyed by its WordPress pattern', async () => {
      const index = json<Index>(await get(`${root}/${NS}`));
      expect(Object.keys(index)).toEqual(['namespace', 'routes', '_links']);
      expect(index.namespace).toBe(NS);
      expect(Object.keys(index.routes)).toEqual(ROUTE_KEYS);
      for (const route of Object.values(index.routes)) {
        expect(Object.keys(route).slice(0, 3)).toEqual(['namespace', 'methods', 'endpoints']);
        expect(route.namespace).toBe(NS);
        // The route's methods are the union of its endpoints' methods.
        expect(route.methods).toEqual([...new Set(route.endpoints.flatMap((e) => e.methods))]);
        for (const endpoint of route.endpoints) {
          expect(endpoint.methods).not.toContain('HEAD');
          if (!Array.isArray(endpoint.args)) {
            for (const arg of Object.values(endpoint.args)) expect(Object.keys(arg).at(-1)).toBe('required');
          }
        }
      }
    });

    it('gives each route its methods and endpoints', async () => {
      const index = json<Index>(await get(`${root}/${NS}`));
      const methods = (key: string) => [...(index.routes[`/${NS}${key}`]?.methods ?? [])].sort();
      expect(methods('')).toEqual(['GET']);
      expect(methods('/doc')).toEqual(['GET']);
      for (const resource of ['events', 'venues', 'organizers', 'categories', 'tags']) {
        expect(methods(`/${resource}`)).toEqual(['GET', 'POST']);
        expect(methods(`/${resource}/(?P<id>\\d+)`)).toEqual(['DELETE', 'GET', 'PATCH', 'POST', 'PUT']);
      }
      for (const resource of ['events', 'venues', 'organizers']) {
        expect(methods(`/${resource}/by-slug/(?P<slug>[^/]+)`)).toEqual(['DELETE', 'GET', 'PATCH', 'POST', 'PUT']);
      }
      // POST, PUT and PATCH share one endpoint (one handler), as WordPress's EDITABLE.
      const single = index.routes[`/${NS}/events/(?P<id>\\d+)`]!;
      expect(single.endpoints.map((e) => e.methods)).toContainEqual(['POST', 'PUT', 'PATCH']);
      expect(index.routes[`/${NS}/doc`]?.endpoints).toEqual([{ methods: ['GET'], args: [] }]);
    });

    it('describes the args: required, type, default and description in the root language', async () => {
      const index = json<Index>(await get(`${root}/${NS}`));
      expect(argsOf(index, '', 'GET')).toEqual({
        namespace: { default: NS, description: text('index.namespace'), type: 'string', minLength: 1, maxLength: 200, required: false },
        context: { default: 'view', description: text('index.context'), type: 'string', enum: ['view', 'embed', 'edit', 'help'], required: false },
      });
      const list = argsOf(index, '/events', 'GET');
      expect(list.page).toMatchObject({ default: 1, type: 'integer', required: false, description: text('common.page') });
      expect(list.per_page).toMatchObject({ default: 10, type: 'integer', required: false, description: text('common.per_page') });
      expect(list.search).toMatchObject({ type: 'string', required: false, description: text('eventList.search') });
      expect(list.featured).toMatchObject({ type: 'boolean', required: false });
      expect(list.categories).toMatchObject({ type: 'array', items: { type: ['integer', 'string'] } });
      expect(list.geoloc_unit).toMatchObject({ default: 'mi', type: 'string', enum: ['mi', 'km'] });
      expect(list.geoloc_radius).toMatchObject({ default: 25, type: 'number', exclusiveMinimum: 0, maximum: 500 });
      for (const name of ['orderby', 'order', 'geoloc_radius', 'geoloc_unit', 'geoloc', 'geoloc_lat', 'geoloc_lng', 'ticketed', 'include', 'status']) {
        expect(list, name).toHaveProperty(name);
      }

      const create = argsOf(index, '/events', 'POST');
      expect(
        Object.entries(create)
          .filter(([, a]) => a.required)
          .map(([n]) => n)
          .sort(),
      ).toEqual(['end_date', 'start_date', 'title']);
      expect(create.title).toEqual({ description: text('event.title'), type: 'string', minLength: 1, maxLength: 1000, required: true });
      expect(create.all_day).toMatchObject({ type: 'boolean', required: false, description: text('event.all_day') });
      expect(create).not.toHaveProperty('password');

      // Path values come first on single routes; `password` only on the id routes.
      const update = argsOf(index, '/events/(?P<id>\\d+)', 'PATCH');
      expect(Object.keys(update)[0]).toBe('id');
      expect(update.id).toMatchObject({ type: 'integer', required: true, description: text('common.id') });
      expect(update).toHaveProperty('password');
      expect(argsOf(index, '/events/by-slug/(?P<slug>[^/]+)', 'PATCH')).not.toHaveProperty('password');
      expect(argsOf(index, '/venues', 'POST').venue).toMatchObject({ required: true, description: text('venue.venue') });
      expect(argsOf(index, '/organizers', 'POST').organizer).toMatchObject({ required: true });
      expect(argsOf(index, '/categories', 'POST').name).toMatchObject({ required: true, description: text('term.name') });
      expect(argsOf(index, '/categories', 'GET')).toHaveProperty('parent');
      expect(argsOf(index, '/tags', 'GET')).not.toHaveProperty('parent');

      // Every arg of every endpoint is described.
      const undescribed = Object.entries(index.routes).flatMap(([key, route]) =>
        route.endpoints.flatMap((e) =>
          Array.isArray(e.args)
            ? []
            : Object.entries(e.args)
                .filter(([, a]) => !a.description)
                .map(([n]) => `${key} ${e.methods.join()} ${n}`),
        ),
      );
      expect(undescribed).toEqual([]);
    });

    it("shows today's computed defaults of the event window (site time zone)", async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2026-03-15T10:20:30Z'));
      const index = json<Index>(await get(`${root}/${NS}`));
      const list = argsOf(index, '/events', 'GET');
      expect(list.start_date).toMatchObject({ default: '2026-03-14 00:00:00', description: text('eventList.start_date'), required: false });
      expect(list.end_date).toMatchObject({ default: '2028-03-15 23:59:59', description: text('eventList.end_date'), required: false });
      // The feed has the list's window, and no paging.
      const feed = argsOf(index, '/events.ics', 'GET');
      expect([feed.start_date?.default, feed.end_date?.default]).toEqual(['2026-03-14 00:00:00', '2028-03-15 23:59:59']);
      expect(Object.keys(feed)).toEqual(Object.keys(list).filter((name) => name !== 'page' && name !== 'per_page'));
    });

    it('links on the root and host the request came in on', async () => {
      const index = json<Index>(await get(`${root}/${NS}`));
      expect(index._links).toEqual({
        self: [{ href: base }],
        describedby: [{ href: `${base}/doc` }],
        help: [{ href: `${origin}${root}/docs/` }],
      });
      // Only routes without path captures have a self link.
      for (const [key, route] of Object.entries(index.routes)) {
        if (key.includes('(?P<')) expect(route._links, key).toBeUndefined();
        else expect(route._links, key).toEqual({ self: [{ href: `${origin}${root}${key}` }] });
      }
      const other = json<Index>(await get(`${root}/${NS}`, { host: 'calendar.example.org:8443' }));
      const hrefs = hrefsOf(other);
      expect(hrefs.length).toBeGreaterThan(5);
      for (const href of hrefs) expect(href.startsWith(`http://calendar.example.org:8443${root}/`), href).toBe(true);
    });

    it('accepts its own namespace and refuses any other (404 rest_invalid_namespace, in the root language)', async () => {
      expect((await get(`${root}/${NS}?namespace=${encodeURIComponent(NS)}`)).statusCode).toBe(200);
      const other = await get(`${root}/${NS}?namespace=wp%2Fv2`);
      expect(other.statusCode).toBe(404);
      const message = {
        en: 'The specified namespace could not be found.',
        de: 'Der angegebene Namensraum wurde nicht gefunden.',
        fr: "L'espace de noms indiqué est introuvable.",
      }[language];
      expect(json(other)).toEqual({ code: 'rest_invalid_namespace', message, data: { status: 404 } });
    });

    it('context=help adds each route’s response schema; an unknown context is a 400', async () => {
      const plain = json<Index>(await get(`${root}/${NS}?context=view`));
      expect(plain.routes[`/${NS}/events`]?.schema).toBeUndefined();
      const help = json<Index>(await get(`${root}/${NS}?context=help`));
      const schema = help.routes[`/${NS}/events`]?.schema as { properties: Record<string, { description?: string }> };
      expect(Object.keys(schema.properties)).toEqual(['events', 'rest_url', 'next_rest_url', 'previous_rest_url', 'total', 'total_pages']);
      expect(help.routes[`/${NS}/venues/(?P<id>\\d+)`]?.schema).toMatchObject({ type: 'object' });
      // A feed's body is iCalendar text.
      expect(help.routes[`/${NS}/events.ics`]?.schema).toEqual({ type: 'string', description: text('feed.response') });
      const bad = await get(`${root}/${NS}?context=bogus`);
      expect(bad.statusCode).toBe(400);
      expect(json<{ code: string; data: { params: Record<string, string> } }>(bad)).toMatchObject({
        code: 'rest_invalid_param',
        data: { params: { context: expect.any(String) } },
      });
    });
  });

  it('is identical under every root apart from descriptions and links', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-15T10:20:30Z'));
    const [plain, ...others] = await Promise.all(ROOTS.map(async ({ root }) => withoutText(json(await get(`${root}/${NS}`)))));
    for (const other of others) expect(other).toEqual(plain);
  });

  it('describes in English at "" and /en, and in German and French at /de and /fr', async () => {
    const search = async (root: string) => argsOf(json<Index>(await get(`${root}/${NS}`)), '/events', 'GET').search?.description;
    expect(await search('')).toBe('Words that must all occur in the title, description or excerpt');
    expect(await search('/en')).toBe(await search(''));
    expect(await search('/de')).toBe('Wörter, die alle im Titel, in der Beschreibung oder im Auszug vorkommen müssen');
    expect(await search('/fr')).toBe("Mots qui doivent tous figurer dans le titre, la description ou l'extrait");
  });
});

describe(`${engine.name} engine: computed defaults in another site time zone`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine, { SITE_TIMEZONE: 'Europe/Berlin' });
  });
  afterAll(async () => {
    vi.useRealTimers();
    await t?.close();
  });

  it('starts the default window at 00:00 yesterday in SITE_TIMEZONE', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    // 00:30 on 16 March in Berlin: "yesterday" there is the 15th, although it is still the 15th in UTC.
    vi.setSystemTime(new Date('2026-03-15T23:30:00Z'));
    const index = json<Index>(await t.app.inject({ method: 'GET', url: `/de/${NS}` }));
    const list = argsOf(index, '/events', 'GET');
    expect(list.start_date?.default).toBe('2026-03-15 00:00:00');
    expect(list.end_date?.default).toBe('2028-03-16 23:59:59');
    vi.useRealTimers();
  });
});

describe(`${engine.name} engine: API reference UI`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(ROOTS)('is served under "$root/docs" from local files, with its root’s document', async ({ root, language }) => {
    for (const url of [`${root}/docs/`, `${root}/docs`]) {
      const page = await t.app.inject({ method: 'GET', url });
      expect(page.statusCode, url).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.body).toContain('swagger-ui-bundle.js');
      expect(page.body).toContain(`<title>${MESSAGES[language]['api.title']}</title>`);
      // Offline: nothing is loaded from another origin.
      expect(page.body).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
      const csp = String(page.headers['content-security-policy']);
      expect(csp).toContain("connect-src 'self'");
      expect(csp).not.toMatch(/https?:/);
    }
    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'swagger-initializer.js', 'swagger-ui.css']) {
      const response = await t.app.inject({ method: 'GET', url: `${root}/docs/static/${asset}` });
      expect(response.statusCode, asset).toBe(200);
    }
    const initializer = await t.app.inject({ method: 'GET', url: `${root}/docs/static/swagger-initializer.js` });
    expect(initializer.body).toContain("resolveUrl('./json')");
    const spec = await t.app.inject({ method: 'GET', url: `${root}/docs/json`, headers: { host: 'docs.example.org' } });
    expect(spec.statusCode).toBe(200);
    const document = json<{ openapi: string; servers: Array<{ url: string }>; info: { title: string } }>(spec);
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: `http://docs.example.org${root}/${NS}` }]);
    expect(document.info.title).toBe(MESSAGES[language]['api.title']);
    // The same document as the namespace's /doc.
    const doc = await t.app.inject({ method: 'GET', url: `${root}/${NS}/doc`, headers: { host: 'docs.example.org' } });
    expect(json(doc)).toEqual(document);
  });
});
