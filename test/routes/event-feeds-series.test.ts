/**
 * Recurring series in the iCalendar feeds, read back with ical.js: a series is one master VEVENT
 * (RRULE, EXDATE, RDATE) plus a VEVENT with RECURRENCE-ID for each exception, and ical.js expands
 * the feed to exactly the occurrences of the JSON list for the same window and caller — weekly
 * across daylight-saving changes (Berlin, New York), monthly by weekday, all-day, with exdates,
 * rdates, an exception moved in time, a trashed occurrence, a draft one, a series written only up
 * to its horizon, and fixed-offset zones. The series and their occurrences are written straight
 * into the storage, as the design of series describes them.
 */
import ICAL from 'ical.js';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wallClockToInstant } from '../../src/lib/dates/index.js';
import { occurrenceDates } from '../../src/lib/recurrence/index.js';
import { type EventDoc, type SeriesDoc, type Storage } from '../../src/storage/port.js';
import { API, EDITOR, type TestApp, json, makeEventInput, openTestApp } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';
import { makeEventDoc } from '../helpers/factories.js';
import { parseIcs } from '../helpers/ics.js';

const { engines } = await routeEnginesUnderTest();

type Body = Record<string, unknown>;
type Component = InstanceType<typeof ICAL.Component>;
type Time = InstanceType<typeof ICAL.Time>;

const NOW = new Date('2030-01-15T12:00:00Z');
const WRITTEN = new Date('2030-01-10T08:00:00Z');
const CHANGED = new Date('2030-01-12T09:30:00Z');
/** The window of the comparisons: every occurrence written lies inside it. */
const WINDOW = { start: '2030-01-01', end: '2030-12-31' };

interface SeriesSpec {
  title: string;
  timezone: string;
  /** DTSTART and DTEND, local (`YYYY-MM-DD HH:MM:SS`); all-day: 00:00:00 and 23:59:59 of the last day. */
  start: string;
  end: string;
  allDay?: boolean;
  rrule: string;
  exdates?: string[];
  rdates?: string[];
  /** The horizon: occurrences are written up to this date, the rest are the series' nextDate on. */
  writtenUntil?: string;
  fields?: Partial<EventDoc>;
}

interface Written {
  series: SeriesDoc;
  /** The occurrences by date. */
  on: Map<string, EventDoc>;
}

const wallMs = (wall: string) => Date.parse(`${wall.replace(' ', 'T')}Z`);
const wallText = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/**
 * A series and its occurrences as the series service writes them: every template field copied,
 * slug `<series slug>-<date>`, start = the date at the local start time, end = start + the
 * wall-clock duration, postParent = seriesId.
 */
async function writeSeries(storage: Storage, spec: SeriesSpec): Promise<Written> {
  const startDate = spec.start.slice(0, 10);
  const recurrence = { rrule: spec.rrule, exdates: spec.exdates ?? [], rdates: spec.rdates ?? [] };
  const dates = occurrenceDates(recurrence, startDate);
  const horizon = spec.writtenUntil ?? '9999-12-31';
  const { _id, slug, ...template } = makeEventDoc({
    title: spec.title,
    timezone: spec.timezone,
    allDay: spec.allDay ?? false,
    startUtc: wallClockToInstant(spec.start, spec.timezone),
    endUtc: wallClockToInstant(spec.end, spec.timezone),
    dateUtc: WRITTEN,
    modifiedUtc: WRITTEN,
    ...spec.fields,
  });
  const seriesId = await storage.nextId('posts');
  const seriesSlug = spec.title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const series: SeriesDoc = { ...template, _id: seriesId, slug: seriesSlug, recurrence, nextDate: dates.find((d) => d > horizon) ?? null };
  await storage.series.insertOne(series);
  const duration = wallMs(spec.end) - wallMs(spec.start);
  const time = spec.start.slice(11);
  const on = new Map<string, EventDoc>();
  for (const date of dates.filter((d) => d <= horizon)) {
    const start = `${date} ${time}`;
    const doc: EventDoc = {
      ...template,
      _id: await storage.nextId('posts'),
      slug: `${seriesSlug}-${date}`,
      startUtc: wallClockToInstant(start, spec.timezone),
      endUtc: wallClockToInstant(wallText(wallMs(start) + duration), spec.timezone),
      postParent: seriesId,
      seriesId,
      occurrenceDate: date,
      isException: false,
    };
    on.set(date, doc);
  }
  expect(await storage.events.insertMany([...on.values()])).toEqual([]);
  return { series, on };
}

/** An occurrence changed on its own (scope `this`), as a later write. */
async function change(storage: Storage, doc: EventDoc | undefined, set: Partial<EventDoc>, exception = true): Promise<EventDoc> {
  expect(doc).toBeDefined();
  const updated = await storage.events.updateById(doc!._id, { $set: { ...set, ...(exception ? { isException: true } : {}), modifiedUtc: CHANGED } });
  return updated!;
}

/** An occurrence as a client shows it: its title, and its start and end as instants (all-day: 00:00 and 23:59:59 local, as the JSON). */
type Shown = string;
const shown = (title: string, start: Date, end: Date): Shown => `${title} | ${start.toISOString()} | ${end.toISOString()}`;

/** The instant a client gives a DTSTART/DTEND value: a date is 00:00 of that day in the event's zone. */
function instant(time: Time, zone: string): Date {
  if (!time.isDate) return new Date(time.toUnixTime() * 1000);
  return DateTime.fromObject({ year: time.year, month: time.month, day: time.day }, { zone }).toJSDate();
}

/**
 * Every occurrence ical.js expands the feed to: each VEVENT without RECURRENCE-ID on its own or,
 * with an RRULE, expanded with the VEVENTs that share its UID and carry a RECURRENCE-ID. `zoneOf`
 * gives an all-day event's zone (a DATE has none).
 */
function expand(text: string, zoneOf: (title: string) => string): Shown[] {
  const root = new ICAL.Component(ICAL.parse(text) as unknown[]);
  const vevents = root.getAllSubcomponents('vevent');
  const uid = (c: Component) => String(c.getFirstPropertyValue('uid'));
  const out: Shown[] = [];
  for (const master of vevents.filter((v) => !v.hasProperty('recurrence-id'))) {
    const exceptions = vevents.filter((v) => v.hasProperty('recurrence-id') && uid(v) === uid(master));
    const event = new ICAL.Event(master, { exceptions, strictExceptions: true });
    const add = (start: Time, end: Time, summary: string) => {
      const zone = zoneOf(summary);
      const last = instant(end, zone);
      out.push(shown(summary, instant(start, zone), end.isDate ? new Date(last.getTime() - 1000) : last));
    };
    if (!event.isRecurring()) {
      add(event.startDate, event.endDate, event.summary);
      continue;
    }
    const iterator = event.iterator();
    for (let next = iterator.next(); next; next = iterator.next()) {
      // ical.js's declarations leave the details' type unresolved.
      const details = event.getOccurrenceDetails(next) as unknown as { startDate: Time; endDate: Time; item: { summary: string } };
      add(details.startDate, details.endDate, details.item.summary);
    }
  }
  return out;
}

describe.each(engines)('$name engine: recurring series in the iCalendar feeds', (engine) => {
  let t: TestApp;
  const series: Record<string, Written> = {};
  const zones = new Map<string, string>();
  let single: number;

  const get = (path: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: `${API}${path}`, headers });
  const zoneOf = (title: string) => zones.get(title) ?? 'UTC';
  const uid = (name: string) => `series-${series[name]!.series._id}@localhost`;

  /** Every event of the JSON list for a query (all its pages), as a client shows them. */
  async function listed(query: string, headers: Record<string, string> = {}): Promise<Shown[]> {
    const out: Shown[] = [];
    for (let page = 1; ; page++) {
      const response = await get(`/events${query}&per_page=50&page=${page}`, headers);
      expect(response.statusCode, response.body).toBe(200);
      const events = json<{ events: Body[] }>(response).events;
      for (const e of events) {
        zones.set(e.title as string, e.timezone as string);
        out.push(
          shown(e.title as string, new Date(`${String(e.utc_start_date).replace(' ', 'T')}Z`), new Date(`${String(e.utc_end_date).replace(' ', 'T')}Z`)),
        );
      }
      if (out.length >= Number(response.headers['x-tec-total'])) return out;
    }
  }

  /** The feed and the list of a window agree: ical.js expands the feed, within the window, to the list's occurrences. */
  async function agree(window: { start: string; end: string }, headers: Record<string, string> = {}) {
    const query = `?start_date=${window.start}&end_date=${window.end}`;
    const list = await listed(query, headers);
    const feed = await get(`/events.ics${query}`, headers);
    expect(feed.statusCode).toBe(200);
    const [from, to] = [Date.parse(`${window.start}T00:00:00Z`), Date.parse(`${window.end}T23:59:59Z`)];
    const inside = expand(feed.body, zoneOf).filter((s) => {
      const [, start, end] = s.split(' | ');
      return Date.parse(start!) >= from && Date.parse(end!) <= to;
    });
    expect(inside.sort()).toEqual([...list].sort());
    return { list, feed: parseIcs(feed.body), text: feed.body };
  }

  beforeAll(async () => {
    t = await openTestApp(engine, {}, undefined, () => NOW);
    const { storage } = t;
    const venue = json(await t.app.inject({ method: 'POST', url: `${API}/venues`, headers: EDITOR, payload: { venue: 'Harbour Hall', city: 'Hamburg' } }));
    // Tuesdays 19:00–21:00 across the spring change (2030-03-31), one Thursday added, one Tuesday taken out.
    series.berlin = await writeSeries(storage, {
      title: 'Berlin choir',
      timezone: 'Europe/Berlin',
      start: '2030-03-05 19:00:00',
      end: '2030-03-05 21:00:00',
      rrule: 'FREQ=WEEKLY;BYDAY=TU;COUNT=8',
      exdates: ['2030-03-19'],
      rdates: ['2030-03-28'],
      fields: { venueId: venue.id as number },
    });
    const berlin = series.berlin.on;
    // Moved to the Wednesday, later and longer, and renamed; trashed; a draft.
    await change(storage, berlin.get('2030-04-02'), {
      title: 'Berlin choir (moved)',
      startUtc: wallClockToInstant('2030-04-03 20:00:00', 'Europe/Berlin'),
      endUtc: wallClockToInstant('2030-04-03 22:30:00', 'Europe/Berlin'),
    });
    await change(storage, berlin.get('2030-04-09'), { status: 'trash' }, false);
    await change(storage, berlin.get('2030-04-16'), { status: 'draft' });
    // Saturdays until the Saturday after the autumn change (2030-11-03).
    series.newYork = await writeSeries(storage, {
      title: 'New York walk',
      timezone: 'America/New_York',
      start: '2030-10-19 10:00:00',
      end: '2030-10-19 11:30:00',
      rrule: 'FREQ=WEEKLY;BYDAY=SA;UNTIL=20301116',
    });
    // Saturday nights 22:00–03:00: the night of the change lasts an hour longer.
    series.lateShow = await writeSeries(storage, {
      title: 'New York late show',
      timezone: 'America/New_York',
      start: '2030-10-19 22:00:00',
      end: '2030-10-20 03:00:00',
      rrule: 'FREQ=WEEKLY;COUNT=4',
    });
    // The first Saturday of the month, across the spring change.
    series.market = await writeSeries(storage, {
      title: 'Monthly market',
      timezone: 'Europe/Berlin',
      start: '2030-02-02 09:00:00',
      end: '2030-02-02 14:00:00',
      rrule: 'FREQ=MONTHLY;BYDAY=1SA;COUNT=6',
    });
    // Two days from the 15th of each month, all day; one month taken out.
    series.fair = await writeSeries(storage, {
      title: 'Book fair',
      timezone: 'America/New_York',
      start: '2030-02-15 00:00:00',
      end: '2030-02-16 23:59:59',
      allDay: true,
      rrule: 'FREQ=MONTHLY;BYMONTHDAY=15;COUNT=4',
      exdates: ['2030-04-15'],
    });
    // Written up to the end of the year; the rule goes on into the next.
    series.longRun = await writeSeries(storage, {
      title: 'Long run',
      timezone: 'UTC',
      start: '2030-08-05 12:00:00',
      end: '2030-08-05 13:00:00',
      rrule: 'FREQ=WEEKLY;COUNT=34',
      writtenUntil: '2030-12-31',
    });
    // A fixed offset keeping the start's date in UTC (04:30Z), and one moving it to the day before (20:30Z).
    series.offsetMorning = await writeSeries(storage, {
      title: 'Offset morning',
      timezone: 'UTC+5.5',
      start: '2030-05-07 10:00:00',
      end: '2030-05-07 11:00:00',
      rrule: 'FREQ=WEEKLY;BYDAY=TU;COUNT=3',
    });
    series.offsetNight = await writeSeries(storage, {
      title: 'Offset night',
      timezone: 'UTC+5.5',
      start: '2030-05-07 02:00:00',
      end: '2030-05-07 03:00:00',
      rrule: 'FREQ=WEEKLY;BYDAY=TU;COUNT=3',
    });
    // Protected: redacted as the list redacts it, its all-day dates written as instants.
    series.protectedFair = await writeSeries(storage, {
      title: 'Protected fair',
      timezone: 'Europe/Berlin',
      start: '2030-06-03 00:00:00',
      end: '2030-06-03 23:59:59',
      allDay: true,
      rrule: 'FREQ=DAILY;INTERVAL=2;COUNT=3',
      fields: { password: 'open sesame', venueId: venue.id as number },
    });
    const created = await t.app.inject({
      method: 'POST',
      url: `${API}/events`,
      headers: EDITOR,
      payload: makeEventInput({ title: 'Single concert', start_date: '2030-03-20 19:00:00', end_date: '2030-03-20 21:00:00', timezone: 'Europe/Berlin' }),
    });
    expect(created.statusCode, created.body).toBe(201);
    single = json(created).id as number;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('expands to the JSON list’s occurrences, for anonymous callers and editors', async () => {
    const anonymous = await agree(WINDOW);
    const editor = await agree(WINDOW, EDITOR);
    // The editor sees the draft; nobody sees the trashed one.
    expect(editor.list.length).toBe(anonymous.list.length + 1);
    expect(anonymous.list.length).toBeGreaterThan(50);
  });

  it('agrees on narrower windows, which choose the series a feed holds', async () => {
    for (const window of [
      { start: '2030-03-20', end: '2030-04-10' },
      { start: '2030-11-01', end: '2030-11-10' },
      { start: '2030-05-06', end: '2030-05-08' },
      { start: '2030-12-20', end: '2030-12-31' },
    ]) {
      const { list } = await agree(window);
      expect(list.length, window.start).toBeGreaterThan(0);
    }
  });

  it('writes a series once, with its rule, and an exception with RECURRENCE-ID under the series’ UID', async () => {
    const { feed, text } = await agree(WINDOW);
    const byUid = (value: string) => feed.events.filter((e) => e.uid === value);
    const berlin = byUid(uid('berlin'));
    const master = berlin.find((e) => e.text('recurrence-id') === null)!;
    expect(master.summary).toBe('Berlin choir');
    expect(master.start.raw).toBe('20300305T190000');
    expect(master.start.tzid).toBe('Europe/Berlin');
    expect(text).toContain('RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=8\r\n');
    expect(master.text('location')).toBe('Harbour Hall, Hamburg');
    // The rule's exdate, the trashed Tuesday and, for anonymous callers, the draft one.
    expect(text).toContain('EXDATE;TZID=Europe/Berlin:20300319T190000,20300409T190000,20300416T190000\r\n');
    expect(text).toContain('RDATE;TZID=Europe/Berlin:20300328T190000\r\n');
    const moved = berlin.filter((e) => e.text('recurrence-id') !== null);
    expect(moved.map((e) => [e.summary, e.parameter('recurrence-id', 'tzid'), e.start.raw])).toEqual([
      ['Berlin choir (moved)', 'Europe/Berlin', '20300403T200000'],
    ]);
    expect(text).toContain('RECURRENCE-ID;TZID=Europe/Berlin:20300402T190000\r\n');
    // The ordinary occurrences are not written one by one: one master per series, and the single event.
    const masters = feed.events.filter((e) => e.text('recurrence-id') === null).map((e) => e.uid);
    expect(masters.sort()).toEqual(
      [
        ...['berlin', 'newYork', 'lateShow', 'market', 'fair', 'longRun', 'offsetMorning', 'protectedFair'].map(uid),
        ...[...series.offsetNight!.on.values()].map((o) => `${o._id}@localhost`),
        `${single}@localhost`,
      ].sort(),
    );
    // UNTIL in UTC beside a TZID, on the last local date.
    for (const rule of ['BYDAY=SA;UNTIL=2030111[67]T\\d{6}Z', 'BYDAY=\\+?1SA;COUNT=6', 'BYMONTHDAY=15;COUNT=4', 'COUNT=34', 'BYDAY=TU;COUNT=3']) {
      expect(text).toMatch(new RegExp(`\r\nRRULE:FREQ=(WEEKLY|MONTHLY);${rule}\r\n`));
    }
  });

  it('names instances in DTSTART’s form: dates all day, UTC in a fixed offset', async () => {
    const { feed, text } = await agree(WINDOW);
    const fair = feed.events.find((e) => e.uid === uid('fair'))!;
    expect([fair.start.date, fair.end.date]).toEqual(['2030-02-15', '2030-02-17']);
    expect(text).toContain('EXDATE;VALUE=DATE:20300415\r\n');
    const morning = feed.events.find((e) => e.uid === uid('offsetMorning'))!;
    expect(morning.start.raw).toBe('20300507T043000Z');
  });

  it('redacts a protected series as the list does, and shows it whole with its password', async () => {
    const master = (body: string) => parseIcs(body).events.find((e) => e.uid === uid('protectedFair'))!;
    const locked = master((await agree(WINDOW)).text);
    expect([locked.text('class'), locked.text('location'), locked.start.raw]).toEqual(['CONFIDENTIAL', null, '20300603T000000']);
    const open = master((await get(`/events.ics?start_date=${WINDOW.start}&end_date=${WINDOW.end}&password=open%20sesame`)).body);
    expect([open.text('class'), open.text('location'), open.start.date, open.end.date]).toEqual([null, 'Harbour Hall, Hamburg', '2030-06-03', '2030-06-04']);
  });

  it('writes an occurrence a client would not derive — the night of a daylight-saving change — with its own times', async () => {
    const { feed } = await agree({ start: '2030-10-01', end: '2030-11-30' });
    const show = feed.events.filter((e) => e.uid === uid('lateShow'));
    expect(show.map((e) => e.text('recurrence-id'))).toEqual([null, '2030-11-02T22:00:00']);
    const night = series.lateShow!.on.get('2030-11-02')!;
    expect([show[1]!.start.instant, show[1]!.end.instant]).toEqual([night.startUtc, night.endUtc]);
    // Six hours, not five.
    expect(night.endUtc.getTime() - night.startUtc.getTime()).toBe(6 * 3600_000);
  });

  it('shows an editor the draft occurrence as an exception', async () => {
    const { feed, text } = await agree(WINDOW, EDITOR);
    const draft = feed.events.find((e) => e.uid === uid('berlin') && e.text('recurrence-id') === '2030-04-16T19:00:00')!;
    expect(draft.text('status')).toBe('TENTATIVE');
    expect(text).toContain('EXDATE;TZID=Europe/Berlin:20300319T190000,20300409T190000\r\n');
  });

  it('answers one occurrence on its own, as an event', async () => {
    const occurrence = series.berlin!.on.get('2030-03-12')!;
    const calendar = parseIcs((await get(`/events/${occurrence._id}.ics`)).body);
    expect(calendar.events.map((e) => [e.uid, e.text('rrule'), e.text('recurrence-id'), e.start.raw])).toEqual([
      [`${occurrence._id}@localhost`, null, null, '20300312T190000'],
    ]);
    const bySlug = await get(`/events/by-slug/${occurrence.slug}.ics`);
    expect(parseIcs(bySlug.body).events[0]!.uid).toBe(`${occurrence._id}@localhost`);
  });

  it('gives the same bytes while nothing changes, and a newer SEQUENCE when an occurrence does', async () => {
    const path = `/events.ics?start_date=${WINDOW.start}&end_date=${WINDOW.end}`;
    const first = await get(path);
    const again = await get(path);
    expect(again.body).toBe(first.body);
    expect(again.headers.etag).toBe(first.headers.etag);
    const master = (body: string) => parseIcs(body).events.find((e) => e.uid === uid('market') && e.text('recurrence-id') === null)!;
    const before = Number(master(first.body).text('sequence'));
    // An occurrence trashed later: the master gains an EXDATE and states the later change.
    const later = new Date(CHANGED.getTime() + 3600_000);
    await t.storage.events.updateById(series.market!.on.get('2030-04-06')!._id, { $set: { status: 'trash', modifiedUtc: later } });
    const after = await get(path, { 'if-none-match': first.headers.etag as string });
    expect(after.statusCode).toBe(200);
    expect(Number(master(after.body).text('sequence'))).toBe(before + 3600 + (CHANGED.getTime() - WRITTEN.getTime()) / 1000);
    expect(master(after.body).text('last-modified')).toBe(later.toISOString().replace('.000', ''));
    expect(after.body).toContain('EXDATE;TZID=Europe/Berlin:20300406T090000\r\n');
    await agree(WINDOW);
  });
});
