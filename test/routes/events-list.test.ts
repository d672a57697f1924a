/**
 * GET /events over HTTP: the envelope, headers and links, paging,
 * date filtering, ordering (the reference orderby values plus ours),
 * hide-from-listings, language roots and HEAD — the reference's EventArchiveCest
 * with our differences. Filters (search, terms, venue, …) are in
 * ./events-list-filters.test.ts.
 *
 * Every test opens its own app on a fresh store: a list sees every event of the store.
 */
import { type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { API, EDITOR, type TestApp, createEventOk, json } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';
import { sharedTestApp } from '../helpers/shared-app.js';

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
type ErrorBody = { code: string; message: string; data: { status: number; params?: Record<string, string> } };

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
/** Where inject's requests come from: links use this origin. */
const ORIGIN = 'http://localhost:80';
const BASE = `${ORIGIN}${API}/events`;

/** `YYYY-MM-DD HH:MM:SS` of an instant in UTC (the site time zone of most suites here). */
function utcWall(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

function startOfUtcDay(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
}

function plusMonths(ms: number, months: number): number {
  const d = new Date(ms);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d.getTime();
}

/** The query of a link as [key, value] pairs, decoded. */
function queryOf(url: string): Array<[string, string]> {
  return [...new URL(url).searchParams.entries()];
}

function withoutPage(pairs: Array<[string, string]>): Array<[string, string]> {
  return pairs.filter(([k]) => k !== 'page');
}

describe.each(engines)('$name engine: GET /events', (engine) => {
  let t: TestApp;
  const shared = sharedTestApp(engine);
  beforeEach(async () => {
    t = await shared.fresh();
  });
  afterAll(() => shared.close());

  const list = (query = '', headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: `${API}/events${query === '' ? '' : `?${query}`}`, headers });
  const listOk = async (query = '', headers: Record<string, string> = {}): Promise<ListBody> => {
    const response = await list(query, headers);
    expect(response.statusCode, response.body).toBe(200);
    return json<ListBody>(response);
  };
  const ids = (body: ListBody) => body.events.map((e) => e.id as number);
  const expectInvalid = async (query: string, param: string, headers: Record<string, string> = {}) => {
    const response = await list(query, headers);
    expect(response.statusCode, `${query}: ${response.body}`).toBe(400);
    const body = json<ErrorBody>(response);
    expect(body.code).toBe('rest_invalid_param');
    expect(body.data.status).toBe(400);
    expect(Object.keys(body.data.params ?? {})).toContain(param);
    return body;
  };

  /** Creates an event (as the editor) and returns its id. */
  const add = async (overrides: Record<string, unknown> = {}): Promise<number> => (await createEventOk(t.app, overrides)).id as number;
  /** An event starting at `startMs` (UTC), lasting `durationMs`. */
  const addAt = (startMs: number, overrides: Record<string, unknown> = {}, durationMs = 2 * HOUR) =>
    add({ start_date: utcWall(startMs), end_date: utcWall(startMs + durationMs), ...overrides });
  /** `n` events at +24 h (the reference's haveManyEventsInDatabase), in creation order. */
  const addUpcoming = async (n: number, overrides: Record<string, unknown> = {}): Promise<number[]> => {
    const start = Date.now() + DAY;
    const created: number[] = [];
    for (let i = 0; i < n; i += 1) created.push(await addAt(start, { title: `Upcoming ${i + 1}`, ...overrides }));
    return created;
  };

  describe('envelope and headers', () => {
    it('answers an empty list with 200, zero totals and no next/previous links', async () => {
      const response = await list();
      expect(response.statusCode).toBe(200);
      const body = json<ListBody>(response);
      expect(Object.keys(body)).toEqual(['events', 'rest_url', 'total', 'total_pages']);
      expect(body.events).toEqual([]);
      expect(body.total).toBe(0);
      expect(body.total_pages).toBe(0);
      expect(response.headers['x-tec-total']).toBe('0');
      expect(response.headers['x-tec-totalpages']).toBe('0');
      expect(response.headers.link).toBeUndefined();
      expect(body.rest_url.startsWith(`${BASE}/?`)).toBe(true);
    });

    it('lists upcoming events (+24 h) in creation order, with the envelope keys in the reference order', async () => {
      const created = await addUpcoming(5);
      const response = await list();
      const body = json<ListBody>(response);
      expect(ids(body)).toEqual(created);
      expect(body.total).toBe(5);
      expect(body.total_pages).toBe(1);
      expect(Object.keys(body)).toEqual(['events', 'rest_url', 'total', 'total_pages']);
      expect(body.events[0]).toMatchObject({ id: created[0], title: 'Upcoming 1', status: 'publish' });
      expect(response.headers['x-tec-total']).toBe('5');
      expect(response.headers['x-tec-totalpages']).toBe('1');
    });

    it('answers totals in the body and the headers (10 events, per_page 5)', async () => {
      await addUpcoming(10);
      const response = await list('per_page=5');
      const body = json<ListBody>(response);
      expect(body.events).toHaveLength(5);
      expect([body.total, body.total_pages]).toEqual([10, 2]);
      expect([response.headers['x-tec-total'], response.headers['x-tec-totalpages']]).toEqual(['10', '2']);
    });

    it('answers HEAD like GET without a body', async () => {
      await addUpcoming(3);
      const get = await list('per_page=2');
      const head = await t.app.inject({ method: 'HEAD', url: `${API}/events?per_page=2` });
      expect(head.statusCode).toBe(200);
      expect(head.body).toBe('');
      expect(head.headers['x-tec-total']).toBe('3');
      expect(head.headers['x-tec-totalpages']).toBe('2');
      expect(head.headers.link).toBe(get.headers.link);
      expect(head.headers['content-type']).toBe(get.headers['content-type']);
    });

    it('answers HEAD of a bad request with 400 and no body', async () => {
      const head = await t.app.inject({ method: 'HEAD', url: `${API}/events?page=foo` });
      expect(head.statusCode).toBe(400);
      expect(head.body).toBe('');
    });
  });

  describe('the default window', () => {
    it('lists events from 00:00 yesterday (site time zone) to now + 24 months', async () => {
      const now = Date.now();
      const yesterday = startOfUtcDay(now) - DAY;
      const upcoming = await addAt(now + DAY, { title: 'Tomorrow' });
      // A multi-day event that started before yesterday is excluded although it is still running.
      await add({ title: 'Started two days ago', start_date: utcWall(yesterday - 60_000), end_date: utcWall(now + HOUR) });
      // An event that started yesterday and has already ended is included.
      const endedToday = await add({ title: 'Ended this morning', start_date: utcWall(yesterday + 60_000), end_date: utcWall(now - 60_000) });
      const inTwentyThreeMonths = await addAt(plusMonths(now, 23), { title: 'In 23 months' });
      // Ends after now + 24 months: out of the window.
      await add({ title: 'Ends too late', start_date: utcWall(plusMonths(now, 24) - HOUR), end_date: utcWall(plusMonths(now, 24) + DAY) });
      await addAt(plusMonths(now, 25), { title: 'In 25 months' });
      await addAt(yesterday - 3 * DAY, { title: 'Last week' });

      const body = await listOk();
      expect(ids(body)).toEqual([endedToday, upcoming, inTwentyThreeMonths]);
      expect(body.total).toBe(3);
    });

    it('echoes the default window in rest_url: 00:00:00 yesterday and 23:59:59 of the day 24 months ahead', async () => {
      const before = Date.now();
      const body = await listOk();
      const after = Date.now();
      const query = Object.fromEntries(queryOf(body.rest_url));
      expect([utcWall(startOfUtcDay(before) - DAY), utcWall(startOfUtcDay(after) - DAY)]).toContain(query.start_date);
      // 23:59:59 of the (UTC) day 24 months ahead, like the reference's sample 03.
      const endOfDay = (t: number) => utcWall(startOfUtcDay(plusMonths(t, 24)) + DAY - 1000);
      expect([endOfDay(before), endOfDay(after)]).toContain(query.end_date);
      expect(queryOf(body.rest_url).map(([k]) => k)).toEqual(['page', 'per_page', 'status', 'start_date', 'end_date']);
      expect(query).toMatchObject({ page: '1', per_page: '10', status: 'publish' });
    });
  });

  describe('per_page and page', () => {
    it('returns 10 events by default', async () => {
      const created = await addUpcoming(12);
      const body = await listOk();
      expect(ids(body)).toEqual(created.slice(0, 10));
      expect([body.total, body.total_pages]).toEqual([12, 2]);
    });

    it('returns per_page events (7 events: 5 of them with per_page=5, all with per_page=10)', async () => {
      const created = await addUpcoming(7);
      expect(ids(await listOk('per_page=5'))).toEqual(created.slice(0, 5));
      expect(ids(await listOk('per_page=10'))).toEqual(created);
    });

    it('clamps per_page to 50 and echoes the effective value (51 events, per_page=100)', async () => {
      const created = await addUpcoming(51);
      const response = await list('per_page=100');
      expect(response.statusCode).toBe(200);
      const body = json<ListBody>(response);
      expect(ids(body)).toEqual(created.slice(0, 50));
      expect([body.total, body.total_pages]).toEqual([51, 2]);
      expect(Object.fromEntries(queryOf(body.rest_url)).per_page).toBe('50');
      expect(Object.fromEntries(queryOf(body.next_rest_url as string))).toMatchObject({ per_page: '50', page: '2' });
      const last = await listOk('per_page=100&page=2');
      expect(ids(last)).toEqual(created.slice(50));
    });

    it('pages through events (6 events, per_page 3)', async () => {
      const created = await addUpcoming(6);
      expect(ids(await listOk('per_page=3&page=1'))).toEqual(created.slice(0, 3));
      expect(ids(await listOk('per_page=3&page=2'))).toEqual(created.slice(3));
    });

    it('answers a page past the end with 404 event-archive-page-not-found (3 events, per_page 3, page 2)', async () => {
      await addUpcoming(3);
      const response = await list('per_page=3&page=2');
      expect(response.statusCode).toBe(404);
      expect(json(response)).toEqual({
        code: 'event-archive-page-not-found',
        message: 'The requested event archive page does not exist',
        data: { status: 404 },
      });
      expect((await list('per_page=1&page=999')).statusCode).toBe(404);
    });

    it('answers page 2 of an empty store with 404, page 1 with 200', async () => {
      expect((await list('page=2')).statusCode).toBe(404);
      expect((await list('page=1')).statusCode).toBe(200);
    });

    it.each(['foo', '-1', '0', 'foo bar', '1.5', ''])('refuses page=%j with 400 naming page', async (value) => {
      await expectInvalid(`page=${encodeURIComponent(value)}`, 'page');
    });

    it.each(['foo', '-1', '0', 'foo bar', '1.5', 'abc', ''])('refuses per_page=%j with 400 naming per_page', async (value) => {
      await expectInvalid(`per_page=${encodeURIComponent(value)}`, 'per_page');
    });

    it('answers per_page=abc like the reference sample 27', async () => {
      const body = await expectInvalid('per_page=abc', 'per_page');
      expect(body.message).toBe('Invalid parameter(s): per_page');
      expect(Object.keys(body.data.params ?? {})).toEqual(['per_page']);
    });
  });

  describe('next / previous links and the Link header', () => {
    it('links to the next page only when it has items (7 events, per_page 5)', async () => {
      await addUpcoming(7);
      const first = await list('per_page=5');
      const body = json<ListBody>(first);
      expect(body.next_rest_url).toBeDefined();
      expect(body.previous_rest_url).toBeUndefined();
      expect(Object.keys(body)).toEqual(['events', 'rest_url', 'next_rest_url', 'total', 'total_pages']);
      const next = queryOf(body.next_rest_url as string);
      expect(next.at(-1)).toEqual(['page', '2']);
      expect(withoutPage(next)).toEqual(withoutPage(queryOf(body.rest_url)));
      expect(first.headers.link).toBe(`<${body.next_rest_url}>; rel="next"`);

      const second = await list('per_page=5&page=2');
      const secondBody = json<ListBody>(second);
      expect(secondBody.events).toHaveLength(2);
      expect(secondBody.next_rest_url).toBeUndefined();
      expect(secondBody.previous_rest_url).toBeDefined();
      expect(Object.keys(secondBody)).toEqual(['events', 'rest_url', 'previous_rest_url', 'total', 'total_pages']);
      // The previous page is 1: the link has no page at all.
      expect(queryOf(secondBody.previous_rest_url as string)).toEqual(withoutPage(queryOf(secondBody.rest_url)));
      expect(second.headers.link).toBe(`<${secondBody.previous_rest_url}>; rel="prev"`);
    });

    it('links to page 2 from page 3, and both ways from page 2 (9 events, per_page 3)', async () => {
      await addUpcoming(9);
      const third = json<ListBody>(await list('per_page=3&page=3'));
      expect(third.next_rest_url).toBeUndefined();
      expect(queryOf(third.previous_rest_url as string).at(-1)).toEqual(['page', '2']);

      const middle = await list('per_page=3&page=2');
      const body = json<ListBody>(middle);
      expect(Object.keys(body)).toEqual(['events', 'rest_url', 'next_rest_url', 'previous_rest_url', 'total', 'total_pages']);
      expect(queryOf(body.next_rest_url as string).at(-1)).toEqual(['page', '3']);
      expect(queryOf(body.previous_rest_url as string).some(([k]) => k === 'page')).toBe(false);
      expect(middle.headers.link).toBe(`<${body.next_rest_url}>; rel="next", <${body.previous_rest_url}>; rel="prev"`);
    });

    it('links page 2 of 6 events with per_page 3 back to the archive root without page', async () => {
      await addUpcoming(6);
      const body = json<ListBody>(await list('per_page=3&page=2'));
      expect(body.next_rest_url).toBeUndefined();
      expect(body.previous_rest_url).toBeDefined();
      expect(new URL(body.previous_rest_url as string).pathname).toBe(`${API}/events/`);
      expect(new URL(body.previous_rest_url as string).searchParams.has('page')).toBe(false);
    });

    it('builds the links from the effective query, URL-encoded, with a trailing slash on the collection', async () => {
      const start = Date.UTC(2030, 0, 7, 10);
      for (let i = 0; i < 7; i += 1) await addAt(start + i * DAY);
      const response = await list('per_page=5&start_date=2030-01-01&end_date=2030-12-31');
      const body = json<ListBody>(response);
      const dates = 'start_date=2030-01-01+00%3A00%3A00&end_date=2030-12-31+23%3A59%3A59';
      expect(body.rest_url).toBe(`${BASE}/?page=1&per_page=5&status=publish&${dates}`);
      expect(body.next_rest_url).toBe(`${BASE}/?per_page=5&status=publish&${dates}&page=2`);
      expect(response.headers.link).toBe(`<${BASE}/?per_page=5&status=publish&${dates}&page=2>; rel="next"`);

      const second = json<ListBody>(await list('page=2&per_page=5&start_date=2030-01-01&end_date=2030-12-31'));
      expect(second.rest_url).toBe(`${BASE}/?page=2&per_page=5&status=publish&${dates}`);
      expect(second.previous_rest_url).toBe(`${BASE}/?per_page=5&status=publish&${dates}`);
    });

    it('leads through every page by following next_rest_url', async () => {
      const created = await addUpcoming(8);
      const seen: number[] = [];
      let url: string | undefined = `${API}/events?per_page=3`;
      let pages = 0;
      while (url !== undefined) {
        const response: LightMyRequestResponse = await t.app.inject({ method: 'GET', url });
        expect(response.statusCode).toBe(200);
        const body: ListBody = json<ListBody>(response);
        seen.push(...ids(body));
        pages += 1;
        url = body.next_rest_url === undefined ? undefined : body.next_rest_url.slice(ORIGIN.length);
      }
      expect(pages).toBe(3);
      expect(seen).toEqual(created);
    });

    it('uses the /de root in every link of a list requested under /de', async () => {
      await addUpcoming(3);
      const response = await t.app.inject({ method: 'GET', url: `/de${API}/events?per_page=1&page=2` });
      expect(response.statusCode).toBe(200);
      const body = json<ListBody>(response);
      const deBase = `${ORIGIN}/de${API}/events/`;
      expect(body.rest_url.startsWith(`${deBase}?`)).toBe(true);
      expect(body.next_rest_url?.startsWith(`${deBase}?`)).toBe(true);
      expect(body.previous_rest_url?.startsWith(`${deBase}?`)).toBe(true);
      expect(body.events[0]?.rest_url).toBe(`${ORIGIN}/de${API}/events/${body.events[0]?.id as number}`);
      expect(response.headers.link).toContain(`<${deBase}?`);
      expect(response.headers.link).not.toContain(`<${ORIGIN}${API}`);
    });

    it('uses the host the request came in on', async () => {
      await addUpcoming(2);
      const response = await t.app.inject({ method: 'GET', url: `${API}/events?per_page=1`, headers: { host: 'calendar.example:8443' } });
      const body = json<ListBody>(response);
      expect(body.rest_url.startsWith(`http://calendar.example:8443${API}/events/?`)).toBe(true);
      expect(body.next_rest_url?.startsWith(`http://calendar.example:8443${API}/events/?`)).toBe(true);
    });
  });

  describe('start_date / end_date (EventArchiveCest L164-L280)', () => {
    /** 10 weekly events from now + 1 week, 2 hours long. */
    const addWeekly = async (): Promise<{ now: number; created: number[] }> => {
      // Noon of today (UTC, the site's zone): an event two hours long never runs past midnight, so
      // the day a bound rounds to holds the whole event whatever the hour the suite runs at (from
      // now, at 22:00 or later, "+3 weeks" rounded to the end of its day missed the third event).
      const now = startOfUtcDay(Date.now()) + 12 * HOUR;
      const created: number[] = [];
      for (let k = 1; k <= 10; k += 1) created.push(await addAt(now + k * WEEK, { title: `Week ${k}` }));
      return { now, created };
    };
    const ts = (ms: number) => String(Math.floor(ms / 1000));

    it('start_date as a timestamp: events starting on or after that day (6 of 10)', async () => {
      const { now, created } = await addWeekly();
      const body = await listOk(`start_date=${ts(now + 5 * WEEK)}`);
      expect(ids(body)).toEqual(created.slice(4));
      expect(Object.fromEntries(queryOf(body.rest_url)).start_date).toBe(utcWall(startOfUtcDay(now + 5 * WEEK)));
    });

    it('end_date as a timestamp: events ending on or before that day (5 of 10)', async () => {
      const { now, created } = await addWeekly();
      const body = await listOk(`end_date=${ts(now + 5 * WEEK + 2 * HOUR)}`);
      expect(ids(body)).toEqual(created.slice(0, 5));
      expect(Object.fromEntries(queryOf(body.rest_url)).end_date).toBe(`${utcWall(now + 5 * WEEK + 2 * HOUR).slice(0, 10)} 23:59:59`);
    });

    it('start_date and end_date narrow down the events (+10 days … +30 days → 3)', async () => {
      const { now, created } = await addWeekly();
      const body = await listOk(`start_date=${ts(now + 10 * DAY)}&end_date=${ts(now + 30 * DAY)}`);
      expect(ids(body)).toEqual(created.slice(1, 4));
    });

    it('reads dates as wall clocks, English phrases and timestamps alike', async () => {
      const { now, created } = await addWeekly();
      const wall = utcWall(now + 5 * WEEK);
      expect(ids(await listOk(`start_date=${encodeURIComponent(wall)}`))).toEqual(created.slice(4));
      expect(ids(await listOk(`start_date=${encodeURIComponent('+5 weeks')}`))).toEqual(created.slice(4));
      expect(ids(await listOk(`end_date=${encodeURIComponent('+3 weeks')}`))).toEqual(created.slice(0, 3));
    });

    it.each([
      ['start_date', '"before my birthday"'],
      ['end_date', '"after my birthday"'],
      ['start_date', 'not a strtotime parsable string'],
      ['end_date', 'foo'],
      ['starts_before', 'foo'],
      ['starts_after', 'foo'],
      ['ends_before', 'foo'],
      ['ends_after', 'foo'],
      ['start_date', ''],
      ['strict_dates', ''],
    ])('refuses %s=%j with 400 naming it', async (param, value) => {
      const body = await expectInvalid(`${param}=${encodeURIComponent(value)}`, param);
      expect(Object.keys(body.data.params ?? {})).toEqual([param]);
    });

    it('names every bad date parameter at once', async () => {
      const body = await expectInvalid('start_date=foo&ends_after=bar&end_date=2030-01-01', 'start_date');
      expect(Object.keys(body.data.params ?? {}).sort()).toEqual(['ends_after', 'start_date']);
    });
  });

  describe('inclusive and strict dates', () => {
    /** The four events of the reference's inclusive example, in creation order. */
    const addExample = async () => ({
      dec31: await add({ title: 'Dec 31', start_date: '2017-12-31 17:00:00', end_date: '2017-12-31 17:30:00' }),
      jan1At16: await add({ title: 'Jan 1 16:00', start_date: '2018-01-01 16:00:00', end_date: '2018-01-01 16:30:00' }),
      jan1At20: await add({ title: 'Jan 1 20:00', start_date: '2018-01-01 20:00:00', end_date: '2018-01-01 20:30:00' }),
      jan2: await add({ title: 'Jan 2', start_date: '2018-01-02 10:00:00', end_date: '2018-01-02 10:30:00' }),
    });
    const WINDOW = `start_date=${encodeURIComponent('2018-01-01 15:00:00')}&end_date=${encodeURIComponent('2018-01-01 18:00:00')}`;

    it('inclusive (the default): the bounds cover whole days → both Jan 1 events, rounded dates echoed', async () => {
      const e = await addExample();
      const body = await listOk(WINDOW);
      expect(ids(body)).toEqual([e.jan1At16, e.jan1At20]);
      expect(Object.fromEntries(queryOf(body.rest_url))).toMatchObject({ start_date: '2018-01-01 00:00:00', end_date: '2018-01-01 23:59:59' });
    });

    it.each(['true', '1', 'on', 'YES'])('strict_dates=%s: exact instants → only the 16:00 event, bounds echoed as given', async (value) => {
      const e = await addExample();
      const body = await listOk(`${WINDOW}&strict_dates=${value}`);
      expect(ids(body)).toEqual([e.jan1At16]);
      expect(Object.fromEntries(queryOf(body.rest_url))).toMatchObject({
        start_date: '2018-01-01 15:00:00',
        end_date: '2018-01-01 18:00:00',
        strict_dates: value,
      });
    });

    it.each(['false', '0', 'no', 'whatever'])('strict_dates=%s is inclusive', async (value) => {
      const e = await addExample();
      expect(ids(await listOk(`${WINDOW}&strict_dates=${value}`))).toEqual([e.jan1At16, e.jan1At20]);
    });

    it('relative: ends_after=2017-12-31&starts_before=2018-01-02 includes spanning events, excludes one ending on Dec 31', async () => {
      const e = await addExample();
      const spanning = await add({ title: 'Dec 30 to Jan 3', start_date: '2017-12-30 10:00:00', end_date: '2018-01-03 10:00:00' });
      const fromDec29 = await add({ title: 'Dec 29 to Jan 1', start_date: '2017-12-29 10:00:00', end_date: '2018-01-01 10:00:00' });
      await add({ title: 'Jan 3', start_date: '2018-01-03 09:00:00', end_date: '2018-01-03 10:00:00' });

      const body = await listOk('ends_after=2017-12-31&starts_before=2018-01-02');
      expect(ids(body)).toEqual([fromDec29, spanning, e.jan1At16, e.jan1At20, e.jan2]);
      // No start_date / end_date: only relative parameters were given, so no default window either.
      const echoed = Object.fromEntries(queryOf(body.rest_url));
      expect(echoed).toMatchObject({ starts_before: '2018-01-02 23:59:59', ends_after: '2017-12-31 23:59:59' });
      expect(echoed.start_date).toBeUndefined();
      expect(echoed.end_date).toBeUndefined();

      const narrowed = await listOk('ends_after=2017-12-31&starts_before=2018-01-02&start_date=2017-12-30&end_date=2018-01-02');
      expect(ids(narrowed)).toEqual([e.jan1At16, e.jan1At20, e.jan2]);
      expect(Object.fromEntries(queryOf(narrowed.rest_url))).toMatchObject({ start_date: '2017-12-30 00:00:00', end_date: '2018-01-02 23:59:59' });
    });

    it.each<[string, string[]]>([
      ['starts_after=2018-01-01', ['jan2']],
      ['starts_before=2018-01-01', ['dec31', 'jan1At16', 'jan1At20']],
      ['ends_before=2017-12-31', ['dec31']],
      ['ends_after=2018-01-01', ['jan2']],
      [`starts_after=${encodeURIComponent('2018-01-01 16:00:00')}&strict_dates=true`, ['jan1At20', 'jan2']],
      [`ends_before=${encodeURIComponent('2018-01-01 20:30:00')}&strict_dates=true`, ['dec31', 'jan1At16']],
    ])('%s', async (query, expected) => {
      const e = await addExample();
      const body = await listOk(query);
      expect(ids(body)).toEqual(expected.map((k) => e[k as keyof typeof e]));
    });

    it('relative parameters drop the default window: past and far-future events are found', async () => {
      const now = Date.now();
      const past = await addAt(now - 30 * DAY, { title: 'Past' });
      const farFuture = await addAt(plusMonths(now, 30), { title: 'Far future' });
      expect(ids(await listOk(`starts_after=${encodeURIComponent('-60 days')}`))).toEqual([past, farFuture]);
      expect(ids(await listOk(''))).toEqual([]);
    });
  });

  describe('ordering (orderby / order)', () => {
    it('orders by start, then creation order for equal starts', async () => {
      const now = Date.now();
      const late = await addAt(now + 3 * DAY);
      const firstTomorrow = await addAt(now + DAY);
      const middle = await addAt(now + 2 * DAY);
      const secondTomorrow = await addAt(now + DAY);
      expect(ids(await listOk())).toEqual([firstTomorrow, secondTomorrow, middle, late]);
    });

    it('orders by end_date, date, modified and id, ascending or descending', async () => {
      const now = Date.now();
      // The services' clock, moved on by the test: each modification a second after the last.
      let clock = now;
      t = await shared.fresh({ now: () => new Date(clock) });
      const a = await add({ start_date: utcWall(now + 3 * DAY), end_date: utcWall(now + 3 * DAY + HOUR), date: '2020-01-03 10:00:00' });
      const b = await add({ start_date: utcWall(now + DAY), end_date: utcWall(now + 5 * DAY), date: '2020-01-01 10:00:00' });
      const c = await add({ start_date: utcWall(now + 2 * DAY), end_date: utcWall(now + 2 * DAY + HOUR), date: '2020-01-04 10:00:00' });
      const d = await add({ start_date: utcWall(now + DAY), end_date: utcWall(now + DAY + HOUR), date: '2020-01-02 10:00:00' });
      // Modified: c, then a (later than every creation).
      for (const id of [c, a]) {
        clock += 1000;
        const response = await t.app.inject({ method: 'PATCH', url: `${API}/events/${id}`, headers: EDITOR, payload: { excerpt: 'Changed' } });
        expect(response.statusCode).toBe(200);
      }

      expect(ids(await listOk())).toEqual([b, d, c, a]);
      expect(ids(await listOk('orderby=start_date&order=asc'))).toEqual([b, d, c, a]);
      expect(ids(await listOk('order=desc'))).toEqual([a, c, d, b]);
      expect(ids(await listOk('orderby=end_date'))).toEqual([d, c, a, b]);
      expect(ids(await listOk('orderby=end_date&order=DESC'))).toEqual([b, a, c, d]);
      expect(ids(await listOk('orderby=date'))).toEqual([b, d, a, c]);
      expect(ids(await listOk('orderby=date&order=desc'))).toEqual([c, a, d, b]);
      expect(ids(await listOk('orderby=modified'))).toEqual([b, d, c, a]);
      expect(ids(await listOk('orderby=modified&order=desc'))).toEqual([a, c, d, b]);
      expect(ids(await listOk('orderby=id'))).toEqual([a, b, c, d]);
      expect(ids(await listOk('orderby=id&order=desc'))).toEqual([d, c, b, a]);

      const paged = await listOk('orderby=id&order=desc&per_page=3&page=2');
      expect(ids(paged)).toEqual([a]);
      expect(Object.fromEntries(queryOf(paged.rest_url))).toMatchObject({ orderby: 'id', order: 'desc' });
      expect(Object.fromEntries(queryOf(paged.previous_rest_url as string))).toMatchObject({ orderby: 'id', order: 'desc' });
    });

    it('orders equal starts by id in descending order too', async () => {
      const created = await addUpcoming(3);
      expect(ids(await listOk('order=desc'))).toEqual([...created].reverse());
    });

    it.each([
      ['orderby', 'title'],
      ['orderby', ''],
      ['order', 'up'],
      ['order', ''],
    ])('refuses %s=%j with 400', async (param, value) => {
      await expectInvalid(`${param}=${encodeURIComponent(value)}`, param);
    });
  });

  describe('hide_from_listings', () => {
    it('never lists hidden events — not for editors, not with include — but they stay readable', async () => {
      const [visible] = await addUpcoming(1);
      const hidden = await add({
        title: 'Hidden',
        start_date: utcWall(Date.now() + DAY),
        end_date: utcWall(Date.now() + DAY + HOUR),
        hide_from_listings: true,
      });

      expect(ids(await listOk())).toEqual([visible]);
      expect(ids(await listOk('', EDITOR))).toEqual([visible]);
      expect(ids(await listOk('status=any', EDITOR))).toEqual([visible]);
      const included = await listOk(`include=${visible},${hidden}`);
      expect(ids(included)).toEqual([visible]);
      expect(included.total).toBe(1);
      expect(ids(await listOk(`include=${hidden}`, EDITOR))).toEqual([]);

      const single = await t.app.inject({ method: 'GET', url: `${API}/events/${hidden}` });
      expect(single.statusCode).toBe(200);
      expect(json(single)).toMatchObject({ id: hidden, hide_from_listings: true });
    });

    it('lists an event again once it is no longer hidden', async () => {
      const hidden = await add({ start_date: utcWall(Date.now() + DAY), end_date: utcWall(Date.now() + DAY + HOUR), hide_from_listings: true });
      expect(ids(await listOk())).toEqual([]);
      const response = await t.app.inject({ method: 'PATCH', url: `${API}/events/${hidden}`, headers: EDITOR, payload: { hide_from_listings: false } });
      expect(response.statusCode).toBe(200);
      expect(ids(await listOk())).toEqual([hidden]);
    });
  });

  describe('rest_url echoes the effective query', () => {
    it('keeps every filter, with effective values, in the reference order', async () => {
      const venue = json(await t.app.inject({ method: 'POST', url: `${API}/venues`, headers: EDITOR, payload: { venue: 'Echo Hall' } }));
      const organizer = json(await t.app.inject({ method: 'POST', url: `${API}/organizers`, headers: EDITOR, payload: { organizer: 'Echo Friends' } }));
      const category = json(
        await t.app.inject({ method: 'POST', url: `${API}/categories`, headers: EDITOR, payload: { name: 'Echo Jazz', slug: 'echo-jazz' } }),
      );
      const tag = json(await t.app.inject({ method: 'POST', url: `${API}/tags`, headers: EDITOR, payload: { name: 'Echo Tag' } }));
      const parent = await add({ title: 'Parent', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' });
      const child = await add({
        title: 'Echo concert',
        start_date: '2030-01-02 10:00:00',
        end_date: '2030-01-02 11:00:00',
        venue: venue.id,
        organizer: [organizer.id],
        categories: [category.id],
        tags: [tag.id],
        featured: true,
        ticketed: true,
        post_parent: parent,
      });

      const query = [
        'per_page=100',
        `start_date=${encodeURIComponent('2030-01-01 10:00')}`,
        'end_date=2030-01-31',
        'strict_dates=false',
        'search=echo',
        'categories=echo-jazz',
        `tags=${encodeURIComponent('Echo Tag')}`,
        `venue=${venue.id as number}`,
        `organizer=${organizer.id as number}`,
        'featured=true',
        `post_parent=${parent}`,
        'ticketed=1',
        'status=publish',
        'orderby=start_date',
        'order=ASC',
      ].join('&');
      const body = await listOk(query, EDITOR);
      expect(ids(body)).toEqual([child]);
      expect(queryOf(body.rest_url)).toEqual([
        ['page', '1'],
        ['per_page', '50'],
        ['status', 'publish'],
        ['start_date', '2030-01-01 00:00:00'],
        ['end_date', '2030-01-31 23:59:59'],
        ['strict_dates', 'false'],
        ['search', 'echo'],
        ['categories', String(category.id)],
        ['tags', String(tag.id)],
        ['venue', String(venue.id)],
        ['organizer', String(organizer.id)],
        ['featured', '1'],
        ['post_parent', String(parent)],
        ['ticketed', '1'],
        ['orderby', 'start_date'],
        ['order', 'asc'],
      ]);
    });

    it('echoes lists as CSV, featured=false as 0, include without dates and the statuses asked for', async () => {
      const created = await addUpcoming(3, { featured: false });
      const body = await listOk(`include[]=${created[0]}&include[]=${created[2]}&featured=false&status=${encodeURIComponent('publish, draft')}`, EDITOR);
      expect(ids(body)).toEqual([created[0], created[2]]);
      const echoed = Object.fromEntries(queryOf(body.rest_url));
      expect(echoed).toMatchObject({ include: `${created[0]},${created[2]}`, featured: '0', status: 'publish,draft' });
      expect(echoed.start_date).toBeUndefined();
      expect(echoed.end_date).toBeUndefined();
    });

    it('echoes the statuses an editor sees by default', async () => {
      const body = await listOk('', EDITOR);
      expect(Object.fromEntries(queryOf(body.rest_url)).status).toBe('publish,future,draft,pending,private');
    });

    it('ignores unknown parameters', async () => {
      const created = await addUpcoming(2);
      const body = await listOk('colour=red&per_page=5');
      expect(ids(body)).toEqual(created);
      expect(queryOf(body.rest_url).some(([k]) => k === 'colour')).toBe(false);
    });
  });
});

describe.each(engines)('$name engine: GET /events with SITE_TIMEZONE America/New_York', (engine) => {
  let t: TestApp;
  const shared = sharedTestApp(engine, { SITE_TIMEZONE: 'America/New_York' });
  beforeEach(async () => {
    t = await shared.fresh();
  });
  afterAll(() => shared.close());

  const listOk = async (query: string): Promise<ListBody> => {
    const response: LightMyRequestResponse = await t.app.inject({ method: 'GET', url: `${API}/events?${query}` });
    expect(response.statusCode, response.body).toBe(200);
    return json<ListBody>(response);
  };
  const add = async (start: string, end: string, timezone = 'UTC') =>
    (await createEventOk(t.app, { title: `At ${start}`, start_date: start, end_date: end, timezone })).id as number;

  it('reads the day bounds in the site time zone and compares them with UTC instants (a DST day)', async () => {
    // 2026-03-08 is a 23-hour day in New York: 00:00 EST = 05:00Z … 23:59:59 EDT = 03:59:59Z next day.
    await add('2026-03-08 04:30:00', '2026-03-08 04:45:00'); // 03-07 23:30 EST: the day before
    const early = await add('2026-03-08 05:00:00', '2026-03-08 05:30:00'); // 00:00 EST
    const late = await add('2026-03-09 03:00:00', '2026-03-09 03:59:59'); // 23:00–23:59:59 EDT
    await add('2026-03-09 04:00:00', '2026-03-09 04:30:00'); // 03-09 00:00 EDT: the day after
    // An event in its own time zone (Berlin): compared by instant, not by its wall clock.
    const berlin = await add('2026-03-08 19:00:00', '2026-03-08 20:00:00', 'Europe/Berlin'); // 13:00–14:00 EST

    const body = await listOk('start_date=2026-03-08&end_date=2026-03-08');
    expect(body.events.map((e) => e.id)).toEqual([early, berlin, late]);
    expect(Object.fromEntries(queryOf(body.rest_url))).toMatchObject({ start_date: '2026-03-08 00:00:00', end_date: '2026-03-08 23:59:59' });
  });

  it('reads strict bounds as New York wall clocks', async () => {
    const morning = await add('2026-11-01 13:00:00', '2026-11-01 14:00:00'); // 08:00 EST
    await add('2026-11-01 18:00:00', '2026-11-01 19:00:00'); // 13:00 EST
    const body = await listOk(
      `start_date=${encodeURIComponent('2026-11-01 07:00:00')}&end_date=${encodeURIComponent('2026-11-01 12:00:00')}&strict_dates=true`,
    );
    expect(body.events.map((e) => e.id)).toEqual([morning]);
    expect(Object.fromEntries(queryOf(body.rest_url))).toMatchObject({ start_date: '2026-11-01 07:00:00', end_date: '2026-11-01 12:00:00' });
  });

  it('covers the 25-hour fall-back day', async () => {
    // 2026-11-01 in New York: 00:00 EDT = 04:00Z … 23:59:59 EST = 04:59:59Z next day.
    await add('2026-11-01 03:59:00', '2026-11-01 03:59:30');
    const first = await add('2026-11-01 04:00:00', '2026-11-01 04:30:00');
    const last = await add('2026-11-02 04:30:00', '2026-11-02 04:59:59');
    await add('2026-11-02 05:00:00', '2026-11-02 05:30:00');
    const body = await listOk('start_date=2026-11-01&end_date=2026-11-01');
    expect(body.events.map((e) => e.id)).toEqual([first, last]);
  });
});
