/**
 * Property-based fuzzing. Every route and method the app registers (collected
 * with an `onRoute` hook: the namespace's, registered once for every language root, plus the health
 * routes) gets FUZZ_RUNS (default 200) generated malformed requests through `app.inject`, the
 * namespace's under every root (the root is generated too): wrong types, missing and extra fields,
 * huge strings and arrays, deep nesting, `__proto__`/`constructor` keys, `$`-operator objects,
 * invalid UTF-8 and percent-encoding, unusual numbers (NaN, 1e308, -0, 2^53+1), empty and
 * duplicated query keys, odd content types, authorization and Host headers. Property: the answer is
 * never a 5xx; a 4xx is in the error shape; a rejected (4xx) request leaves the store unchanged.
 * On failure fast-check prints the seed and path (replay with `fc.assert(..., { seed, path })`).
 */
import fc from 'fast-check';
import { type FastifyInstance, type InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Storage } from '../../src/storage/port.js';
import {
  API,
  EDITOR,
  ROOTS,
  type TestApp,
  VIEWER,
  createEventOk,
  insertCategory,
  insertOrganizer,
  insertTag,
  insertVenue,
  openTestApp,
  snapshot,
} from '../helpers/app.js';
import { type EngineUnderTest, enginesUnderTest } from '../helpers/engines.js';

const { engines } = await enginesUnderTest();

/** Runs per route and method; raise with FUZZ_RUNS=2000 for a longer campaign (test code only reads it). */
const RUNS = (() => {
  const raw = process.env.FUZZ_RUNS;
  const n = raw === undefined || raw.trim() === '' ? 200 : Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`FUZZ_RUNS must be a positive integer (got "${raw}")`);
  return n;
})();

interface RouteUnderFuzz {
  method: string;
  url: string;
  queryKeys: string[];
  bodyKeys: string[];
  write: boolean;
}

function keysOf(schema: unknown): string[] {
  if (schema === null || typeof schema !== 'object') return [];
  const s = schema as { properties?: Record<string, unknown>; anyOf?: unknown[]; oneOf?: unknown[]; allOf?: unknown[] };
  const own = s.properties ? Object.keys(s.properties) : [];
  const nested = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])].flatMap(keysOf);
  return [...new Set([...own, ...nested])];
}

/** The test app; with `onRoute`, the API's routes in scope as they are registered. */
function openApp(engine: EngineUnderTest, onRoute?: (route: RouteUnderFuzz) => void): Promise<TestApp> {
  return openTestApp(engine, {}, (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const inScope = route.url.startsWith(`${API}`) || route.url.startsWith('/health');
    if (!onRoute || !inScope) return;
    for (const method of methods) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      const schema = (route.schema ?? {}) as { querystring?: unknown; body?: unknown };
      onRoute({
        method,
        url: route.url,
        queryKeys: keysOf(schema.querystring),
        bodyKeys: keysOf(schema.body),
        write: method !== 'GET',
      });
    }
  });
}

// The route table, from the app as registered (engine-independent).
const ROUTES: RouteUnderFuzz[] = [];
if (engines[0] !== undefined) {
  const probe = await openApp(engines[0], (route) => ROUTES.push(route));
  await probe.close();
}
const ROUTE_TABLE = [...new Map(ROUTES.map((r) => [`${r.method} ${r.url}`, r])).values()];

// ---------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------

const HUGE = 'x'.repeat(300_000);
const WEIRD_KEYS = ['__proto__', 'constructor', 'prototype', '$gt', '$where', '$ne', '', 'a.b', 'toString', 'hasOwnProperty'];
const NUMBER_TEXTS = [
  'NaN',
  'Infinity',
  '-Infinity',
  '1e308',
  '-1e308',
  '1e309',
  '-0',
  '0',
  '9007199254740993',
  '-9007199254740993',
  '1.5',
  '-1',
  '0x10',
  '1_000',
  ' 1',
  '1 ',
];

const scalarText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'null',
    'true',
    'false',
    '0',
    '-0',
    '1e308',
    '-1e308',
    '9007199254740993',
    '1.5',
    '-1',
    '""',
    '"\\ud800"',
    '"\\u0000"',
    `"${'a'.repeat(5000)}"`,
  ),
  fc.constantFrom(...NUMBER_TEXTS).map((n) => JSON.stringify(n)),
  fc.string({ maxLength: 30 }).map((s) => JSON.stringify(s)),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => JSON.stringify(x)),
);

function jsonKeyArb(keys: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: keys.length > 0 ? fc.constantFrom(...keys) : fc.constant('title') },
    { weight: 2, arbitrary: fc.constantFrom(...WEIRD_KEYS) },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  );
}

function jsonTextArb(keys: string[]): fc.Arbitrary<string> {
  const key = jsonKeyArb(keys);
  const { tree } = fc.letrec<{ tree: string }>((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalarText,
      fc.array(tie('tree'), { maxLength: 5 }).map((items) => `[${items.join(',')}]`),
      // Duplicated keys are allowed in the text (JSON.parse keeps the last one).
      fc.array(fc.tuple(key, tie('tree')), { maxLength: 6 }).map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
      fc.constantFrom('{"$gt":""}', '{"$ne":null}', '{"$where":"sleep(1000)"}', '{"__proto__":{"isAdmin":true}}', '{"constructor":{"prototype":{"x":1}}}'),
    ),
  }));
  return tree;
}

function bodyArb(keys: string[]): fc.Arbitrary<{ payload: string | Buffer; contentType: string | undefined }> {
  const objectText = fc
    .array(fc.tuple(jsonKeyArb(keys), jsonTextArb(keys)), { maxLength: 8 })
    .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);
  const special = fc.constantFrom(
    '',
    '{',
    'not json',
    'null',
    '[]',
    '"string"',
    '123',
    `{"title":"${HUGE}"}`,
    `[${Array.from({ length: 20_000 }, () => '1').join(',')}]`,
    `{"tags":[${Array.from({ length: 5_000 }, (_, i) => i).join(',')}]}`,
    `${'{"a":'.repeat(2_000)}1${'}'.repeat(2_000)}`,
    `${'['.repeat(5_000)}${']'.repeat(5_000)}`,
    '{"title":NaN}',
    '{"title":1e309}',
    '{"__proto__":{"polluted":1},"title":"x"}',
  );
  const text = fc.oneof({ weight: 6, arbitrary: objectText }, { weight: 2, arbitrary: jsonTextArb(keys) }, { weight: 2, arbitrary: special });
  const payload = fc.oneof(
    { weight: 8, arbitrary: text },
    // Invalid UTF-8 inside otherwise plausible JSON.
    {
      weight: 1,
      arbitrary: text.map((t) =>
        Buffer.concat([Buffer.from(t.slice(0, Math.floor(t.length / 2))), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(t.slice(Math.floor(t.length / 2)))]),
      ),
    },
    // Form bodies with odd keys.
    { weight: 1, arbitrary: queryArb(keys) },
  );
  const contentType = fc.constantFrom<string | undefined>(
    'application/json',
    'application/json',
    'application/json; charset=utf-8',
    'application/x-www-form-urlencoded',
    'text/plain',
    'application/xml',
    undefined,
    'application/json; charset=latin1',
  );
  return fc.record({ payload, contentType });
}

function queryArb(keys: string[]): fc.Arbitrary<string> {
  const key = fc.oneof(
    { weight: 4, arbitrary: keys.length > 0 ? fc.constantFrom(...keys) : fc.constant('page') },
    { weight: 2, arbitrary: fc.constantFrom(...WEIRD_KEYS) },
    { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
  );
  const rawKey = fc.tuple(key, fc.constantFrom('', '', '', '[]', '[0]', '[9999999999]', '[a]', '[$gt]')).map(([k, suffix]) => encodeURIComponent(k) + suffix);
  const value = fc.oneof(
    fc.constantFrom(...NUMBER_TEXTS).map(encodeURIComponent),
    fc.constantFrom(
      '',
      '%ff',
      '%',
      '%E0%A4%A',
      '%00',
      '%C0%AE',
      'a,b,,c',
      ',,,,',
      'x'.repeat(5_000),
      Array.from({ length: 500 }, (_, i) => i).join(','),
      '2030-13-45',
      'null',
      'true',
      'publish,trash',
    ),
    fc.string({ maxLength: 40 }).map(encodeURIComponent),
    fc.integer().map(String),
  );
  return (
    fc
      .array(fc.tuple(rawKey, value, fc.boolean()), { maxLength: 10 })
      // Some keys without `=`; repeated keys happen naturally.
      .map((pairs) => pairs.map(([k, v, bare]) => (bare && v === '' ? k : `${k}=${v}`)).join('&'))
  );
}

function paramArb(validIds: number[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...validIds.map(String)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        ...NUMBER_TEXTS.map(encodeURIComponent),
        'abc',
        '%ff',
        '%',
        '__proto__',
        'constructor',
        '%24gt',
        'a'.repeat(600),
        '..%2F..',
        '0',
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map(encodeURIComponent) },
  );
}

const authArb = fc.constantFrom<Record<string, string>>(
  EDITOR,
  EDITOR,
  EDITOR,
  VIEWER,
  {},
  { authorization: 'Bearer nope' },
  { authorization: `Bearer ${'x'.repeat(5_000)}` },
  { authorization: 'Basic Zm9vOmJhcg==' },
);

/** Hosts: the usual one mostly, else allowed, unknown or malformed ones (400, never a 500). */
const hostArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant<string | undefined>(undefined) },
  {
    weight: 4,
    arbitrary: fc.constantFrom<string | undefined>(
      'evil.example',
      'EVIL.example:8080',
      '127.1',
      '[::1]:3000',
      'a b',
      'x:99999999',
      '[::1',
      'a%2fb',
      'user@host',
      'h/path',
      'x:0',
      `${'h'.repeat(300)}.example`,
      'ünï.example',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }).filter((h) => !/[\r\n\0]/.test(h)) },
);

// ---------------------------------------------------------------------------
// The property
// ---------------------------------------------------------------------------

describe.each(engines)('fuzzing every route ($name engine)', (engine: EngineUnderTest) => {
  let app: FastifyInstance;
  let storage: Storage;
  let ids: number[];

  beforeAll(async () => {
    ({ app, storage } = await openApp(engine));
    const event = await createEventOk(app, { title: 'Fuzz target' });
    const venue = await insertVenue(storage);
    const organizer = await insertOrganizer(storage);
    const category = await insertCategory(storage);
    const tag = await insertTag(storage);
    ids = [event.id as number, venue._id, organizer._id, category._id, tag._id];
  });
  afterAll(async () => {
    await app?.close();
    await storage?.close();
  });

  // Found by this fuzzer: a truthy parameter sent as a list reached isTruthy as an array (a 500).
  it.each(['venues?only_with_upcoming[0]=', 'venues?has_events[]=', 'organizers?only_with_upcoming[0]=', 'organizers?has_events[]=1&has_events[]=0'])(
    'GET /%s (a truthy parameter as a list) is answered, not a 500',
    async (pathAndQuery) => {
      const response = await app.inject({ method: 'GET', url: `${API}/${pathAndQuery}` });
      // One item is read as its value; several are a 400 naming the parameter.
      expect([200, 400]).toContain(response.statusCode);
      if (response.statusCode === 400) expect(response.json<{ code: string }>().code).toBe('rest_invalid_param');
    },
  );

  it('found the routes to fuzz', () => {
    expect(ROUTE_TABLE.length).toBeGreaterThan(10);
    expect(ROUTE_TABLE.some((r) => r.method === 'POST' && r.url === `${API}/events`)).toBe(true);
  });

  it.each(ROUTE_TABLE.map((r) => [`${r.method} ${r.url}`, r] as const))(
    '%s: never 5xx; 4xx in the error shape and the store unchanged',
    { timeout: 120_000 },
    async (_name, route) => {
      // The namespace is served under every root; the health routes under none.
      const roots = route.url.startsWith(API) ? ROOTS.map(({ root }) => root) : [''];
      const request = fc.record({
        root: fc.constantFrom(...roots),
        params: fc.tuple(paramArb(ids), paramArb(ids)),
        query: queryArb(route.queryKeys),
        body: route.write ? fc.option(bodyArb(route.bodyKeys), { nil: undefined, freq: 8 }) : fc.constant(undefined),
        auth: authArb,
        host: hostArb,
      });
      await fc.assert(
        fc.asyncProperty(request, async ({ root, params, query, body, auth, host }) => {
          let i = 0;
          const path = root + route.url.replace(/:[A-Za-z_]+(?:\([^)]*\))?/g, () => params[i++ % 2] as string);
          const url = query === '' ? path : `${path}?${query}`;
          const headers: Record<string, string> = { ...auth };
          if (host !== undefined) headers.host = host;
          if (body?.contentType !== undefined) headers['content-type'] = body.contentType;
          const options: InjectOptions = { method: route.method, url, headers };
          if (body !== undefined) options.payload = body.payload;
          const before = route.write ? await snapshot(storage) : null;
          const response = await app.inject(options);
          const status = response.statusCode;
          if (status >= 500) throw new Error(`${route.method} ${url} → ${status} ${response.body.slice(0, 500)}`);
          if (status >= 400) {
            const shape = `${route.method} ${url} → ${status} ${response.body.slice(0, 300)}`;
            expect(response.headers['content-type'], shape).toMatch(/^application\/json/);
            const parsed = JSON.parse(response.body) as { code: unknown; message: unknown; data: { status: unknown } };
            expect(typeof parsed.code, shape).toBe('string');
            expect(typeof parsed.message, shape).toBe('string');
            expect(parsed.data?.status, shape).toBe(status);
            if (before !== null) expect(await snapshot(storage), shape).toEqual(before);
          }
        }),
        { numRuns: RUNS, maxSkipsPerRun: 100 },
      );
    },
  );
});
