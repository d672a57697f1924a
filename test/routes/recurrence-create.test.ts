/**
 * POST /events with `recurrence` and GET /series/{id}: a series and its occurrences as events
 * (times across DST, all-day, exdates and rdates), ids and slugs, every 400, and the list's filters
 * seeing occurrences as events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, EDITOR, type TestApp, countAll, createEvent, createEventOk, insertCategory, insertVenue, json, openTestApp } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();

type Body = Record<string, unknown>;
type Events = { events: Body[]; total: number };

/** The services' clock: the first of March 2026, before every series below begins. */
const NOW = new Date('2026-03-01T10:00:00Z');

describe.each(engines)('$name engine: creating recurring series', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine, { RECURRENCE_MAX_OCCURRENCES: '60' }, undefined, () => NOW);
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = async (url: string, headers: Record<string, string> = {}) => {
    const response = await t.app.inject({ method: 'GET', url, headers });
    expect(response.statusCode, response.body).toBe(200);
    return json(response);
  };
  /** Every occurrence of a series, first first. */
  const occurrencesOf = async (seriesId: unknown) => (await get(`${API}/events?post_parent=${String(seriesId)}&start_date=2000-01-01&per_page=50`)) as Events;

  it('answers 201 with the series; weekly occurrences keep 19:00 local across the DST change', async () => {
    const series = await createEventOk(t.app, {
      title: 'Tuesday choir',
      timezone: 'Europe/Berlin',
      start_date: '2026-03-17 19:00:00',
      end_date: '2026-03-17 21:00:00',
      recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=TU;COUNT=4' },
    });
    const id = series.id as number;
    expect(series.rest_url).toMatch(new RegExp(`/series/${id}$`));
    expect(series).toMatchObject({ title: 'Tuesday choir', slug: 'tuesday-choir', start_date: '2026-03-17 19:00:00', occurrences: 4, exceptions: [] });
    expect(series.recurrence).toMatchObject({ rrule: expect.stringContaining('FREQ=WEEKLY'), exdates: [], rdates: [] });
    expect((series.recurrence as Body).text).toEqual(expect.any(String));
    expect(series).not.toHaveProperty('series_id');
    const next = series.next_occurrences as Body[];
    expect(next.map((o) => o.start_date)).toEqual(['2026-03-17 19:00:00', '2026-03-24 19:00:00', '2026-03-31 19:00:00', '2026-04-07 19:00:00']);

    const { events, total } = await occurrencesOf(id);
    expect(total).toBe(4);
    expect(events.map((e) => e.start_date)).toEqual(next.map((o) => o.start_date));
    expect(events.map((e) => e.end_date)).toEqual(['2026-03-17 21:00:00', '2026-03-24 21:00:00', '2026-03-31 21:00:00', '2026-04-07 21:00:00']);
    // Berlin moves to summer time on 29 March: the same wall clock is an hour earlier in UTC.
    expect(events.map((e) => e.utc_start_date)).toEqual(['2026-03-17 18:00:00', '2026-03-24 18:00:00', '2026-03-31 17:00:00', '2026-04-07 17:00:00']);
    expect(events.map((e) => e.slug)).toEqual(['tuesday-choir-2026-03-17', 'tuesday-choir-2026-03-24', 'tuesday-choir-2026-03-31', 'tuesday-choir-2026-04-07']);
    expect(new Set(events.map((e) => e.id)).size).toBe(4);
    expect(events.map((e) => e.id)).not.toContain(id);
    for (const e of events) {
      expect(e).toMatchObject({ is_recurring: true, series_id: id, post_parent: id, is_exception: false, title: 'Tuesday choir', timezone: 'Europe/Berlin' });
      expect(e.occurrence_date).toBe((e.start_date as string).slice(0, 10));
    }
    expect(next.map((o) => o.id)).toEqual(events.map((e) => e.id));

    // GET /series/{id} answers what the create answered; an occurrence reads as an event.
    const read = await get(`${API}/series/${id}`);
    expect({ ...read, modified: 0 }).toEqual({ ...series, modified: 0, json_ld: read.json_ld });
    const single = await get(`${API}/events/${String(events[0]!.id)}`);
    expect(single).toMatchObject({ is_recurring: true, series_id: id, occurrence_date: '2026-03-17', is_exception: false });
    expect(Object.keys(single).slice(-5)).toEqual(['post_parent', 'is_recurring', 'series_id', 'occurrence_date', 'is_exception']);
  });

  it('leaves single events as they were: no occurrence fields', async () => {
    const single = await createEventOk(t.app, { title: 'Only once' });
    for (const key of ['is_recurring', 'series_id', 'occurrence_date', 'is_exception', 'recurrence']) expect(single).not.toHaveProperty(key);
    const read = await get(`${API}/events/${String(single.id)}`);
    expect(Object.keys(read).at(-1)).toBe('post_parent');
  });

  it('writes an all-day series with the all-day bounds', async () => {
    const series = await createEventOk(t.app, {
      title: 'Harvest fair',
      all_day: true,
      timezone: 'America/New_York',
      start_date: '2026-03-07',
      end_date: '2026-03-07',
      recurrence: { rrule: 'FREQ=DAILY;COUNT=3' },
    });
    const { events } = await occurrencesOf(series.id);
    expect(events.map((e) => [e.start_date, e.end_date, e.all_day])).toEqual([
      ['2026-03-07 00:00:00', '2026-03-07 23:59:59', true],
      ['2026-03-08 00:00:00', '2026-03-08 23:59:59', true],
      ['2026-03-09 00:00:00', '2026-03-09 23:59:59', true],
    ]);
  });

  it('leaves out exdates and adds rdates', async () => {
    const series = await createEventOk(t.app, {
      title: 'Reading circle',
      start_date: '2026-04-01 18:00:00',
      end_date: '2026-04-01 19:30:00',
      recurrence: { rrule: 'FREQ=WEEKLY;COUNT=4', exdates: ['2026-04-08'], rdates: ['2026-04-10'] },
    });
    expect(series.occurrences).toBe(4);
    expect(series.recurrence).toMatchObject({ exdates: ['2026-04-08'], rdates: ['2026-04-10'] });
    const { events } = await occurrencesOf(series.id);
    expect(events.map((e) => e.start_date)).toEqual(['2026-04-01 18:00:00', '2026-04-10 18:00:00', '2026-04-15 18:00:00', '2026-04-22 18:00:00']);
    expect(events.map((e) => e.end_date)).toEqual(['2026-04-01 19:30:00', '2026-04-10 19:30:00', '2026-04-15 19:30:00', '2026-04-22 19:30:00']);
  });

  it('gives a second series of the same title its own slug, and its occurrences theirs', async () => {
    const body = { title: 'Slug twin', start_date: '2026-05-01 10:00:00', end_date: '2026-05-01 11:00:00', recurrence: { rrule: 'FREQ=DAILY;COUNT=2' } };
    const first = await createEventOk(t.app, body);
    const second = await createEventOk(t.app, body);
    expect([first.slug, second.slug]).toEqual(['slug-twin', 'slug-twin-2']);
    expect((await occurrencesOf(second.id)).events.map((e) => e.slug)).toEqual(['slug-twin-2-2026-05-01', 'slug-twin-2-2026-05-02']);
    // An event that holds an occurrence's slug already: the occurrence takes a suffix.
    await createEventOk(t.app, { title: 'Taken', slug: 'clash-2026-06-01' });
    const clash = await createEventOk(t.app, { ...body, title: 'Clash', start_date: '2026-06-01 10:00:00', end_date: '2026-06-01 11:00:00' });
    expect((await occurrencesOf(clash.id)).events.map((e) => e.slug)).toEqual(['clash-2026-06-01-2', 'clash-2026-06-02']);
  });

  it.each([
    ['an invalid rule', { rrule: 'FREQ=SOMETIMES;COUNT=3' }, 'recurrence'],
    ['a rule without an end', { rrule: 'FREQ=WEEKLY' }, 'recurrence'],
    ['more occurrences than RECURRENCE_MAX_OCCURRENCES', { rrule: 'FREQ=DAILY;COUNT=61' }, 'recurrence'],
    ['a sub-daily rule', { rrule: 'FREQ=HOURLY;COUNT=3' }, 'recurrence'],
    ['a malformed exdate', { rrule: 'FREQ=DAILY;COUNT=3', exdates: ['tomorrow'] }, 'recurrence'],
    ['a rule that is not an object', 'FREQ=DAILY;COUNT=3', 'recurrence'],
    ['a rule without rrule', { exdates: [] }, 'recurrence'],
  ])('refuses %s: 400 naming the parameter, nothing stored', async (_name, recurrence, param) => {
    const before = await countAll(t.storage);
    const { response, body } = await createEvent(t.app, { title: 'Refused', venue: { venue: 'Never created hall' }, recurrence });
    expect(response.statusCode, response.body).toBe(400);
    expect(body.code).toBe('rest_invalid_param');
    expect(Object.keys((body.data as { params: Body }).params)).toEqual([param]);
    expect(await countAll(t.storage)).toEqual(before);
  });

  it('refuses post_parent together with recurrence, and names every problem at once', async () => {
    const parent = await createEventOk(t.app, { title: 'Parent' });
    const { response, body } = await createEvent(t.app, { title: ' ', post_parent: parent.id, recurrence: { rrule: 'FREQ=WEEKLY' } });
    expect(response.statusCode).toBe(400);
    expect(Object.keys((body.data as { params: Body }).params).sort()).toEqual(['post_parent', 'recurrence', 'title']);
  });

  it('GET /series/{id}: 404 for an unknown id or an event id; drafts need a token; passwords as on events', async () => {
    const missing = await t.app.inject({ method: 'GET', url: `${API}/series/999999` });
    expect(missing.statusCode).toBe(404);
    expect(json(missing).code).toBe('rest-series-not-found');
    const single = await createEventOk(t.app, { title: 'Not a series' });
    expect((await t.app.inject({ method: 'GET', url: `${API}/series/${String(single.id)}` })).statusCode).toBe(404);

    const rule = { rrule: 'FREQ=DAILY;COUNT=2' };
    const draft = await createEventOk(t.app, {
      title: 'Draft series',
      status: 'draft',
      start_date: '2026-07-01 10:00:00',
      end_date: '2026-07-01 11:00:00',
      recurrence: rule,
    });
    expect((await t.app.inject({ method: 'GET', url: `${API}/series/${String(draft.id)}` })).statusCode).toBe(403);
    expect((await get(`${API}/series/${String(draft.id)}`, EDITOR)).status).toBe('draft');
    const list = (await get(`${API}/events?post_parent=${String(draft.id)}&status=draft`, EDITOR)) as Events;
    expect(list.events.map((e) => e.status)).toEqual(['draft', 'draft']);
    // An anonymous caller cannot name a series it may not read.
    expect((await t.app.inject({ method: 'GET', url: `${API}/events?post_parent=${String(draft.id)}` })).statusCode).toBe(400);

    const locked = await createEventOk(t.app, { title: 'Locked series', start_date: '2026-07-01 10:00:00', end_date: '2026-07-01 11:00:00', recurrence: rule });
    await t.storage.series.updateById(locked.id as number, { $set: { password: 'sesame' } });
    expect((await t.app.inject({ method: 'GET', url: `${API}/series/${String(locked.id)}` })).statusCode).toBe(403);
    expect((await get(`${API}/series/${String(locked.id)}?password=sesame`)).title).toBe('Locked series');
  });

  it('answers under the language roots with the rule in their language, and with validators', async () => {
    const series = await createEventOk(t.app, {
      title: 'Polyglot',
      start_date: '2026-08-04 10:00:00',
      end_date: '2026-08-04 11:00:00',
      recurrence: { rrule: 'FREQ=WEEKLY;COUNT=3' },
    });
    const texts = [];
    for (const root of ['', '/de', '/fr']) {
      const response = await t.app.inject({ method: 'GET', url: `${root}${API}/series/${String(series.id)}` });
      expect(response.statusCode).toBe(200);
      expect(response.headers.etag).toBeDefined();
      const again = await t.app.inject({
        method: 'GET',
        url: `${root}${API}/series/${String(series.id)}`,
        headers: { 'if-none-match': String(response.headers.etag) },
      });
      expect(again.statusCode).toBe(304);
      const body = json(response);
      expect(body.rest_url).toContain(`${root}/${API.slice(1)}/series/`);
      texts.push((body.recurrence as Body).text);
    }
    expect(new Set(texts).size).toBe(3);
  });

  it('lets the list filters see occurrences: default window, categories, search, venue', async () => {
    const venue = await insertVenue(t.storage);
    const category = await insertCategory(t.storage);
    const series = await createEventOk(t.app, {
      title: 'Quintessential juggling',
      start_date: '2026-03-02 17:00:00',
      end_date: '2026-03-02 18:00:00',
      venue: venue._id,
      categories: [category._id],
      recurrence: { rrule: 'FREQ=MONTHLY;COUNT=3' },
    });
    const ours = (body: Body) => (body as Events).events.filter((e) => e.series_id === series.id).map((e) => e.start_date);
    const dates = ['2026-03-02 17:00:00', '2026-04-02 17:00:00', '2026-05-02 17:00:00'];
    expect(ours(await get(`${API}/events?per_page=50`))).toEqual(dates);
    expect(ours(await get(`${API}/events?categories=${category._id}`))).toEqual(dates);
    expect(ours(await get(`${API}/events?search=quintessential`))).toEqual(dates);
    expect(ours(await get(`${API}/events?venue=${venue._id}`))).toEqual(dates);
    expect(ours(await get(`${API}/events?post_parent=${String(series.id)}`))).toEqual(dates);
    expect(ours(await get(`${API}/events?post_parent=${String(series.id)}&start_date=2026-04-01`))).toEqual(dates.slice(1));
  });

  it('Idempotency-Key: a create sent again answers the same series and writes no second one', async () => {
    const post = () =>
      t.app.inject({
        method: 'POST',
        url: `${API}/events`,
        headers: { ...EDITOR, 'idempotency-key': `series-key-${engine.name}` },
        payload: {
          title: 'Retried market',
          start_date: '2026-05-02 08:00:00',
          end_date: '2026-05-02 13:00:00',
          recurrence: { rrule: 'FREQ=MONTHLY;BYDAY=1SA;COUNT=3' },
        },
      });
    const first = await post();
    expect(first.statusCode, first.body).toBe(201);
    const before = await countAll(t.storage);
    const again = await post();
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(await countAll(t.storage)).toEqual(before);
    const { total, events } = await occurrencesOf(json(first).id);
    expect(total).toBe(3);
    expect(events.map((e) => e.start_date)).toEqual(['2026-05-02 08:00:00', '2026-06-06 08:00:00', '2026-07-04 08:00:00']);
  });
});
