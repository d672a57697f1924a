/**
 * The OpenAPI document (`GET /{ns}/doc`): a valid OpenAPI 3.1 document under every
 * root, generated from the route schemas; identical paths, methods, parameters and schemas under
 * /en and /de, descriptions and tag names in each root's language; `servers[0].url` = the namespace
 * base of the request; the bearer scheme on writes and on nothing else; one Error schema behind
 * every error response; and real responses of every operation (from a seeded app) valid against
 * their documented schemas.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { MESSAGES } from '../../src/i18n/index.js';
import { EDITOR, EDITOR_TOKEN, type TestApp, VIEWER, json, NS, openTestApp, ROOTS } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();
const engine = engines[0]!;

type Json = Record<string, unknown>;
type Operation = Json & { parameters?: Json[]; requestBody?: Json; responses: Record<string, Json>; security?: unknown; operationId: string; tags: string[] };
type OpenApi = Json & {
  openapi: string;
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: Json & { schemas: Record<string, Json>; responses: Record<string, Json> };
  tags: Array<{ name: string; description: string }>;
};

/** every path and method (HEAD, Fastify's automatic twin of GET, is not documented). */
const SINGLE = ['get', 'post', 'put', 'patch', 'delete'];
const SPEC_OPERATIONS = [
  ...['/', '/doc'].map((p) => `get ${p}`),
  ...['events', 'venues', 'organizers', 'categories', 'tags'].flatMap((r) => [`get /${r}`, `post /${r}`, ...SINGLE.map((m) => `${m} /${r}/{id}`)]),
  ...['events', 'venues', 'organizers'].flatMap((r) => SINGLE.map((m) => `${m} /${r}/by-slug/{slug}`)),
  'get /deleted',
  'get /series/{id}',
  // The iCalendar feeds.
  ...['/events.ics', '/events/{id}.ics', '/events/by-slug/{slug}.ics'].map((p) => `get ${p}`),
].sort();
/** The media type of an operation's success: iCalendar for the feeds, JSON for everything else. */
const mediaTypeOf = (path: string) => (path.endsWith('.ics') ? 'text/calendar' : 'application/json');

const operationsOf = (doc: OpenApi) => Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`));

/** Removes the human-readable members, which alone may differ between languages. */
const TEXT_KEYS = new Set(['description', 'summary']);
const withoutText = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(withoutText)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .filter(([k]) => !TEXT_KEYS.has(k))
            .map(([k, v]) => [k, withoutText(v)]),
        )
      : value;

/** Every `description`/`summary` string of the document (schema properties named so excepted). */
const textsOf = (value: unknown, parentKey = ''): string[] =>
  Array.isArray(value)
    ? value.flatMap((v) => textsOf(v))
    : value !== null && typeof value === 'object'
      ? Object.entries(value).flatMap(([k, v]) => (TEXT_KEYS.has(k) && typeof v === 'string' && parentKey !== 'properties' ? [v] : textsOf(v, k)))
      : [];

/** Every schema object in the places OpenAPI puts them. */
function schemasOf(doc: OpenApi): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = Object.entries(doc.components.schemas).map(([name, s]) => [`components/${name}`, s]);
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      for (const p of op.parameters ?? []) out.push([`${method} ${path} ${String(p.name)}`, p.schema]);
      for (const [type, media] of Object.entries((op.requestBody?.content ?? {}) as Record<string, Json>))
        out.push([`${method} ${path} body ${type}`, media.schema]);
      for (const [code, r] of Object.entries(op.responses)) {
        const content = (r.content ?? {}) as Record<string, Json>;
        for (const media of Object.values(content)) out.push([`${method} ${path} ${code}`, media.schema]);
        for (const [name, h] of Object.entries((r.headers ?? {}) as Record<string, Json>)) out.push([`${method} ${path} ${code} ${name}`, h.schema]);
      }
    }
  }
  return out;
}

const DOC_ID = 'https://calendar.test/openapi.json';
const pointerTo = (...segments: string[]) => `#/${segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`;

/** Validates a real response against the schema the document gives its operation and status. */
function responseChecker(doc: OpenApi) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(doc, DOC_ID);
  const compiled = new Map<string, ValidateFunction>();
  return (path: string, method: string, response: LightMyRequestResponse): string | null => {
    const status = String(response.statusCode);
    const declared = doc.paths[path]?.[method]?.responses[status];
    if (declared === undefined) return `${method} ${path}: status ${status} is not documented`;
    let pointer = pointerTo('paths', path, method, 'responses', status);
    let resolved = declared;
    if (typeof declared.$ref === 'string') {
      pointer = declared.$ref.replace(/\{/g, '%7B').replace(/\}/g, '%7D');
      resolved = doc.components.responses[declared.$ref.split('/').at(-1)!] as Json;
    }
    for (const name of Object.keys(resolved.headers ?? {})) {
      if (name !== 'Link' && response.headers[name.toLowerCase()] === undefined) return `${method} ${path} ${status}: header ${name} missing`;
    }
    // The body's media type, as the response names it, must be one the document gives.
    const type = String(response.headers['content-type']).split(';')[0]!;
    if ((resolved.content as Json | undefined)?.[type] === undefined) return `${method} ${path} ${status}: ${type} is not documented`;
    const ref = `${DOC_ID}${pointer}/content/${type.replace('/', '~1')}/schema`;
    let validate = compiled.get(ref);
    if (validate === undefined) {
      validate = ajv.compile({ $ref: ref });
      compiled.set(ref, validate);
    }
    const body: unknown = type === 'application/json' ? JSON.parse(response.body) : response.body;
    return validate(body) ? null : `${method} ${path} ${status}: ${ajv.errorsText(validate.errors)}`;
  };
}

describe(`${engine.name} engine: OpenAPI document`, () => {
  let t: TestApp;
  const docs: Record<string, OpenApi> = {};
  beforeAll(async () => {
    t = await openTestApp(engine);
    for (const { root } of ROOTS) docs[root] = json<OpenApi>(await t.app.inject({ method: 'GET', url: `${root}/${NS}/doc` }));
  });
  afterAll(async () => {
    await t?.close();
  });

  describe.each(ROOTS)('under root "$root"', ({ root, language }) => {
    it('is a valid OpenAPI 3.1 document', async () => {
      const response = await t.app.inject({ method: 'GET', url: `${root}/${NS}/doc` });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      const doc = json<OpenApi>(response);
      expect(Object.keys(doc).slice(0, 3)).toEqual(['openapi', 'info', 'servers']);
      expect(doc.openapi).toBe('3.1.0');
      const validator = new Validator();
      const result = await validator.validate(doc);
      expect(result.errors).toBeUndefined();
      expect(result.valid).toBe(true);
      expect(validator.version).toBe('3.1');
    });

    it('holds only valid JSON Schemas (2020-12), all of them compilable with their references', () => {
      const doc = docs[root]!;
      const ajv = new Ajv2020({ strict: false });
      ajv.addSchema(doc, DOC_ID);
      const schemas = schemasOf(doc);
      expect(schemas.length).toBeGreaterThan(200);
      const invalid = schemas.filter(([, s]) => !ajv.validateSchema(s as Json)).map(([where]) => `${where}: ${ajv.errorsText()}`);
      expect(invalid).toEqual([]);
      for (const name of Object.keys(doc.components.schemas)) expect(() => ajv.compile({ $ref: `${DOC_ID}#/components/schemas/${name}` }), name).not.toThrow();
    });

    it('documents every path and method of the spec, and nothing else', () => {
      expect(operationsOf(docs[root]!).sort()).toEqual(SPEC_OPERATIONS);
      const ids = Object.values(docs[root]!.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('has servers[0].url = the namespace base of the request (host and root)', async () => {
      expect(docs[root]!.servers).toEqual([{ url: `http://localhost:80${root}/${NS}` }]);
      const other = json<OpenApi>(await t.app.inject({ method: 'GET', url: `${root}/${NS}/doc`, headers: { host: 'api.example.org:8080' } }));
      expect(other.servers).toEqual([{ url: `http://api.example.org:8080${root}/${NS}` }]);
      // Without TRUST_PROXY, forwarded headers are not believed.
      const forwarded = json<OpenApi>(
        await t.app.inject({ method: 'GET', url: `${root}/${NS}/doc`, headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' } }),
      );
      expect(forwarded.servers[0]?.url).toBe(`http://localhost:80${root}/${NS}`);
    });

    it('is the same document at /doc, /docs/json and /docs/yaml', async () => {
      const yaml = await t.app.inject({ method: 'GET', url: `${root}/docs/yaml` });
      expect(yaml.statusCode).toBe(200);
      expect(yaml.headers['content-type']).toMatch(/^application\/x-yaml/);
      const asJson = await t.app.inject({ method: 'GET', url: `${root}/docs/json` });
      expect(asJson.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(parseYaml(yaml.body)).toEqual(docs[root]);
      expect(json(asJson)).toEqual(docs[root]);
    });

    it(`is described in ${language}: every text comes from src/i18n/${language}.json`, () => {
      const messages = new Set(Object.values(MESSAGES[language]));
      const texts = textsOf(docs[root]!);
      expect(texts.length).toBeGreaterThan(200);
      expect(texts.filter((text) => !messages.has(text))).toEqual([]);
      expect((docs[root]!.info as Json).title).toBe(MESSAGES[language]['api.title']);
    });

    it('marks the writes, which need a token, as secured, and nothing else', () => {
      const doc = docs[root]!;
      expect((doc.components.securitySchemes as Json).bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(doc).not.toHaveProperty('security');
      let writes = 0;
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          const write = method !== 'get';
          if (write) {
            writes += 1;
            expect(op.security, `${method} ${path}`).toEqual([{ bearer: [] }]);
            expect(op.responses, `${method} ${path}`).toHaveProperty('401');
          } else {
            expect(op, `${method} ${path}`).not.toHaveProperty('security');
          }
        }
      }
      expect(writes).toBe(SPEC_OPERATIONS.filter((op) => !op.startsWith('get ')).length);
    });

    it(`names the tags in ${language}, and files every operation under one of them`, () => {
      const doc = docs[root]!;
      const groups = ['discovery', 'events', 'venues', 'organizers', 'categories', 'tags', 'deleted', 'series'];
      expect(doc.tags.map((tag) => tag.name)).toEqual(groups.map((group) => MESSAGES[language][`groupName.${group}`]));
      expect(doc.tags.map((tag) => tag.description)).toEqual(groups.map((group) => MESSAGES[language][`group.${group}`]));
      const names = new Set(doc.tags.map((tag) => tag.name));
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          expect(op.tags, `${method} ${path}`).toHaveLength(1);
          expect(names.has(op.tags[0]!), `${method} ${path}: ${op.tags[0]}`).toBe(true);
        }
      }
      expect(doc.paths['/events/{id}']!.get!.tags).toEqual([MESSAGES[language]['groupName.events']]);
    });

    it('points every error response at the one Error schema', () => {
      const doc = docs[root]!;
      expect(doc.components.schemas.Error).toMatchObject({ type: 'object', required: ['code', 'message', 'data'] });
      for (const [name, response] of Object.entries(doc.components.responses)) {
        expect(response.content, name).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/Error' } } });
      }
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          for (const [code, response] of Object.entries(op.responses)) {
            if (Number(code) >= 400) expect(response.$ref, `${method} ${path} ${code}`).toMatch(/^#\/components\/responses\/\w+$/);
            else expect(Object.keys(response.content as Json), `${method} ${path} ${code}`).toEqual([mediaTypeOf(path)]);
          }
          expect(op.responses, `${method} ${path}`).toHaveProperty('400');
        }
      }
    });

    it('documents request bodies (JSON and form) and the list headers', () => {
      const doc = docs[root]!;
      const create = doc.paths['/events']!.post!;
      expect(create.requestBody).toMatchObject({
        required: true,
        content: {
          'application/json': { schema: { $ref: '#/components/schemas/EventCreate' } },
          'application/x-www-form-urlencoded': { schema: { $ref: '#/components/schemas/EventCreate' } },
        },
      });
      expect(doc.components.schemas.EventCreate).toMatchObject({ required: ['title', 'start_date', 'end_date'], additionalProperties: false });
      expect(doc.paths['/events/{id}']!.patch!.requestBody).toMatchObject({
        required: false,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/EventUpdate' } } },
      });
      // With `recurrence` the create answers the new series.
      expect(create.responses['201']).toMatchObject({
        content: { 'application/json': { schema: { anyOf: [{ $ref: '#/components/schemas/Event' }, { $ref: '#/components/schemas/Series' }] } } },
      });
      expect(Object.keys(doc.paths['/events']!.get!.responses['200']!.headers as Json)).toEqual(['X-TEC-Total', 'X-TEC-TotalPages', 'Link']);
      const search = doc.paths['/events']!.get!.parameters!.find((p) => p.name === 'search');
      expect(search).toMatchObject({ in: 'query', required: false, description: MESSAGES[language]['eventList.search'], schema: { type: 'string' } });
      expect(doc.paths['/events/{id}']!.get!.parameters![0]).toMatchObject({ name: 'id', in: 'path', required: true, schema: { type: 'integer' } });
    });

    it('documents the iCalendar feeds: text/calendar, the list filters without paging, X-TEC-Total', () => {
      const doc = docs[root]!;
      const feed = doc.paths['/events.ics']!.get!;
      expect(feed).toMatchObject({
        operationId: 'getEventsFeed',
        summary: MESSAGES[language]['operation.events.feed'],
        tags: [MESSAGES[language]['groupName.events']],
      });
      expect(feed.responses['200']).toEqual({
        description: MESSAGES[language]['response.200'],
        headers: { 'X-TEC-Total': { description: MESSAGES[language]['header.feedTotal'], schema: { type: 'integer' } } },
        content: { 'text/calendar': { schema: { type: 'string', description: MESSAGES[language]['feed.response'] } } },
      });
      const names = (op: Operation) => (op.parameters ?? []).map((p) => p.name);
      expect(names(feed)).toEqual(names(doc.paths['/events']!.get!).filter((name) => name !== 'page' && name !== 'per_page'));
      expect(doc.paths['/events/{id}.ics']!.get!).toMatchObject({
        operationId: 'getEventFeed',
        parameters: [{ name: 'id', in: 'path' }, { name: 'password' }, { name: 'context' }],
      });
      expect(doc.paths['/events/by-slug/{slug}.ics']!.get!.operationId).toBe('getEventFeedBySlug');
      for (const path of ['/events/{id}.ics', '/events/by-slug/{slug}.ics']) {
        expect(doc.paths[path]!.get!.responses['200']).toEqual({
          description: MESSAGES[language]['response.200'],
          content: { 'text/calendar': { schema: { type: 'string', description: MESSAGES[language]['feed.response'] } } },
        });
      }
    });
  });

  it('has identical paths, methods, parameters and schemas under /en and /de; only the descriptions and tag names differ', () => {
    const en = docs['/en']!;
    const de = docs['/de']!;
    expect(Object.keys(de.paths)).toEqual(Object.keys(en.paths));
    expect(operationsOf(de)).toEqual(operationsOf(en));
    // Tag names in /de mapped back to the English ones: the same operations in the same groups.
    const english = new Map(de.tags.map((tag, i) => [tag.name, en.tags[i]!.name]));
    expect(english.size).toBe(en.tags.length);
    const withEnglishTags = (doc: OpenApi): OpenApi => ({
      ...doc,
      tags: doc.tags.map((tag) => ({ ...tag, name: english.get(tag.name) ?? tag.name })),
      paths: Object.fromEntries(
        Object.entries(doc.paths).map(([path, item]) => [
          path,
          Object.fromEntries(Object.entries(item).map(([method, op]) => [method, { ...op, tags: op.tags.map((tag) => english.get(tag) ?? tag) }])),
        ]),
      ),
    });
    expect(de.tags.map((tag) => tag.name)).not.toEqual(en.tags.map((tag) => tag.name));
    const strip = (doc: OpenApi) => withoutText({ ...doc, info: { ...(doc.info as Json), title: undefined }, servers: undefined });
    expect(strip(withEnglishTags(de))).toEqual(strip(en));
    for (const [path, item] of Object.entries(en.paths)) {
      for (const [method, op] of Object.entries(item)) {
        expect(withoutText(de.paths[path]?.[method]?.parameters)).toEqual(withoutText(op.parameters));
      }
    }
    // The texts are in the same places, and translated.
    const enTexts = textsOf(en);
    const deTexts = textsOf(de);
    expect(deTexts.length).toBe(enTexts.length);
    const same = enTexts.filter((text, i) => deTexts[i] === text);
    expect([...new Set(same)]).toEqual(['Slug']);
    expect(de.paths['/events']!.get!.summary).toBe('Veranstaltungen auflisten');
    expect(docs['']).toEqual({ ...en, servers: [{ url: `http://localhost:80/${NS}` }] });
  });

  it('documents 429 responses when rate limits are on', async () => {
    const limited = await openTestApp(engine, { RATE_LIMIT_READS: '1000', RATE_LIMIT_WRITES: '100' });
    try {
      const doc = json<OpenApi>(await limited.app.inject({ method: 'GET', url: `/de/${NS}/doc` }));
      expect(doc.paths['/events']!.get!.responses['429']).toEqual({ $ref: '#/components/responses/TooManyRequests' });
      expect(doc.paths['/events']!.post!.responses['429']).toEqual({ $ref: '#/components/responses/TooManyRequests' });
      expect((await new Validator().validate(doc)).valid).toBe(true);
    } finally {
      await limited.close();
    }
    expect(docs['/de']!.paths['/events']!.get!.responses).not.toHaveProperty('429');
  });

  it('uses the forwarded scheme and host for servers when TRUST_PROXY is set', async () => {
    const proxied = await openTestApp(engine, { TRUST_PROXY: 'true' });
    try {
      const doc = json<OpenApi>(
        await proxied.app.inject({
          method: 'GET',
          url: `/fr/${NS}/doc`,
          headers: { 'x-forwarded-host': 'calendar.example.org', 'x-forwarded-proto': 'https' },
        }),
      );
      expect(doc.servers).toEqual([{ url: `https://calendar.example.org/fr/${NS}` }]);
    } finally {
      await proxied.close();
    }
  });
});

describe(`${engine.name} engine: real responses match the documented schemas`, () => {
  let t: TestApp;
  type Sample = { path: string; method: string; response: LightMyRequestResponse };
  const samples: Sample[] = [];

  /** One request under /de; `path` is the documented path, `{name}` filled from `params`. */
  async function call(
    method: string,
    path: string,
    options: { params?: Record<string, string | number>; query?: string; payload?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Json> {
    const filled = path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String(options.params?.[name])));
    const response = await t.app.inject({
      method: method.toUpperCase() as 'GET',
      url: `/de/${NS}${filled}${options.query ?? ''}`,
      headers: options.headers ?? EDITOR,
      ...(options.payload === undefined ? {} : { payload: options.payload as Json }),
    });
    samples.push({ path, method, response });
    return response.body.startsWith('{') ? json(response) : {};
  }

  beforeAll(async () => {
    t = await openTestApp(engine, { API_TOKENS: `editor:${EDITOR_TOKEN}:1,viewer:viewer-token-0123456789abcdef` });

    await call('get', '/');
    await call('get', '/', { query: '?context=help' });
    await call('get', '/doc');

    // Linked records first, then an event using all of them.
    const venue = await call('post', '/venues', {
      payload: {
        venue: 'Harbour Hall',
        address: '1 Quay',
        city: 'Hamburg',
        country: 'Germany',
        zip: '20457',
        phone: '+49 40 1',
        website: 'https://hall.example',
      },
    });
    const organizer = await call('post', '/organizers', { payload: { organizer: 'Harbour Friends', email: 'friends@example.org', phone: '+49 40 2' } });
    const category = await call('post', '/categories', { payload: { name: 'Music', description: 'Live music' } });
    const child = await call('post', '/categories', { payload: { name: 'Jazz', parent: category.id } });
    const tag = await call('post', '/tags', { payload: { name: 'Outdoor' } });
    const event = await call('post', '/events', {
      payload: {
        title: 'Harbour lights',
        description: '<p>Music by the water.</p>',
        start_date: '2030-06-10 19:00:00',
        end_date: '2030-06-10 21:30:00',
        timezone: 'Europe/Berlin',
        venue: venue.id,
        organizer: [organizer.id],
        categories: [child.id],
        tags: [tag.id],
        image: 'https://example.org/harbour.jpg',
        cost: '10',
        website: 'https://example.org/harbour',
        featured: true,
      },
    });
    const minimal = await call('post', '/events', {
      payload: { title: 'Minimal', start_date: '2030-07-01 10:00', end_date: '2030-07-01 11:00', all_day: true },
    });

    await call('get', '/events');
    await call('get', '/events', { query: '?per_page=1&start_date=2030-01-01' });
    await call('get', '/events', { query: `?include=${String(event.id)}&context=edit` });
    await call('get', '/events/{id}', { params: { id: event.id as number } });
    await call('get', '/events/by-slug/{slug}', { params: { slug: event.slug as string } });
    await call('get', '/events.ics', { query: '?start_date=2030-01-01&end_date=2030-12-31' });
    await call('get', '/events/{id}.ics', { params: { id: event.id as number } });
    await call('get', '/events/by-slug/{slug}.ics', { params: { slug: event.slug as string } });
    await call('get', '/events.ics', { query: '?geoloc_lat=91' }); // 400
    await call('get', '/events/{id}.ics', { params: { id: 999_999 } }); // 404
    for (const method of ['post', 'put', 'patch']) {
      await call(method, '/events/{id}', { params: { id: event.id as number }, payload: { excerpt: `Updated with ${method}` } });
      await call(method, '/events/by-slug/{slug}', { params: { slug: minimal.slug as string }, payload: { sticky: method === 'put' } });
    }

    for (const [resource, body, field] of [
      ['venues', { venue: 'Second hall', city: 'Bremen' }, 'city'],
      ['organizers', { organizer: 'Second friends' }, 'phone'],
    ] as const) {
      const existing = resource === 'venues' ? venue : organizer;
      const second = await call('post', `/${resource}`, { payload: body });
      const third = await call('post', `/${resource}`, { payload: { ...body, [resource === 'venues' ? 'venue' : 'organizer']: 'Third' } });
      await call('get', `/${resource}`);
      await call('get', `/${resource}`, { query: '?has_events=true&search=harbour' });
      await call('get', `/${resource}/{id}`, { params: { id: existing.id as number } });
      await call('get', `/${resource}/by-slug/{slug}`, { params: { slug: existing.slug as string } });
      for (const method of ['post', 'put', 'patch']) {
        await call(method, `/${resource}/{id}`, { params: { id: second.id as number }, payload: { [field]: `${method} value` } });
        await call(method, `/${resource}/by-slug/{slug}`, { params: { slug: second.slug as string }, payload: { description: `${method} text` } });
      }
      await call('delete', `/${resource}/{id}`, { params: { id: second.id as number } });
      await call('delete', `/${resource}/{id}`, { params: { id: second.id as number } }); // 410
      await call('delete', `/${resource}/by-slug/{slug}`, { params: { slug: third.slug as string } });
      await call('get', `/${resource}/{id}`, { params: { id: 999_999 } }); // 404
    }

    for (const resource of ['categories', 'tags']) {
      const term = resource === 'categories' ? child : tag;
      const other = await call('post', `/${resource}`, { payload: { name: `Spare ${resource}` } });
      await call('get', `/${resource}`);
      await call('get', `/${resource}`, { query: '?hide_empty=false&orderby=count&order=desc' });
      await call('get', `/${resource}/{id}`, { params: { id: term.id as number } });
      for (const method of ['post', 'put', 'patch']) {
        await call(method, `/${resource}/{id}`, { params: { id: other.id as number }, payload: { description: `${method} text` } });
      }
      await call('patch', `/${resource}/{id}`, { params: { id: other.id as number }, payload: { slug: term.slug } }); // 409
      await call('delete', `/${resource}/{id}`, { params: { id: other.id as number } });
      await call('get', `/${resource}/{id}`, { params: { id: other.id as number } }); // 404
    }

    // Error responses of several kinds.
    await call('get', '/events/{id}', { params: { id: 999_999 } }); // 404 rest-event-not-found
    await call('get', '/events', { query: '?page=500' }); // 404 past the end
    await call('get', '/events', { query: '?geoloc_lat=91' }); // 400
    await call('post', '/events', { payload: {} }); // 400 missing
    await call('post', '/events', { payload: { title: 'x' }, headers: {} }); // 401
    await call('post', '/events', { payload: { title: 'x' }, headers: VIEWER }); // 403
    await call('patch', '/events/{id}', { params: { id: event.id as number }, payload: { start_date: 'not a date at all' } }); // 400
    await call('post', '/events', { payload: 'title=x', headers: { ...EDITOR, 'content-type': 'text/plain' } }); // 415
    await call('delete', '/events/by-slug/{slug}', { params: { slug: minimal.slug as string } });
    await call('delete', '/events/{id}', { params: { id: event.id as number } });
    await call('delete', '/events/{id}', { params: { id: event.id as number } }); // 410
    await call('get', '/events/{id}', { params: { id: event.id as number }, headers: {} }); // trashed, anonymous
    await call('get', '/deleted', { query: '?since=-1%20day&type=event,venue', headers: {} });
    await call('get', '/deleted', { query: '?since=2000-01-01' }); // 410 rest_sync_expired

    // A recurring series: created, read, and an occurrence read as an event (next week: within
    // the horizon of occurrences written at once).
    const nextWeek = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
    const series = await call('post', '/events', {
      payload: { title: 'Weekly', start_date: `${nextWeek} 19:00:00`, end_date: `${nextWeek} 21:00:00`, recurrence: { rrule: 'FREQ=WEEKLY;COUNT=3' } },
    });
    await call('get', '/series/{id}', { params: { id: series.id as number }, headers: {} });
    await call('get', '/events/{id}', { params: { id: (series.next_occurrences as Json[])[0]!.id as number }, headers: {} });
    await call('get', '/series/{id}', { params: { id: 999_999 }, headers: {} }); // 404
    await call('post', '/events', { payload: { title: 'x', start_date: '2030-03-05', end_date: '2030-03-05', recurrence: { rrule: 'FREQ=WEEKLY' } } }); // 400
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(['', '/de'])('validates every sample against the document of root "%s"', async (root) => {
    const doc = json<OpenApi>(await t.app.inject({ method: 'GET', url: `${root}/${NS}/doc` }));
    const check = responseChecker(doc);
    const failures = samples.map(({ path, method, response }) => check(path, method, response)).filter((f) => f !== null);
    expect(failures).toEqual([]);
  });

  it('has a successful sample of every documented operation, and errors of every common kind', () => {
    const succeeded = new Set(samples.filter((s) => s.response.statusCode < 300).map((s) => `${s.method} ${s.path}`));
    expect([...succeeded].sort()).toEqual(SPEC_OPERATIONS);
    const statuses = new Set(samples.map((s) => s.response.statusCode));
    for (const status of [200, 201, 400, 401, 403, 404, 409, 410, 415]) expect(statuses, String(status)).toContain(status);
  });
});
