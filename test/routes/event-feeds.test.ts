/**
 * The iCalendar feeds, read back with ical.js: `GET /events.ics` holds the events of `GET /events`
 * for the same filters, in its order, at the same instants (daylight-saving changes, all-day and
 * multi-day events, zones with odd offsets, UTC±N); a VTIMEZONE for every TZID; folded CRLF lines;
 * the same visibility (drafts, protected events redacted, hidden from listings); the API's JSON
 * errors; the feeds of one event; ETag and 304; and the ICS_MAX_EVENTS cut.
 */
import { type LightMyRequestResponse } from 'fastify';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, EDITOR, type TestApp, json, makeEventInput, openTestApp } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';
import { contentLines, type IcsEvent, parseIcs } from '../helpers/ics.js';

const { engines } = await routeEnginesUnderTest();

type Body = Record<string, unknown>;

/** The services' clock: the default window (00:00 yesterday to 24 months on) holds every event below. */
const NOW = new Date('2030-01-15T12:00:00Z');
const PASSWORD = 'open sesame';

/** `YYYY-MM-DD HH:MM:SS` in UTC, as the JSON's `utc_*_date`, as an instant. */
const utc = (wall: string) => new Date(`${wall.replace(' ', 'T')}Z`);

/** The instant a client reads from a DTSTART/DTEND: for a date, its 00:00 in the event's zone. */
function instantOf(time: IcsEvent['start'], timezone: string): Date {
  if (time.date === null) return time.instant;
  const zone = /^UTC[+-]/.test(timezone) ? timezone.replace(/\.5$/, ':30') : timezone;
  return DateTime.fromISO(time.date, { zone }).toJSDate();
}

describe.each(engines)('$name engine: iCalendar feeds', (engine) => {
  let t: TestApp;
  const ids: Record<string, number> = {};
  const slugs: Record<string, string> = {};

  /** GET of a path below the namespace (`/events.ics`), or of a full path (under a root). */
  const get = (path: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: path.startsWith(API) || /^\/(en|de|fr)\//.test(path) ? path : `${API}${path}`, headers });
  async function create(name: string, overrides: Body): Promise<Body> {
    const response = await t.app.inject({ method: 'POST', url: `${API}/events`, headers: EDITOR, payload: makeEventInput({ title: name, ...overrides }) });
    expect(response.statusCode, response.body).toBe(201);
    const body = json(response);
    ids[name] = body.id as number;
    slugs[name] = body.slug as string;
    return body;
  }
  /** The feed and the JSON list of the same query, as the same caller. */
  async function both(query: string, headers: Record<string, string> = {}) {
    const feed = await get(`/events.ics${query}`, headers);
    const list = await get(`/events${query}${query.includes('?') ? '&' : '?'}per_page=50`, headers);
    return { feed, list };
  }
  const uidsOf = (response: LightMyRequestResponse) => parseIcs(response.body).events.map((e) => e.uid);
  const uid = (id: unknown) => `${String(id)}@localhost`;

  beforeAll(async () => {
    t = await openTestApp(engine, {}, undefined, () => NOW);
    const venue = json(
      await t.app.inject({
        method: 'POST',
        url: `${API}/venues`,
        headers: EDITOR,
        payload: { venue: 'Harbour Hall', address: '1 Quay', city: 'Hamburg', country: 'Germany' },
      }),
    );
    const organizer = json(
      await t.app.inject({
        method: 'POST',
        url: `${API}/organizers`,
        headers: EDITOR,
        payload: { organizer: 'Harbour Friends', email: 'friends@example.org' },
      }),
    );
    const linked = { venue: venue.id, organizer: [organizer.id], categories: ['Jazz'], tags: ['Outdoor'] };
    // Across the spring change in Berlin (02:00 → 03:00), and the autumn one (03:00 → 02:00).
    await create('Berlin spring night', {
      start_date: '2030-03-30 20:00:00',
      end_date: '2030-03-31 04:00:00',
      timezone: 'Europe/Berlin',
      ...linked,
      description: `<p>Long night. ${'Nächte über dem Hafen 🎶 '.repeat(12)}</p>`,
      featured: true,
    });
    await create('Berlin autumn night', { start_date: '2030-10-26 22:00:00', end_date: '2030-10-27 05:00:00', timezone: 'Europe/Berlin', ...linked });
    // 02:30 on the autumn night exists twice: the feed writes it in UTC.
    await create('Berlin repeated hour', { start_date: '2030-10-27 02:30:00', end_date: '2030-10-27 03:30:00', timezone: 'Europe/Berlin' });
    await create('Berlin all day on the change', {
      start_date: '2030-10-27 09:00:00',
      end_date: '2030-10-27 17:00:00',
      timezone: 'Europe/Berlin',
      all_day: true,
    });
    await create('New York weekend', {
      start_date: '2030-03-09 10:00:00',
      end_date: '2030-03-11 18:00:00',
      timezone: 'America/New_York',
      all_day: true,
      venue: venue.id,
    });
    await create('New York fall back', { start_date: '2030-11-03 01:30:00', end_date: '2030-11-03 02:30:00', timezone: 'America/New_York' });
    await create('Kolkata conference', { start_date: '2030-05-01 09:00:00', end_date: '2030-05-03 18:00:00', timezone: 'Asia/Kolkata', categories: ['Jazz'] });
    await create('Lord Howe spring', { start_date: '2030-10-06 10:00:00', end_date: '2030-10-06 12:30:00', timezone: 'Australia/Lord_Howe' });
    // Lord Howe goes back half an hour at 02:00 on 2030-04-07: 01:45 happens twice.
    await create('Lord Howe repeated half hour', { start_date: '2030-04-07 01:45:00', end_date: '2030-04-07 03:00:00', timezone: 'Australia/Lord_Howe' });
    await create('Offset plus', { start_date: '2030-06-01 10:00:00', end_date: '2030-06-01 11:30:00', timezone: 'UTC+5.5' });
    await create('Offset minus all day', { start_date: '2030-06-02 10:00:00', end_date: '2030-06-03 11:30:00', timezone: 'UTC-3', all_day: true });
    await create('Plain UTC', { start_date: '2030-06-05 10:00:00', end_date: '2030-06-05 12:00:00', timezone: 'UTC', tags: ['Outdoor'] });
    await create('Draft rehearsal', { start_date: '2030-06-06 10:00:00', end_date: '2030-06-06 12:00:00', status: 'draft' });
    await create('Unlisted', { start_date: '2030-06-07 10:00:00', end_date: '2030-06-07 12:00:00', hide_from_listings: true });
    await create('Protected party', {
      start_date: '2030-06-08 20:00:00',
      end_date: '2030-06-08 23:00:00',
      timezone: 'Europe/Berlin',
      ...linked,
      description: 'Secret place',
    });
    const patched = await t.app.inject({ method: 'PATCH', url: `${API}/events/${ids['Protected party']}`, headers: EDITOR, payload: { password: PASSWORD } });
    expect(patched.statusCode, patched.body).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('holds the events of the JSON list, in its order, at the same instants', async () => {
    const { feed, list } = await both('');
    expect(feed.statusCode).toBe(200);
    expect(feed.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const events = json<{ events: Body[] }>(list).events;
    const calendar = parseIcs(feed.body);
    expect(calendar.events.map((e) => e.uid)).toEqual(events.map((e) => uid(e.id)));
    expect(feed.headers['x-tec-total']).toBe(list.headers['x-tec-total']);
    for (const [i, event] of events.entries()) {
      const ics = calendar.events[i]!;
      const timezone = event.timezone as string;
      const what = `${String(event.title)} (${timezone})`;
      expect(ics.summary, what).toBe(event.title);
      expect(instantOf(ics.start, timezone), what).toEqual(utc(event.utc_start_date as string));
      if (ics.end.date === null) expect(ics.end.instant, what).toEqual(utc(event.utc_end_date as string));
      // All-day: DTEND is the day after the last, whose 23:59:59 the JSON gives.
      else expect(instantOf(ics.end, timezone).getTime() - 1000, what).toBe(utc(event.utc_end_date as string).getTime());
      expect(ics.start.date !== null, what).toBe(event.all_day === true);
    }
  });

  it('writes local times with their TZID, and UTC where a zone’s VTIMEZONE would misread them', async () => {
    const events = new Map(parseIcs((await get('/events.ics')).body).events.map((e) => [e.summary, e]));
    const zoneOf = (name: string) => [events.get(name)!.start.tzid, events.get(name)!.end.tzid];
    expect(zoneOf('Berlin spring night')).toEqual(['Europe/Berlin', 'Europe/Berlin']);
    expect(events.get('Berlin spring night')!.start.raw).toBe('20300330T200000');
    expect(events.get('Berlin spring night')!.end.raw).toBe('20300331T040000');
    expect(zoneOf('Kolkata conference')).toEqual(['Asia/Kolkata', 'Asia/Kolkata']);
    expect(zoneOf('Lord Howe spring')).toEqual(['Australia/Lord_Howe', 'Australia/Lord_Howe']);
    for (const name of ['Berlin repeated hour', 'Lord Howe repeated half hour', 'New York fall back', 'Offset plus', 'Plain UTC']) {
      expect(zoneOf(name), name).toEqual([null, null]);
      expect(events.get(name)!.start.raw, name).toMatch(/Z$/);
    }
    expect(events.get('New York weekend')!.start.date).toBe('2030-03-09');
    expect(events.get('New York weekend')!.end.date).toBe('2030-03-12');
    expect(events.get('Offset minus all day')!.end.date).toBe('2030-06-04');
  });

  it('has a VTIMEZONE for every TZID used, and folded CRLF lines of at most 75 octets', async () => {
    const response = await get('/events.ics');
    const calendar = parseIcs(response.body);
    const used = new Set(calendar.events.flatMap((e) => [e.start.tzid, e.end.tzid]).filter((z) => z !== null));
    expect([...used].sort()).toEqual(['Asia/Kolkata', 'Australia/Lord_Howe', 'Europe/Berlin']);
    expect(calendar.timezones.sort()).toEqual([...used].sort());
    const { lines, crlf } = contentLines(response.body);
    expect(crlf).toBe(true);
    expect(lines.filter((line) => line.length > 75)).toEqual([]);
    // The long description was folded, and reads back whole.
    expect(lines.some((line) => line[0] === 0x20)).toBe(true);
    expect(calendar.events.find((e) => e.summary === 'Berlin spring night')!.text('description')).toBe(
      `Long night. ${'Nächte über dem Hafen 🎶 '.repeat(12).trim()}`,
    );
  });

  it('describes each event as the JSON does: place, organizer, categories, link', async () => {
    const event = parseIcs((await get(`/events/${ids['Berlin autumn night']}.ics`)).body).events[0]!;
    const body = json(await get(`/events/${ids['Berlin autumn night']}`));
    expect(event.uid).toBe(uid(body.id));
    expect(event.text('location')).toBe('Harbour Hall, 1 Quay, Hamburg, Germany');
    expect(event.text('geo')).toMatch(/^\[53\.\d+,(9|10)\.\d+\]$/);
    expect(event.text('organizer')).toBe('mailto:friends@example.org');
    expect(event.parameter('organizer', 'cn')).toBe('Harbour Friends');
    expect(event.values('categories')).toEqual(['Jazz']);
    expect(event.text('url')).toBe(body.url);
    expect(event.text('status')).toBe('CONFIRMED');
    expect(event.text('last-modified')).toBe(`${(body.modified_utc as string).replace(' ', 'T')}Z`);
  });

  it('takes every filter of the list, and answers the same events in the same order', async () => {
    const queries = [
      '?categories=jazz',
      '?tags=outdoor',
      '?featured=1',
      '?search=night',
      '?start_date=2030-06-01&end_date=2030-06-30',
      '?starts_after=2030-10-01',
      '?orderby=end_date&order=desc',
      '?geoloc_lat=53.55&geoloc_lng=10&geoloc_radius=50&geoloc_unit=km&orderby=distance',
    ];
    for (const query of queries) {
      const { feed, list } = await both(query);
      expect(feed.statusCode, query).toBe(200);
      const expected = json<{ events: Body[] }>(list).events.map((e) => uid(e.id));
      expect(expected.length, query).toBeGreaterThan(0);
      expect(uidsOf(feed), query).toEqual(expected);
    }
  });

  it('names the calendar after its filters, in the language of the root', async () => {
    const calendar = (response: LightMyRequestResponse) => parseIcs(response.body).property('x-wr-calname');
    expect(calendar(await get('/events.ics'))).toBe('Events – localhost');
    expect(calendar(await get(`/de${API}/events.ics?categories=jazz&search=night`))).toBe('Veranstaltungen: Jazz\\, "night" – localhost');
    expect(calendar(await get(`/fr${API}/events.ics/`))).toBe('Événements – localhost');
    expect(calendar(await get(`/events/${ids['Kolkata conference']}.ics`))).toBe('Kolkata conference');
  });

  it('shows anonymous callers no drafts nor unlisted events; a token asks for drafts as in the list', async () => {
    const anonymous = uidsOf(await get('/events.ics'));
    expect(anonymous).not.toContain(uid(ids['Draft rehearsal']));
    expect(anonymous).not.toContain(uid(ids.Unlisted));
    const drafts = await both('?status=draft', EDITOR);
    expect(uidsOf(drafts.feed)).toEqual([uid(ids['Draft rehearsal'])]);
    expect(parseIcs(drafts.feed.body).events[0]!.text('status')).toBe('TENTATIVE');
    expect(drafts.feed.headers['cache-control']).toBe('private, no-store');
    // Anonymous callers asking for drafts get the list's answer.
    const refused = await both('?status=draft');
    expect(refused.feed.statusCode).toBe(refused.list.statusCode);
    expect(refused.feed.statusCode).toBeGreaterThanOrEqual(400);
    expect(json(refused.feed)).toEqual(json(refused.list));
    // One event: the JSON read's rules (a draft needs a token; an unlisted event is readable).
    const draft = await get(`/events/${ids['Draft rehearsal']}.ics`);
    const draftJson = await get(`/events/${ids['Draft rehearsal']}`);
    expect([draft.statusCode, json(draft)]).toEqual([draftJson.statusCode, json(draftJson)]);
    expect((await get(`/events/${ids['Draft rehearsal']}.ics`, EDITOR)).statusCode).toBe(200);
    expect((await get(`/events/by-slug/${slugs.Unlisted}.ics`)).statusCode).toBe(200);
  });

  it('redacts a protected event as the list does, and shows it whole with its password', async () => {
    const locked = parseIcs((await get('/events.ics')).body).events.find((e) => e.uid === uid(ids['Protected party']))!;
    expect(locked.summary).toBe('Protected party');
    for (const name of ['description', 'location', 'geo', 'organizer', 'categories']) expect(locked.text(name), name).toBeNull();
    expect(locked.text('class')).toBe('CONFIDENTIAL');
    const list = json<{ events: Body[] }>(await get('/events?per_page=50')).events.find((e) => e.id === ids['Protected party'])!;
    expect(locked.start.instant).toEqual(utc(list.utc_start_date as string));
    expect(locked.text('url')).toBe(list.url);

    const withPassword = await get(`/events.ics?password=${encodeURIComponent(PASSWORD)}`);
    expect(withPassword.headers['cache-control']).toBe('private, no-store');
    const open = parseIcs(withPassword.body).events.find((e) => e.uid === uid(ids['Protected party']))!;
    expect(open.text('description')).toBe('Secret place');
    expect(open.text('class')).toBeNull();
    // A filter on what redaction hides skips the protected event, as in the list.
    expect(uidsOf(await get('/events.ics?categories=jazz'))).not.toContain(uid(ids['Protected party']));

    // One event: the JSON read's 403 without the password, the event with it.
    const single = await get(`/events/${ids['Protected party']}.ics`);
    const singleJson = await get(`/events/${ids['Protected party']}`);
    expect([single.statusCode, json(single)]).toEqual([403, json(singleJson)]);
    const unlocked = await get(`/events/${ids['Protected party']}.ics?password=${encodeURIComponent(PASSWORD)}`);
    expect(parseIcs(unlocked.body).events[0]!.text('description')).toBe('Secret place');
  });

  it('answers a bad parameter with the list’s 400, in the JSON error shape', async () => {
    for (const query of ['?featured=maybe', '?geoloc_lat=91', '?start_date=not%20a%20date', '?categories=no-such-category', '?orderby=nothing']) {
      const { feed, list } = await both(query);
      expect(feed.statusCode, query).toBe(400);
      expect(feed.headers['content-type'], query).toMatch(/^application\/json/);
      const body = json<{ code: string; data: { status: number; params?: Record<string, string> } }>(feed);
      expect(body.code, query).toMatch(/^rest_(invalid|missing_callback)_param$/);
      expect(body, query).toEqual(json(list));
    }
  });

  it('answers one event by id and by slug, and 404 in the error shape for a missing one', async () => {
    const byId = await get(`/events/${ids['Kolkata conference']}.ics`);
    const bySlug = await get(`/events/by-slug/${slugs['Kolkata conference']}.ics`);
    expect(byId.statusCode).toBe(200);
    expect(bySlug.body).toBe(byId.body);
    const calendar = parseIcs(byId.body);
    expect(calendar.events.map((e) => e.uid)).toEqual([uid(ids['Kolkata conference'])]);
    expect(calendar.timezones).toEqual(['Asia/Kolkata']);
    // Under a root and with a trailing slash, as every route.
    expect((await get(`/de${API}/events/${ids['Kolkata conference']}.ics/`)).body).toBe(byId.body);
    for (const [path, jsonPath] of [
      ['/events/999999.ics', '/events/999999'],
      ['/events/by-slug/no-such-event.ics', '/events/by-slug/no-such-event'],
    ]) {
      const missing = await get(path!);
      expect(missing.statusCode, path).toBe(404);
      expect(json(missing), path).toEqual(json(await get(jsonPath!)));
    }
    // The JSON read of an event is untouched by the feed routes.
    expect(json(await get(`/events/${ids['Kolkata conference']}`)).id).toBe(ids['Kolkata conference']);
  });

  it('gives the feeds an ETag, answers If-None-Match with 304, and a new ETag after a write', async () => {
    for (const path of ['/events.ics?categories=jazz', `/events/${ids['Lord Howe spring']}.ics`]) {
      const first = await get(path);
      const etag = first.headers.etag as string;
      expect(etag, path).toMatch(/^"[\w-]{27}"$/);
      expect(first.headers['cache-control'], path).toMatch(/^public/);
      const again = await get(path, { 'if-none-match': etag });
      expect(again.statusCode, path).toBe(304);
      expect(again.body, path).toBe('');
      expect(again.headers.etag, path).toBe(etag);
    }
    const path = `/events/${ids['Lord Howe spring']}.ics`;
    const before = await get(path);
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `${API}${path.replace('.ics', '')}`,
      headers: EDITOR,
      payload: { title: 'Lord Howe spring (moved)' },
    });
    expect(patched.statusCode).toBe(200);
    const after = await get(path, { 'if-none-match': before.headers.etag as string });
    expect(after.statusCode).toBe(200);
    expect(parseIcs(after.body).events[0]!.summary).toBe('Lord Howe spring (moved)');
  });
});

describe.each(engines)('$name engine: ICS_MAX_EVENTS', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine, { ICS_MAX_EVENTS: '3', PUBLIC_URL: 'https://public.example' }, undefined, () => NOW);
    for (let day = 1; day <= 5; day++) {
      const date = `2030-02-0${day}`;
      const response = await t.app.inject({
        method: 'POST',
        url: `${API}/events`,
        headers: EDITOR,
        payload: makeEventInput({ title: `Day ${day}`, start_date: `${date} 10:00:00`, end_date: `${date} 11:00:00` }),
      });
      expect(response.statusCode).toBe(201);
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  it('keeps the first ICS_MAX_EVENTS events of the list’s order, and says how many match', async () => {
    for (const query of ['', '?order=desc']) {
      const feed = await t.app.inject({ url: `${API}/events.ics${query}` });
      const list = json<{ events: Body[] }>(await t.app.inject({ url: `${API}/events${query}${query ? '&' : '?'}per_page=50` })).events;
      expect(list).toHaveLength(5);
      expect(feed.headers['x-tec-total']).toBe('5');
      // UIDs name the host of PUBLIC_URL.
      expect(parseIcs(feed.body).events.map((e) => e.uid)).toEqual(list.slice(0, 3).map((e) => `${String(e.id)}@public.example`));
    }
    // Paging parameters do not page the feed.
    const paged = await t.app.inject({ url: `${API}/events.ics?page=2&per_page=1` });
    expect(parseIcs(paged.body).events.map((e) => e.summary)).toEqual(['Day 1', 'Day 2', 'Day 3']);
  });
});
