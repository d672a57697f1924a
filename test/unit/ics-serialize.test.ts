/**
 * The iCalendar serializer (src/serialize/ics/): line folding, the VTIMEZONE components and what a
 * client reads from them, the times of events, and the calendar as ical.js reads it back.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { wallClockToInstant } from '../../src/lib/dates/index.js';
import { type SerializeContext } from '../../src/serialize/context.js';
import { type FeedEvent, feedName, serializeCalendar } from '../../src/serialize/ics/calendar.js';
import { foldContentLines } from '../../src/serialize/ics/fold.js';
import { eventTimes } from '../../src/serialize/ics/times.js';
import { offsetAt, readsBack, zoneDefinition } from '../../src/serialize/ics/vtimezone.js';
import { type EventDoc } from '../../src/storage/port.js';
import { makeCategoryDoc, makeEventDoc, makeOrganizerDoc, makeVenueDoc, point } from '../helpers/factories.js';
import { contentLines, parseIcs, unfold } from '../helpers/ics.js';

const ctx = {
  apiBase: 'https://calendar.example.org/calendar/events/v1',
  siteUrl: 'https://calendar.example.org',
  siteTimezone: 'UTC',
  single: false,
  now: new Date(),
  key: 'test',
  caches: null,
} as unknown as SerializeContext;

const at = (wall: string, zone: string) => wallClockToInstant(wall, zone);

describe('foldContentLines', () => {
  it('keeps short lines, and ends every line with CRLF', () => {
    expect(foldContentLines('BEGIN:VEVENT\r\nSUMMARY:Short\r\nEND:VEVENT\r\n')).toBe('BEGIN:VEVENT\r\nSUMMARY:Short\r\nEND:VEVENT\r\n');
    expect(foldContentLines('')).toBe('');
    const exactly75 = `X:${'a'.repeat(73)}`;
    expect(foldContentLines(`${exactly75}\r\n`)).toBe(`${exactly75}\r\n`);
  });

  it('folds a long line at 75 octets, continuing with one space', () => {
    const line = `DESCRIPTION:${'x'.repeat(200)}`;
    const folded = foldContentLines(`${line}\r\n`);
    const lines = folded.slice(0, -2).split('\r\n');
    expect(lines[0]).toHaveLength(75);
    expect(lines.slice(1).every((l) => l.startsWith(' ') && l.length <= 75)).toBe(true);
    expect(unfold(folded)).toBe(`${line}\r\n`);
  });

  it('never cuts a character: any text unfolds to itself, in lines of at most 75 octets', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 300 }), { minLength: 1, maxLength: 5 }), (texts) => {
        const input = texts.map((t) => `X-TEXT:${t.replace(/[\r\n]/g, '')}\r\n`).join('');
        const folded = foldContentLines(input);
        expect(unfold(folded)).toBe(input);
        const { lines, crlf } = contentLines(folded);
        expect(crlf).toBe(true);
        for (const line of lines) {
          expect(line.length).toBeLessThanOrEqual(75);
          // Each line is whole UTF-8: decoding and encoding again gives the same octets.
          expect(Buffer.from(line.toString('utf8'), 'utf8').equals(line)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('VTIMEZONE components', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('name the canonical zone of an alias, and none for a zone the library lacks (without logging)', () => {
    const error = vi.spyOn(console, 'error');
    expect(zoneDefinition('Asia/Calcutta')?.tzid).toBe('Asia/Kolkata');
    expect(zoneDefinition('Europe/Berlin')?.component).toMatch(/^BEGIN:VTIMEZONE\r\nTZID:Europe\/Berlin\r\n[\s\S]*END:VTIMEZONE\r\n$/);
    expect(zoneDefinition('Mars/Olympus_Mons')).toBeNull();
    expect(error).not.toHaveBeenCalled();
  });

  const changes: Array<[zone: string, offsets: Array<[instant: string, minutes: number]>]> = [
    [
      'Europe/Berlin',
      [
        ['2030-03-31T00:59:59Z', 60],
        ['2030-03-31T01:00:00Z', 120],
        ['2030-10-27T00:59:59Z', 120],
        ['2030-10-27T01:00:00Z', 60],
      ],
    ],
    [
      'America/New_York',
      [
        ['2030-03-10T06:59:59Z', -300],
        ['2030-03-10T07:00:00Z', -240],
        ['2030-11-03T05:59:59Z', -240],
        ['2030-11-03T06:00:00Z', -300],
      ],
    ],
    [
      'Australia/Lord_Howe',
      [
        ['2030-04-06T14:59:59Z', 660],
        ['2030-04-06T15:00:00Z', 630],
        ['2030-10-05T15:29:59Z', 630],
        ['2030-10-05T15:30:00Z', 660],
      ],
    ],
    [
      'Asia/Kolkata',
      [
        ['2030-01-01T00:00:00Z', 330],
        ['2030-07-01T00:00:00Z', 330],
      ],
    ],
  ];
  it.each(changes)('give the offsets of %s around its changes', (zone, offsets) => {
    const definition = zoneDefinition(zone)!;
    for (const [instant, minutes] of offsets) expect(offsetAt(definition, Date.parse(instant)), instant).toBe(minutes);
  });

  it('agree with the service’s zone rules every hour of 2026–2031 in zones with and without daylight time', () => {
    for (const zone of ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Australia/Sydney', 'Asia/Kolkata', 'Pacific/Chatham']) {
      const definition = zoneDefinition(zone)!;
      const format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
      for (let ms = Date.UTC(2026, 0, 1); ms < Date.UTC(2031, 0, 1); ms += 3_600_000) {
        const name = format.formatToParts(ms).find((p) => p.type === 'timeZoneName')!.value;
        const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
        const expected = match === null ? 0 : (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
        if (offsetAt(definition, ms) !== expected) expect.fail(`${zone} ${new Date(ms).toISOString()}: ${offsetAt(definition, ms)} ≠ ${expected}`);
      }
    }
  });

  it('read a local time back only when it has one reading, the stored instant', () => {
    const berlin = zoneDefinition('Europe/Berlin')!;
    const wall = (text: string) => Date.parse(`${text}Z`);
    expect(readsBack(berlin, wall('2030-07-01T20:00:00'), Date.parse('2030-07-01T18:00:00Z'))).toBe(true);
    expect(readsBack(berlin, wall('2030-07-01T20:00:00'), Date.parse('2030-07-01T19:00:00Z'))).toBe(false);
    // 02:30 on the night clocks go back happens twice: neither instant is read back.
    expect(readsBack(berlin, wall('2030-10-27T02:30:00'), Date.parse('2030-10-27T00:30:00Z'))).toBe(false);
    expect(readsBack(berlin, wall('2030-10-27T02:30:00'), Date.parse('2030-10-27T01:30:00Z'))).toBe(false);
    // New York's rules changed in 2007: the component's current rules misread March 2005.
    const newYork = zoneDefinition('America/New_York')!;
    expect(readsBack(newYork, wall('2005-03-20T12:00:00'), Date.parse('2005-03-20T17:00:00Z'))).toBe(false);
    expect(readsBack(newYork, wall('2030-03-20T12:00:00'), Date.parse('2030-03-20T16:00:00Z'))).toBe(true);
    // Chile leaves daylight time on the first Sunday of April from the 2nd: the component's "first
    // Sunday" is a week early when April begins on a Sunday (2029).
    const santiago = zoneDefinition('America/Santiago')!;
    expect(readsBack(santiago, wall('2029-04-01T12:00:00'), Date.parse('2029-04-01T15:00:00Z'))).toBe(false);
    expect(readsBack(santiago, wall('2030-04-07T12:00:00'), Date.parse('2030-04-07T16:00:00Z'))).toBe(true);
    // Before 1970 the component says nothing.
    expect(readsBack(berlin, wall('1960-07-01T12:00:00'), Date.parse('1960-07-01T11:00:00Z'))).toBe(false);
  });
});

describe('eventTimes', () => {
  const event = (start: string, end: string, timezone: string, allDay = false): EventDoc =>
    makeEventDoc({ startUtc: at(start, timezone), endUtc: at(end, timezone), timezone, allDay });

  it('writes local times with the TZID of the zone', () => {
    const times = eventTimes(event('2030-03-30 20:00:00', '2030-03-31 04:00:00', 'Europe/Berlin'), false);
    expect(times).toMatchObject({ timezone: 'Europe/Berlin', allDay: false, start: { hour: 20, timeZoneId: 'Europe/Berlin' }, end: { day: 31, hour: 4 } });
    expect(eventTimes(event('2030-05-01 10:00:00', '2030-05-01 11:00:00', 'Asia/Calcutta'), false).timezone).toBe('Asia/Kolkata');
  });

  it('writes UTC for UTC and UTC±N events, and for a time the VTIMEZONE would misread', () => {
    for (const zone of ['UTC', 'UTC+5', 'UTC-3.5']) {
      const doc = event('2030-05-01 10:00:00', '2030-05-01 11:00:00', zone);
      expect(eventTimes(doc, false)).toEqual({ start: doc.startUtc, end: doc.endUtc, timezone: null, zone: null, allDay: false });
    }
    // The second 02:30 of the night clocks go back.
    const second = makeEventDoc({ startUtc: new Date('2030-10-27T01:30:00Z'), endUtc: new Date('2030-10-27T03:00:00Z'), timezone: 'Europe/Berlin' });
    expect(eventTimes(second, false)).toMatchObject({ start: second.startUtc, timezone: null });
  });

  it('writes all-day events as dates, DTEND the day after the last', () => {
    const times = eventTimes(event('2030-10-26 00:00:00', '2030-10-28 23:59:59', 'Europe/Berlin', true), true);
    expect(times).toEqual({ start: new Date('2030-10-26T00:00:00Z'), end: new Date('2030-10-29T00:00:00Z'), timezone: null, zone: null, allDay: true });
    const kiritimati = eventTimes(event('2030-01-01 00:00:00', '2030-01-01 23:59:59', 'UTC+14', true), true);
    expect(kiritimati).toMatchObject({ start: new Date('2030-01-01T00:00:00Z'), end: new Date('2030-01-02T00:00:00Z') });
  });
});

describe('serializeCalendar', () => {
  const venue = makeVenueDoc({
    _id: 2,
    name: 'Harbour Hall',
    address: '1 Quay',
    city: 'Hamburg',
    zip: '20457',
    country: 'Germany',
    location: point(9.99, 53.54),
  });
  const organizer = makeOrganizerDoc({ _id: 3, name: 'Friends "of" the ^Harbour^', email: 'friends@example.org' });
  const category = makeCategoryDoc({ _id: 4, name: 'Rock, Pop; Jazz' });
  const doc = makeEventDoc({
    _id: 10,
    slug: 'harbour-lights',
    title: 'Harbour lights, again',
    description: '<p>Music by the <b>water</b>.</p><p>Second &amp; last</p>',
    startUtc: at('2030-06-10 19:00:00', 'Europe/Berlin'),
    endUtc: at('2030-06-10 21:30:00', 'Europe/Berlin'),
    timezone: 'Europe/Berlin',
    modifiedUtc: new Date('2026-05-01T12:00:00.750Z'),
  });
  const item: FeedEvent = { doc, relations: { venue, organizers: [organizer], categories: [{ doc: category, count: 1 }], tags: [] }, locked: false };

  it('writes the calendar properties, and folded CRLF lines', () => {
    const text = serializeCalendar([item], ctx, 'Events: Rock, Pop – calendar.example.org');
    const calendar = parseIcs(text);
    expect(calendar.property('version')).toBe('2.0');
    expect(calendar.property('prodid')).toBe('-//calendar-service//Calendar feeds//EN');
    expect(calendar.property('calscale')).toBe('GREGORIAN');
    expect(calendar.property('method')).toBe('PUBLISH');
    // Written as TEXT (escaped); ical.js leaves an X- property's value as written.
    expect(calendar.property('x-wr-calname')).toBe('Events: Rock\\, Pop – calendar.example.org');
    expect(unfold(text)).toContain('REFRESH-INTERVAL;VALUE=DURATION:PT1H\r\n');
    expect(unfold(text)).toContain('X-PUBLISHED-TTL:PT1H\r\n');
    expect(text.startsWith('BEGIN:VCALENDAR\r\n') && text.endsWith('END:VCALENDAR\r\n')).toBe(true);
    const { lines, crlf } = contentLines(text);
    expect(crlf).toBe(true);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(75);
    expect(calendar.timezones).toEqual(['Europe/Berlin']);
  });

  it('writes each property of an event', () => {
    const text = serializeCalendar([item], ctx, 'x');
    const [event] = parseIcs(text).events;
    expect(event!.uid).toBe('10@calendar.example.org');
    expect(event!.summary).toBe('Harbour lights, again');
    expect(event!.start).toMatchObject({ tzid: 'Europe/Berlin', raw: '20300610T190000', instant: doc.startUtc });
    expect(event!.end).toMatchObject({ tzid: 'Europe/Berlin', raw: '20300610T213000', instant: doc.endUtc });
    expect(event!.text('description')).toBe('Music by the water.\n\nSecond & last');
    expect(event!.text('location')).toBe('Harbour Hall, 1 Quay, Hamburg, 20457, Germany');
    expect(event!.text('geo')).toBe('[53.54,9.99]');
    expect(event!.values('categories')).toEqual(['Rock, Pop; Jazz']);
    expect(event!.text('url')).toBe('https://calendar.example.org/event/harbour-lights/');
    expect(event!.text('status')).toBe('CONFIRMED');
    expect(event!.text('class')).toBeNull();
    // DTSTAMP and LAST-MODIFIED: the last modification; SEQUENCE: its whole seconds since 2020.
    expect(event!.text('dtstamp')).toBe('2026-05-01T12:00:00Z');
    expect(event!.text('last-modified')).toBe('2026-05-01T12:00:00Z');
    expect(event!.text('sequence')).toBe(String(Math.floor((Date.parse('2026-05-01T12:00:00.750Z') - Date.UTC(2020, 0, 1)) / 1000)));
    // RFC 6868 quoting of the name, and the organizer's address.
    expect(unfold(text)).toContain(`\r\nORGANIZER;CN="Friends ^'of^' the ^^Harbour^^":mailto:friends@example.org\r\n`);
    expect(event!.parameter('organizer', 'cn')).toBe('Friends "of" the ^Harbour^');
  });

  it('gives an organizer without e-mail its website, else its page', () => {
    const address = (overrides: Parameters<typeof makeOrganizerDoc>[0]) => {
      const relations = { ...item.relations, organizers: [makeOrganizerDoc({ name: 'No mail', slug: 'no-mail', email: '', ...overrides })] };
      return parseIcs(serializeCalendar([{ ...item, relations }], ctx, 'x')).events[0]!.text('organizer');
    };
    expect(address({ website: 'https://friends.example.org/' })).toBe('https://friends.example.org/');
    expect(address({ website: 'not a url' })).toBe('https://calendar.example.org/organizer/no-mail/');
  });

  it('maps statuses, and marks private and protected events', () => {
    const statusOf = (status: EventDoc['status'], locked = false) => {
      const [event] = parseIcs(serializeCalendar([{ ...item, doc: { ...doc, status }, locked }], ctx, 'x')).events;
      return [event!.text('status'), event!.text('class')];
    };
    expect(statusOf('publish')).toEqual(['CONFIRMED', null]);
    expect(statusOf('private')).toEqual(['CONFIRMED', 'PRIVATE']);
    expect(statusOf('draft')).toEqual(['TENTATIVE', null]);
    expect(statusOf('pending')).toEqual(['TENTATIVE', null]);
    expect(statusOf('future')).toEqual(['TENTATIVE', null]);
    expect(statusOf('trash')).toEqual(['CANCELLED', null]);
    expect(statusOf('publish', true)).toEqual(['CONFIRMED', 'CONFIDENTIAL']);
  });

  it('keeps of a protected event what the list keeps: no description, place, organizer, categories, nor all-day', () => {
    const allDay = { ...doc, allDay: true, startUtc: at('2030-06-10 00:00:00', 'Europe/Berlin'), endUtc: at('2030-06-10 23:59:59', 'Europe/Berlin') };
    const [event] = parseIcs(serializeCalendar([{ ...item, doc: allDay, locked: true }], ctx, 'x')).events;
    for (const name of ['description', 'location', 'geo', 'organizer', 'categories']) expect(event!.text(name), name).toBeNull();
    expect(event!.summary).toBe(doc.title);
    expect(event!.start).toMatchObject({ date: null, instant: allDay.startUtc });
    expect(event!.end).toMatchObject({ date: null, instant: allDay.endUtc });
  });

  it('writes events in the order given, each zone’s VTIMEZONE once, and no VTIMEZONE for UTC times and dates', () => {
    const zoned = (id: number, timezone: string, allDay = false): FeedEvent => ({
      ...item,
      doc: { ...doc, _id: id, timezone, allDay, startUtc: at('2030-06-10 19:00:00', timezone), endUtc: at('2030-06-10 21:00:00', timezone) },
    });
    const calendar = parseIcs(
      serializeCalendar(
        [zoned(1, 'Asia/Kolkata'), zoned(2, 'UTC+5'), zoned(3, 'Europe/Berlin'), zoned(4, 'Asia/Kolkata'), zoned(5, 'America/Chicago', true)],
        ctx,
        'x',
      ),
    );
    expect(calendar.events.map((e) => e.uid)).toEqual([1, 2, 3, 4, 5].map((id) => `${id}@calendar.example.org`));
    expect(calendar.timezones).toEqual(['Asia/Kolkata', 'Europe/Berlin']);
    expect(calendar.events.map((e) => e.start.tzid)).toEqual(['Asia/Kolkata', null, 'Europe/Berlin', 'Asia/Kolkata', null]);
    expect(calendar.events[4]!.start.date).toBe('2030-06-10');
    expect(calendar.events[4]!.end.date).toBe('2030-06-11');
  });

  it('is the same text for the same documents (no clock in it)', () => {
    const first = serializeCalendar([item], ctx, 'x');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2031-01-01T00:00:00Z'));
    try {
      expect(serializeCalendar([item], ctx, 'x')).toBe(first);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('feedName', () => {
  it('names the filters, or the site’s events, in the language of the root', () => {
    expect(feedName('en', 'calendar.example.org', [])).toBe('Events – calendar.example.org');
    expect(feedName('de', 'calendar.example.org', ['Jazz', 'Harbour Hall'])).toBe('Veranstaltungen: Jazz, Harbour Hall – calendar.example.org');
    expect(feedName('fr', 'calendar.example.org', [])).toBe('Événements – calendar.example.org');
  });
});
