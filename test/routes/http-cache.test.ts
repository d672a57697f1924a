/**
 * HTTP caching: validators and 304s on every GET, Cache-Control by audience, HEAD, and the response
 * cache of anonymous reads — shared across parameter order and defaults, never serving an answer a
 * write or the clock has changed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { interceptStorage } from '../../src/storage/deadline.js';
import { API, EDITOR, type TestApp, json, makeEventInput, openTestApp, testConfig } from '../helpers/app.js';
import { type EngineUnderTest, routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();

type Body = Record<string, unknown>;

/** `engine` whose storages count the reads of the event list (`events.findPage`). */
function counting(engine: EngineUnderTest) {
  const counter = { pages: 0 };
  const wrapped: EngineUnderTest = {
    name: engine.name,
    open: async () =>
      interceptStorage(await engine.open(), (name, call) => {
        if (name === 'events.findPage') counter.pages++;
        return call();
      }),
  };
  return { engine: wrapped, counter };
}

describe.each(engines)('$name engine: HTTP caching', (base) => {
  const { engine, counter } = counting(base);
  let t: TestApp;
  let clock = new Date('2026-05-10T12:00:00Z');
  beforeAll(async () => {
    t = await openTestApp(engine, { SITE_TIMEZONE: 'Europe/Berlin' }, undefined, () => clock);
  });
  afterAll(async () => {
    await t?.close();
  });
  afterEach(() => {
    clock = new Date('2026-05-10T12:00:00Z');
  });

  const get = (path: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') => t.app.inject({ method, url: `${API}${path}`, headers });
  async function write(method: 'POST' | 'PATCH' | 'DELETE', path: string, payload?: Body) {
    const response = await t.app.inject({ method, url: `${API}${path}`, headers: EDITOR, ...(payload ? { payload } : {}) });
    expect(response.statusCode, response.body).toBeLessThan(300);
    return json(response);
  }
  const createEvent = (overrides: Body) =>
    write('POST', '/events', makeEventInput({ start_date: '2026-05-20 10:00:00', end_date: '2026-05-20 12:00:00', ...overrides }));
  const titles = async (path = '/events') => json<{ events: Body[] }>(await get(path)).events.map((e) => (e.title as string) ?? '');

  describe('validators and 304', () => {
    it('gives every GET a strong ETag from its bytes, and answers a matching If-None-Match with 304 and the same headers', async () => {
      const event = await createEvent({ title: 'Validated', venue: { venue: 'Validated hall' }, categories: ['Validated'] });
      const venueId = (event.venue as Body).id as number;
      const paths = ['/events', `/events/${event.id as number}`, '/venues', `/venues/${venueId}`, '/organizers', '/categories', '/tags', '', '/doc'];
      for (const path of paths) {
        const first = await get(path);
        expect(first.statusCode, path).toBe(200);
        const etag = first.headers.etag as string;
        expect(etag, path).toMatch(/^"[\w-]{27}"$/);
        expect((await get(path)).headers.etag, path).toBe(etag);
        for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
          const again = await get(path, { 'if-none-match': header });
          expect(again.statusCode, `${path} ${header}`).toBe(304);
          expect(again.body).toBe('');
          expect(again.headers.etag).toBe(etag);
          expect(again.headers['cache-control']).toBe(first.headers['cache-control']);
          expect(again.headers.vary).toBe(first.headers.vary);
        }
        expect((await get(path, { 'if-none-match': '"other"' })).statusCode, path).toBe(200);
      }
    });

    it('gives venues and organizers Last-Modified, and honours If-Modified-Since only without If-None-Match', async () => {
      const venue = await write('POST', '/venues', { venue: 'Dated hall' });
      const first = await get(`/venues/${venue.id as number}`);
      const lastModified = first.headers['last-modified'] as string;
      expect(new Date(lastModified).toUTCString()).toBe(lastModified);
      expect((await get(`/venues/${venue.id as number}`, { 'if-modified-since': lastModified })).statusCode).toBe(304);
      const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString();
      expect((await get(`/venues/${venue.id as number}`, { 'if-modified-since': earlier })).statusCode).toBe(200);
      expect((await get(`/venues/${venue.id as number}`, { 'if-modified-since': lastModified, 'if-none-match': '"other"' })).statusCode).toBe(200);
      expect((await get(`/venues/${venue.id as number}`, { 'if-modified-since': 'not a date' })).statusCode).toBe(200);
    });

    it('answers HEAD like GET without a body, validators included', async () => {
      await createEvent({ title: 'Headed' });
      for (const path of ['/events', '/categories', '']) {
        const full = await get(path);
        const head = await get(path, {}, 'HEAD');
        expect(head.statusCode).toBe(200);
        expect(head.body).toBe('');
        for (const name of ['etag', 'cache-control', 'vary', 'content-type', 'x-tec-total'])
          expect(head.headers[name], `${path} ${name}`).toEqual(full.headers[name]);
        expect((await get(path, { 'if-none-match': full.headers.etag as string }, 'HEAD')).statusCode).toBe(304);
      }
    });
  });

  describe('Cache-Control', () => {
    it('lets anyone reuse anonymous answers after revalidation, and nobody store a token’s or a password’s', async () => {
      const event = await createEvent({ title: 'Guarded' });
      await write('PATCH', `/events/${event.id as number}`, { password: 'sesame' });
      const anonymous = await get('/events');
      expect(anonymous.headers['cache-control']).toBe('public, max-age=0, must-revalidate');
      expect(anonymous.headers.vary).toBe('Authorization');
      expect((await get('/events', EDITOR)).headers['cache-control']).toBe('private, no-store');
      expect((await get(`/events/${event.id as number}?password=sesame`)).headers['cache-control']).toBe('private, no-store');
      expect((await get(`/events/${event.id as number}?password=sesame`)).body).toContain('Guarded');
      expect((await t.app.inject({ method: 'GET', url: '/health/ready' })).headers['cache-control']).toBe('no-store');
    });

    it('takes max-age from CACHE_MAX_AGE', async () => {
      const other = await openTestApp(base, { CACHE_MAX_AGE: '60' });
      try {
        expect((await other.app.inject({ method: 'GET', url: `${API}/events` })).headers['cache-control']).toBe('public, max-age=60, must-revalidate');
      } finally {
        await other.close();
      }
    });
  });

  describe('the response cache', () => {
    it('serves one entry to the same request in any parameter order and with defaults spelt out', async () => {
      await createEvent({ title: 'Ordered' });
      const before = counter.pages;
      const answers = [
        await get('/events?per_page=10&page=1'),
        await get('/events?page=1&per_page=10'),
        await get('/events?page=1'),
        await get('/events?per_page=10'),
        await get('/events'),
      ];
      expect(counter.pages - before).toBe(1);
      for (const answer of answers) expect(answer.body).toBe(answers[0]!.body);
    });

    it('never serves an answer older than an acknowledged write, under concurrent reads', async () => {
      const event = await createEvent({ title: 'Version 0' });
      const id = event.id as number;
      for (let version = 1; version <= 25; version++) {
        const during = Promise.all([get('/events'), get(`/events/${id}`)]);
        await write('PATCH', `/events/${id}`, { title: `Version ${version}` });
        await during;
        const after = await Promise.all([get('/events'), get(`/events/${id}`), get('/events?page=1'), get(`/events/${id}`)]);
        for (const response of after) expect(response.body, `after write ${version}`).toContain(`"Version ${version}"`);
      }
    });

    it('follows the clock: a scheduled event appears at its date, the default window moves at local midnight', async () => {
      await createEvent({ title: 'Scheduled', date_utc: '2026-05-10 14:00:00' });
      await createEvent({ title: 'Tonight', start_date: '2026-05-10 20:00:00', end_date: '2026-05-10 21:00:00' });
      expect(await titles()).not.toContain('Scheduled');
      expect(await titles()).toContain('Tonight');
      clock = new Date('2026-05-10T14:00:01Z');
      expect(await titles()).toContain('Scheduled');
      // The default window starts at 00:00 yesterday (Berlin): on the 12th, the 10th is out.
      clock = new Date('2026-05-11T21:59:59Z');
      expect(await titles()).toContain('Tonight');
      clock = new Date('2026-05-11T22:00:00Z');
      expect(await titles()).not.toContain('Tonight');
    });

    it('does not keep lists read relative to the clock', async () => {
      await createEvent({ title: 'Relative' });
      const before = counter.pages;
      for (let i = 0; i < 3; i++) await get('/events?start_date=now');
      expect(counter.pages - before).toBe(3);
      for (let i = 0; i < 3; i++) await get('/events?start_date=2026-05-01');
      expect(counter.pages - before).toBe(4);
    });

    it('keeps nothing for token holders', async () => {
      const before = counter.pages;
      for (let i = 0; i < 3; i++) await get('/events', EDITOR);
      expect(counter.pages - before).toBe(3);
    });
  });

  it('is off with RESPONSE_CACHE_BYTES=0, and bounded by it otherwise', async () => {
    // Each page holds one event of 20,000 characters: 30,000 bytes keep one page, not two.
    for (const [bytes, expected] of [
      ['0', 6],
      ['30000', 6],
      ['10000000', 3],
    ] as const) {
      const own = counting(base);
      const app = await openTestApp(own.engine, { RESPONSE_CACHE_BYTES: bytes });
      try {
        const payload = makeEventInput({ start_date: '2027-01-10 10:00:00', end_date: '2027-01-10 11:00:00', description: 'x'.repeat(20_000) });
        await app.app.inject({ method: 'POST', url: `${API}/events`, headers: EDITOR, payload });
        for (let round = 0; round < 2; round++) for (const page of [1, 2, 3]) await app.app.inject({ method: 'GET', url: `${API}/events?per_page=${page}` });
        expect(own.counter.pages, `RESPONSE_CACHE_BYTES=${bytes}`).toBe(expected);
      } finally {
        await app.close();
      }
    }
  });

  // On MongoDB (npm run test:mongodb) the two apps hold two clients of one database, as two
  // processes would, and the write must show within a second; the embedded engine is one process.
  it('shows a write made through another app on the same data within a second', async () => {
    const [first, second] = await base.openShared!();
    const config = testConfig();
    const [one, two] = [buildApp({ config, storage: first, logger: false }), buildApp({ config, storage: second, logger: false })];
    try {
      await Promise.all([one.ready(), two.ready()]);
      const payload = makeEventInput({ title: 'Shared 0', start_date: '2027-01-10 10:00:00', end_date: '2027-01-10 11:00:00' });
      const id = json(await one.inject({ method: 'POST', url: `${API}/events`, headers: EDITOR, payload })).id as number;
      const listed = async () => (await two.inject({ method: 'GET', url: `${API}/events` })).body;
      // One process (embedded): at once. Two (MongoDB): within a second.
      const shows = (title: string) =>
        base.name === 'embedded'
          ? listed().then((body) => expect(body).toContain(`"${title}"`))
          : vi.waitFor(async () => expect(await listed()).toContain(`"${title}"`), { timeout: 1000, interval: 20 });
      for (let version = 1; version <= 3; version++) {
        await shows(`Shared ${version - 1}`);
        await one.inject({ method: 'PATCH', url: `${API}/events/${id}`, headers: EDITOR, payload: { title: `Shared ${version}` } });
        await shows(`Shared ${version}`);
      }
    } finally {
      await Promise.all([one.close(), two.close()]);
      await second.close();
      await first.close();
    }
  });
});
