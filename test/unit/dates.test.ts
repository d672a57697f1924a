/*
 * src/lib/dates/ must not depend on the process's time zone (locutus' strtotime computes in it).
 * Run this file under several TZ values, including ones with DST and with half-hour DST steps:
 *
 *   for tz in UTC America/New_York Australia/Lord_Howe Asia/Kolkata; do TZ=$tz npx vitest run test/unit/dates.test.ts || break; done
 *
 * Every `now` and expectation below is an absolute instant, never a process-local Date.
 */
import { describe, expect, it } from 'vitest';
import { DateTime, FixedOffsetZone, IANAZone } from 'luxon';
import {
  allDayBounds,
  dateDetails,
  endOfLocalDay,
  formatWallClock,
  isoWithOffset,
  isValidTimezone,
  parseDateInput,
  startOfLocalDay,
  timezoneAbbr,
  wallClockToInstant,
  zoneFor,
} from '../../src/lib/dates/index.js';
import { formattedOffset, offsetFormat } from '../../src/lib/dates/zones.js';
import { random } from '../helpers/random.js';

const OriginalDate = globalThis.Date;
const at = (iso: string): Date => new Date(iso);

// Saturday 2026-03-07, 10:00 in New York (EST) — the day before New York's spring-forward night.
const SAT_BEFORE_NY_DST = at('2026-03-07T15:00:00Z');
// Wednesday 2026-07-15, noon UTC: a Wednesday in New York, Juneau, Sydney and Reykjavik alike.
const WEDNESDAY_NOON_UTC = at('2026-07-15T12:00:00Z');
// 2026-07-15 20:00 UTC: still Wednesday in New York, already Thursday 06:00 in Sydney.
const WEDNESDAY_EVENING_UTC = at('2026-07-15T20:00:00Z');
// Saturday 2026-01-10, noon UTC (Darwin 21:30, Hong Kong 20:00, Rome 13:00, New York 07:00).
const SATURDAY_JANUARY = at('2026-01-10T12:00:00Z');
// Saturday 2026-03-28, 13:00 in Berlin (CET), the day before Berlin's spring-forward night.
const SAT_BEFORE_BERLIN_DST = at('2026-03-28T12:00:00Z');
// Saturday 2026-10-31, 12:00 in New York (EDT), the day before New York's fall-back night.
const SAT_BEFORE_NY_FALL_BACK = at('2026-10-31T16:00:00Z');

describe('parseDateInput', () => {
  describe('accepts what the reference `is_time` accepts, as wall clocks in the given zone', () => {
    it.each([
      // [input, timezone, now, expected wall clock in that zone, expected instant]
      ['2018-01-01', 'America/New_York', SAT_BEFORE_NY_DST, '2018-01-01 00:00:00', '2018-01-01T05:00:00Z'],
      ['2018-01-01 16:00:00', 'America/New_York', SAT_BEFORE_NY_DST, '2018-01-01 16:00:00', '2018-01-01T21:00:00Z'],
      ['2018-01-01 4pm', 'America/New_York', SAT_BEFORE_NY_DST, '2018-01-01 16:00:00', '2018-01-01T21:00:00Z'],
      ['tomorrow 9am', 'America/New_York', SAT_BEFORE_NY_DST, '2026-03-08 09:00:00', '2026-03-08T13:00:00Z'],
      ['tomorrow 00:00:00', 'America/New_York', SAT_BEFORE_NY_DST, '2026-03-08 00:00:00', '2026-03-08T05:00:00Z'],
      ['+5 days 11am', 'America/New_York', SAT_BEFORE_NY_DST, '2026-03-12 11:00:00', '2026-03-12T15:00:00Z'],
      ['next wednesday 4pm', 'America/New_York', SAT_BEFORE_NY_DST, '2026-03-11 16:00:00', '2026-03-11T20:00:00Z'],
      ['yesterday 23:59', 'America/New_York', SAT_BEFORE_NY_DST, '2026-03-06 23:59:00', '2026-03-07T04:59:00Z'],
      ['+24 months', 'America/New_York', SAT_BEFORE_NY_DST, '2028-03-07 10:00:00', '2028-03-07T15:00:00Z'],
      ['now', 'America/New_York', SAT_BEFORE_NY_DST, '2026-03-07 10:00:00', '2026-03-07T15:00:00Z'],
      ['  Tomorrow 9AM  ', 'America/New_York', SAT_BEFORE_NY_DST, '2026-03-08 09:00:00', '2026-03-08T13:00:00Z'],
      ['2018-01-01', 'Asia/Kolkata', SAT_BEFORE_NY_DST, '2018-01-01 00:00:00', '2017-12-31T18:30:00Z'],
      ['2018-01-01', 'UTC+5:30', SAT_BEFORE_NY_DST, '2018-01-01 00:00:00', '2017-12-31T18:30:00Z'],
      ['2018-01-01 12:00:00', 'UTC-3.5', SAT_BEFORE_NY_DST, '2018-01-01 12:00:00', '2018-01-01T15:30:00Z'],
      ['2018-01-01T16:00:00', 'Europe/Rome', SAT_BEFORE_NY_DST, '2018-01-01 16:00:00', '2018-01-01T15:00:00Z'],
      ['January 5 2017 2:23pm', 'America/New_York', SAT_BEFORE_NY_DST, '2017-01-05 14:23:00', '2017-01-05T19:23:00Z'],
      ['9999-12-31 12:00:00', 'UTC', SAT_BEFORE_NY_DST, '9999-12-31 12:00:00', '9999-12-31T12:00:00Z'],
    ])('%j in %s', (input, timezone, now, wall, instant) => {
      const result = parseDateInput(input, { timezone, now });
      expect(result?.toISOString()).toBe(at(instant).toISOString());
      expect(formatWallClock(result as Date, timezone)).toBe(wall);
    });
  });

  describe('weekday phrases follow PHP (relative to the zone’s calendar)', () => {
    it.each([
      // Saturday 2026-03-07 in New York.
      ['next saturday', '2026-03-14 00:00:00'], // PHP: the *following* Saturday, never today
      ['saturday', '2026-03-07 00:00:00'], // today when today is that weekday
      ['this saturday', '2026-03-07 00:00:00'],
      ['last saturday', '2026-02-28 00:00:00'],
      ['next sunday', '2026-03-08 00:00:00'],
      ['next friday 9am', '2026-03-13 09:00:00'],
      ['second saturday', '2026-03-21 00:00:00'],
      ['next month', '2026-04-07 10:00:00'],
    ])('%j', (input, wall) => {
      const result = parseDateInput(input, { timezone: 'America/New_York', now: SAT_BEFORE_NY_DST });
      expect(result).not.toBeNull();
      expect(formatWallClock(result as Date, 'America/New_York')).toBe(wall);
    });
  });

  describe('explicit offsets, zone names and @timestamps are absolute instants', () => {
    it.each([
      ['2018-01-01T16:00:00+02:00', '2018-01-01T14:00:00Z'],
      ['2018-01-01T16:00:00-0530', '2018-01-01T21:30:00Z'],
      ['2018-01-01T16:00:00Z', '2018-01-01T16:00:00Z'],
      ['2018-01-01T16:00:00.250Z', '2018-01-01T16:00:00Z'],
      ['2018-01-01 16:00:00 UTC', '2018-01-01T16:00:00Z'],
      ['2018-01-01 16:00:00 GMT', '2018-01-01T16:00:00Z'],
      ['2018-01-01 16:00:00 EST', '2018-01-01T21:00:00Z'],
      ['Sat, 21 Nov 2026 04:18:18 GMT', '2026-11-21T04:18:18Z'],
      ['@1700000000', '2023-11-14T22:13:20Z'],
    ])('%j', (input, instant) => {
      for (const timezone of ['UTC', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'UTC+5']) {
        expect(parseDateInput(input, { timezone, now: SAT_BEFORE_NY_DST })?.toISOString()).toBe(at(instant).toISOString());
      }
    });
  });

  describe('numbers and numeric strings are Unix timestamps (seconds)', () => {
    it.each([
      [1700000000, '2023-11-14T22:13:20Z'],
      ['1700000000', '2023-11-14T22:13:20Z'],
      [' 1700000000 ', '2023-11-14T22:13:20Z'],
      [1700000000.9, '2023-11-14T22:13:20Z'],
      [0, '1970-01-01T00:00:00Z'],
      ['2018', '1970-01-01T00:33:38Z'],
    ])('%j', (input, instant) => {
      expect(parseDateInput(input, { timezone: 'America/New_York', now: SAT_BEFORE_NY_DST })?.toISOString()).toBe(at(instant).toISOString());
    });
  });

  describe('rejects what PHP strtotime rejects, and absurd years', () => {
    it.each([
      ['foo'],
      ['"before my birthday"'],
      ['not a strtotime parsable string'],
      [''],
      ['   '],
      ['10000-01-01'],
      ['10000-01-01T00:00:00Z'],
      ['+10000 years'],
      ['99999999999999'],
      [Number.NaN],
      [Number.POSITIVE_INFINITY],
      ['x'.repeat(300)],
    ])('%j', (input) => {
      expect(parseDateInput(input, { timezone: 'UTC', now: SAT_BEFORE_NY_DST })).toBeNull();
    });
  });

  it('throws on an invalid timezone (callers validate it first)', () => {
    expect(() => parseDateInput('tomorrow', { timezone: 'Mars/Olympus' })).toThrow(RangeError);
  });

  it('defaults `now` to the current time', () => {
    const before = Date.now();
    const result = parseDateInput('now', { timezone: 'Asia/Kolkata' });
    expect(result).not.toBeNull();
    expect((result as Date).getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect((result as Date).getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('leaves the global Date untouched, also after rejected input', () => {
    parseDateInput('tomorrow 9am', { timezone: 'America/New_York', now: SAT_BEFORE_NY_DST });
    parseDateInput('foo', { timezone: 'America/New_York', now: SAT_BEFORE_NY_DST });
    expect(globalThis.Date).toBe(OriginalDate);
    expect(new Date(0).getTimezoneOffset()).toBe(new OriginalDate(0).getTimezoneOffset());
  });

  describe('DST transitions (gap → moved forward by the gap; overlap → first occurrence)', () => {
    it.each([
      // America/New_York 2026-03-08: 02:00 EST jumps to 03:00 EDT.
      ['2026-03-08 01:59:59', 'America/New_York', SAT_BEFORE_NY_DST, '2026-03-08T06:59:59Z', '2026-03-08 01:59:59'],
      ['2026-03-08 02:30:00', 'America/New_York', SAT_BEFORE_NY_DST, '2026-03-08T07:30:00Z', '2026-03-08 03:30:00'],
      ['2026-03-08 03:00:00', 'America/New_York', SAT_BEFORE_NY_DST, '2026-03-08T07:00:00Z', '2026-03-08 03:00:00'],
      ['tomorrow 2:30am', 'America/New_York', SAT_BEFORE_NY_DST, '2026-03-08T07:30:00Z', '2026-03-08 03:30:00'],
      ['+1 day', 'America/New_York', SAT_BEFORE_NY_DST, '2026-03-08T14:00:00Z', '2026-03-08 10:00:00'],
      // America/New_York 2026-11-01: 02:00 EDT falls back to 01:00 EST.
      ['2026-11-01 00:30:00', 'America/New_York', SAT_BEFORE_NY_FALL_BACK, '2026-11-01T04:30:00Z', '2026-11-01 00:30:00'],
      ['2026-11-01 01:30:00', 'America/New_York', SAT_BEFORE_NY_FALL_BACK, '2026-11-01T05:30:00Z', '2026-11-01 01:30:00'],
      ['tomorrow 01:30', 'America/New_York', SAT_BEFORE_NY_FALL_BACK, '2026-11-01T05:30:00Z', '2026-11-01 01:30:00'],
      ['2026-11-01 02:00:00', 'America/New_York', SAT_BEFORE_NY_FALL_BACK, '2026-11-01T07:00:00Z', '2026-11-01 02:00:00'],
      ['tomorrow 9am', 'America/New_York', SAT_BEFORE_NY_FALL_BACK, '2026-11-01T14:00:00Z', '2026-11-01 09:00:00'],
      ['+1 day', 'America/New_York', SAT_BEFORE_NY_FALL_BACK, '2026-11-01T17:00:00Z', '2026-11-01 12:00:00'],
      // Europe/Berlin 2026-03-29: 02:00 CET jumps to 03:00 CEST.
      ['2026-03-29 01:59:59', 'Europe/Berlin', SAT_BEFORE_BERLIN_DST, '2026-03-29T00:59:59Z', '2026-03-29 01:59:59'],
      ['2026-03-29 02:30:00', 'Europe/Berlin', SAT_BEFORE_BERLIN_DST, '2026-03-29T01:30:00Z', '2026-03-29 03:30:00'],
      ['tomorrow 02:30', 'Europe/Berlin', SAT_BEFORE_BERLIN_DST, '2026-03-29T01:30:00Z', '2026-03-29 03:30:00'],
      ['tomorrow 9am', 'Europe/Berlin', SAT_BEFORE_BERLIN_DST, '2026-03-29T07:00:00Z', '2026-03-29 09:00:00'],
      // Europe/Berlin 2026-10-25: 03:00 CEST falls back to 02:00 CET.
      ['2026-10-25 02:30:00', 'Europe/Berlin', SAT_BEFORE_BERLIN_DST, '2026-10-25T00:30:00Z', '2026-10-25 02:30:00'],
      // Australia/Lord_Howe 2026-10-04: 02:00 jumps to 02:30 (a half-hour step).
      ['2026-10-04 02:15:00', 'Australia/Lord_Howe', SAT_BEFORE_NY_DST, '2026-10-03T15:45:00Z', '2026-10-04 02:45:00'],
    ])('%j in %s', (input, timezone, now, instant, wall) => {
      const result = parseDateInput(input, { timezone, now });
      expect(result?.toISOString()).toBe(at(instant).toISOString());
      expect(formatWallClock(result as Date, timezone)).toBe(wall);
    });
  });

  describe('EventInsertionCest L73: natural-language dates evaluated in the site timezone', () => {
    it.each([
      // [timezone, now, input, wall clock, instant, abbreviation]
      ['America/New_York', WEDNESDAY_NOON_UTC, 'tomorrow 9am', '2026-07-16 09:00:00', '2026-07-16T13:00:00Z', 'EDT'],
      ['America/New_York', WEDNESDAY_NOON_UTC, 'tomorrow 11am', '2026-07-16 11:00:00', '2026-07-16T15:00:00Z', 'EDT'],
      ['America/New_York', WEDNESDAY_NOON_UTC, 'next wednesday 4pm', '2026-07-22 16:00:00', '2026-07-22T20:00:00Z', 'EDT'],
      ['America/New_York', WEDNESDAY_NOON_UTC, '+5 days 11am', '2026-07-20 11:00:00', '2026-07-20T15:00:00Z', 'EDT'],
      ['America/New_York', WEDNESDAY_EVENING_UTC, 'tomorrow 9am', '2026-07-16 09:00:00', '2026-07-16T13:00:00Z', 'EDT'],
      ['America/Juneau', WEDNESDAY_NOON_UTC, 'tomorrow 9am', '2026-07-16 09:00:00', '2026-07-16T17:00:00Z', 'AKDT'],
      ['America/Juneau', WEDNESDAY_NOON_UTC, 'next wednesday 4pm', '2026-07-22 16:00:00', '2026-07-23T00:00:00Z', 'AKDT'],
      ['America/Juneau', WEDNESDAY_NOON_UTC, '+5 days 11am', '2026-07-20 11:00:00', '2026-07-20T19:00:00Z', 'AKDT'],
      ['Australia/Sydney', WEDNESDAY_NOON_UTC, 'tomorrow 9am', '2026-07-16 09:00:00', '2026-07-15T23:00:00Z', 'AEST'],
      ['Australia/Sydney', WEDNESDAY_NOON_UTC, 'next wednesday 4pm', '2026-07-22 16:00:00', '2026-07-22T06:00:00Z', 'AEST'],
      ['Australia/Sydney', WEDNESDAY_NOON_UTC, '+5 days 11am', '2026-07-20 11:00:00', '2026-07-20T01:00:00Z', 'AEST'],
      ['Australia/Sydney', WEDNESDAY_EVENING_UTC, 'tomorrow 9am', '2026-07-17 09:00:00', '2026-07-16T23:00:00Z', 'AEST'],
      ['Australia/Sydney', WEDNESDAY_EVENING_UTC, 'next wednesday 4pm', '2026-07-22 16:00:00', '2026-07-22T06:00:00Z', 'AEST'],
      ['Atlantic/Reykjavik', WEDNESDAY_NOON_UTC, 'tomorrow 9am', '2026-07-16 09:00:00', '2026-07-16T09:00:00Z', 'GMT'],
      ['Atlantic/Reykjavik', WEDNESDAY_NOON_UTC, 'next wednesday 4pm', '2026-07-22 16:00:00', '2026-07-22T16:00:00Z', 'GMT'],
      ['Atlantic/Reykjavik', WEDNESDAY_NOON_UTC, '+5 days 11am', '2026-07-20 11:00:00', '2026-07-20T11:00:00Z', 'GMT'],
    ])('%s, now %o: %j', (timezone, now, input, wall, instant, abbr) => {
      const result = parseDateInput(input, { timezone, now });
      expect(result?.toISOString()).toBe(at(instant).toISOString());
      expect(formatWallClock(result as Date, timezone)).toBe(wall);
      expect(formatWallClock(result as Date, 'UTC')).toBe(at(instant).toISOString().slice(0, 19).replace('T', ' '));
      expect(timezoneAbbr(timezone, result as Date)).toBe(abbr);
    });
  });

  describe('EventInsertionCest L110 / EventUpdateCest L166: the event timezone wins over the site timezone (Darwin)', () => {
    it.each([
      ['Australia/Darwin', 'tomorrow 9am', '2026-01-11 09:00:00', '2026-01-10T23:30:00Z', 'ACST'],
      ['America/New_York', 'tomorrow 9am', '2026-01-11 09:00:00', '2026-01-11T14:00:00Z', 'EST'],
      ['UTC', 'tomorrow 9am', '2026-01-11 09:00:00', '2026-01-11T09:00:00Z', 'UTC'],
      ['Asia/Hong_Kong', 'tomorrow 9am', '2026-01-11 09:00:00', '2026-01-11T01:00:00Z', 'HKT'],
      ['Europe/Rome', 'tomorrow 9am', '2026-01-11 09:00:00', '2026-01-11T08:00:00Z', 'CET'],
      ['Europe/Paris', 'tomorrow 9am', '2026-01-11 09:00:00', '2026-01-11T08:00:00Z', 'CET'],
      ['Australia/Sydney', 'tomorrow 9am', '2026-01-11 09:00:00', '2026-01-10T22:00:00Z', 'AEDT'],
      ['America/New_York', 'next wednesday 4pm', '2026-01-14 16:00:00', '2026-01-14T21:00:00Z', 'EST'],
      ['UTC', 'next wednesday 4pm', '2026-01-14 16:00:00', '2026-01-14T16:00:00Z', 'UTC'],
      ['Asia/Hong_Kong', 'next wednesday 4pm', '2026-01-14 16:00:00', '2026-01-14T08:00:00Z', 'HKT'],
      ['Europe/Rome', 'next wednesday 4pm', '2026-01-14 16:00:00', '2026-01-14T15:00:00Z', 'CET'],
    ])('%s: %j', (timezone, input, wall, instant, abbr) => {
      const result = parseDateInput(input, { timezone, now: SATURDAY_JANUARY });
      expect(result?.toISOString()).toBe(at(instant).toISOString());
      expect(formatWallClock(result as Date, timezone)).toBe(wall);
      expect(timezoneAbbr(timezone, result as Date)).toBe(abbr);
    });
  });
});

describe('isValidTimezone / zoneFor', () => {
  it.each([
    ['America/New_York', true],
    ['Europe/Rome', true],
    ['Australia/Lord_Howe', true],
    ['UTC', true],
    ['UTC+0', true],
    ['UTC+5', true],
    ['UTC-3.5', true],
    ['UTC+5.75', true],
    ['UTC+5:30', true],
    ['UTC+14', true],
    ['', false],
    ['Mars/Olympus', false],
    ['UTC+15', false],
    ['UTC+5:60', false],
    ['UTC+5.33', false],
    ['UTC+', false],
    ['UTC5', false],
    ['utc+5', false],
    ['+05:00', false],
  ])('%j → %s', (tz, valid) => {
    expect(isValidTimezone(tz)).toBe(valid);
  });

  it.each([
    ['UTC', 0],
    ['UTC+0', 0],
    ['UTC+5', 300],
    ['UTC-3.5', -210],
    ['UTC+5.75', 345],
    ['UTC+5:30', 330],
  ])('%j is a fixed offset of %i minutes', (tz, minutes) => {
    const zone = zoneFor(tz);
    expect(zone).toBeInstanceOf(FixedOffsetZone);
    expect(zone.offset(Date.UTC(2026, 0, 1))).toBe(minutes);
  });

  it('gives an IANA zone for IANA names and throws for invalid ones', () => {
    expect(zoneFor('Europe/Rome')).toBeInstanceOf(IANAZone);
    expect(() => zoneFor('Mars/Olympus')).toThrow(RangeError);
    expect(() => zoneFor('')).toThrow(RangeError);
  });
});

describe('wall clocks', () => {
  it.each([
    ['2017-01-05T19:23:36Z', 'America/New_York', '2017-01-05 14:23:36'],
    ['2017-07-05T19:23:36Z', 'America/New_York', '2017-07-05 15:23:36'],
    ['2017-01-05T19:23:36Z', 'UTC', '2017-01-05 19:23:36'],
    ['2017-01-05T19:23:36Z', 'Asia/Kolkata', '2017-01-06 00:53:36'],
    ['2017-01-05T19:23:36Z', 'UTC-3.5', '2017-01-05 15:53:36'],
    ['2026-03-08T07:00:00Z', 'America/New_York', '2026-03-08 03:00:00'],
    ['2026-11-01T05:30:00Z', 'America/New_York', '2026-11-01 01:30:00'],
    ['2026-11-01T06:30:00Z', 'America/New_York', '2026-11-01 01:30:00'],
  ])('formatWallClock(%s, %s) = %s', (instant, timezone, wall) => {
    expect(formatWallClock(at(instant), timezone)).toBe(wall);
  });

  it.each([
    ['2017-01-05 14:23:36', 'America/New_York', '2017-01-05T19:23:36Z'],
    ['2017-01-05T14:23:36', 'America/New_York', '2017-01-05T19:23:36Z'],
    ['2017-01-06 00:53:36', 'Asia/Kolkata', '2017-01-05T19:23:36Z'],
    ['2017-01-05 15:53:36', 'UTC-3.5', '2017-01-05T19:23:36Z'],
    ['0099-06-01 00:00:00', 'UTC', '0099-06-01T00:00:00Z'],
    // DST gap: moved forward by the gap's length.
    ['2026-03-08 02:00:00', 'America/New_York', '2026-03-08T07:00:00Z'],
    ['2026-03-08 02:30:00', 'America/New_York', '2026-03-08T07:30:00Z'],
    ['2026-03-29 02:30:00', 'Europe/Berlin', '2026-03-29T01:30:00Z'],
    // DST overlap: the first occurrence.
    ['2026-11-01 01:30:00', 'America/New_York', '2026-11-01T05:30:00Z'],
    ['2026-10-25 02:30:00', 'Europe/Berlin', '2026-10-25T00:30:00Z'],
    ['2026-04-05 01:45:00', 'Australia/Lord_Howe', '2026-04-04T14:45:00Z'],
  ])('wallClockToInstant(%s, %s) = %s', (wall, timezone, instant) => {
    expect(wallClockToInstant(wall, timezone).toISOString()).toBe(new Date(instant).toISOString());
  });

  it.each([['2026-13-01 00:00:00'], ['2026-01-01'], ['2026-01-01 24:00:00'], ['garbage']])('wallClockToInstant rejects %j', (wall) => {
    expect(() => wallClockToInstant(wall, 'UTC')).toThrow(RangeError);
  });

  it.each([
    ['2017-01-05 14:23:36', { year: '2017', month: '01', day: '05', hour: '14', minutes: '23', seconds: '36' }],
    ['2026-03-08 00:00:00', { year: '2026', month: '03', day: '08', hour: '00', minutes: '00', seconds: '00' }],
  ])('dateDetails(%s)', (wall, details) => {
    expect(dateDetails(wall)).toStrictEqual(details);
  });

  it('dateDetails rejects a malformed wall clock', () => {
    expect(() => dateDetails('2017-1-5 14:23')).toThrow(RangeError);
  });
});

describe('timezoneAbbr', () => {
  it.each([
    ['America/New_York', '2026-01-15T12:00:00Z', 'EST'],
    ['America/New_York', '2026-07-15T12:00:00Z', 'EDT'],
    ['America/New_York', '2026-03-08T06:59:59Z', 'EST'],
    ['America/New_York', '2026-03-08T07:00:00Z', 'EDT'],
    ['america/new_york', '2026-01-15T12:00:00Z', 'EST'],
    ['America/Juneau', '2026-01-15T12:00:00Z', 'AKST'],
    ['Europe/Rome', '2026-01-15T12:00:00Z', 'CET'],
    ['Europe/Rome', '2026-07-15T12:00:00Z', 'CEST'],
    ['Europe/Berlin', '2026-03-29T00:59:59Z', 'CET'],
    ['Europe/Berlin', '2026-03-29T01:00:00Z', 'CEST'],
    ['Europe/London', '2026-01-15T12:00:00Z', 'GMT'],
    ['Europe/London', '2026-07-15T12:00:00Z', 'BST'],
    ['Europe/Dublin', '2026-07-15T12:00:00Z', 'IST'],
    ['Europe/Moscow', '2026-07-15T12:00:00Z', 'MSK'],
    ['Australia/Sydney', '2026-01-15T12:00:00Z', 'AEDT'],
    ['Australia/Sydney', '2026-07-15T12:00:00Z', 'AEST'],
    ['Australia/Darwin', '2026-07-15T12:00:00Z', 'ACST'],
    ['Australia/Lord_Howe', '2026-01-15T12:00:00Z', '+11'],
    ['Australia/Lord_Howe', '2026-07-15T12:00:00Z', '+1030'],
    ['Asia/Hong_Kong', '2026-07-15T12:00:00Z', 'HKT'],
    ['Asia/Kolkata', '2026-07-15T12:00:00Z', 'IST'],
    ['Asia/Tokyo', '2026-07-15T12:00:00Z', 'JST'],
    ['Asia/Dubai', '2026-07-15T12:00:00Z', '+04'],
    ['Asia/Kathmandu', '2026-07-15T12:00:00Z', '+0545'],
    ['America/Sao_Paulo', '2026-07-15T12:00:00Z', '-03'],
    ['Atlantic/Reykjavik', '2026-07-15T12:00:00Z', 'GMT'],
    ['Africa/Johannesburg', '2026-07-15T12:00:00Z', 'SAST'],
    ['Etc/GMT+5', '2026-07-15T12:00:00Z', '-05'],
    ['UTC', '2026-07-15T12:00:00Z', 'UTC'],
    ['UTC+5', '2026-07-15T12:00:00Z', 'UTC+5'],
    ['UTC-3.5', '2026-07-15T12:00:00Z', 'UTC-3.5'],
    ['UTC+0', '2026-07-15T12:00:00Z', 'UTC+0'],
  ])('%s at %s → %s', (timezone, instant, abbr) => {
    expect(timezoneAbbr(timezone, at(instant))).toBe(abbr);
  });
});

describe('day bounds', () => {
  it.each([
    // [timezone, start, end, expected start, expected end]
    ['America/New_York', '2026-03-07T15:00:00Z', '2026-03-12T15:00:00Z', '2026-03-07T05:00:00Z', '2026-03-13T03:59:59Z'],
    ['America/New_York', '2026-03-08T13:00:00Z', '2026-03-08T15:00:00Z', '2026-03-08T05:00:00Z', '2026-03-09T03:59:59Z'],
    ['Australia/Sydney', '2026-07-15T23:00:00Z', '2026-07-15T23:00:00Z', '2026-07-15T14:00:00Z', '2026-07-16T13:59:59Z'],
    ['UTC', '2026-07-15T23:00:00Z', '2026-07-16T01:00:00Z', '2026-07-15T00:00:00Z', '2026-07-16T23:59:59Z'],
    ['UTC+5:30', '2026-07-15T20:00:00Z', '2026-07-15T20:00:00Z', '2026-07-15T18:30:00Z', '2026-07-16T18:29:59Z'],
  ])('allDayBounds in %s', (timezone, start, end, expectedStart, expectedEnd) => {
    const bounds = allDayBounds(at(start), at(end), timezone);
    expect(bounds.start.toISOString()).toBe(at(expectedStart).toISOString());
    expect(bounds.end.toISOString()).toBe(at(expectedEnd).toISOString());
    expect(formatWallClock(bounds.start, timezone).slice(11)).toBe('00:00:00');
    expect(formatWallClock(bounds.end, timezone).slice(11)).toBe('23:59:59');
  });

  it.each([
    ['America/New_York', '2026-11-01T16:00:00Z', '2026-11-01T04:00:00Z', '2026-11-02T04:59:59Z'],
    ['Asia/Kolkata', '2026-07-15T20:00:00Z', '2026-07-15T18:30:00Z', '2026-07-16T18:29:59Z'],
    // Havana springs forward at midnight: the day starts at 01:00.
    ['America/Havana', '2026-03-08T12:00:00Z', '2026-03-08T05:00:00Z', '2026-03-09T03:59:59Z'],
  ])('startOfLocalDay / endOfLocalDay in %s', (timezone, instant, start, end) => {
    expect(startOfLocalDay(at(instant), timezone).toISOString()).toBe(at(start).toISOString());
    expect(endOfLocalDay(at(instant), timezone).toISOString()).toBe(at(end).toISOString());
  });
});

describe('isoWithOffset', () => {
  it.each([
    ['2017-01-05T19:23:36Z', 'America/New_York', '2017-01-05T14:23:36-05:00'],
    ['2017-07-05T19:23:36Z', 'America/New_York', '2017-07-05T15:23:36-04:00'],
    ['2017-01-05T19:23:36Z', 'UTC', '2017-01-05T19:23:36+00:00'],
    ['2017-01-05T19:23:36Z', 'Asia/Kolkata', '2017-01-06T00:53:36+05:30'],
    ['2017-01-05T19:23:36Z', 'UTC-3.5', '2017-01-05T15:53:36-03:30'],
  ])('%s in %s → %s', (instant, timezone, iso) => {
    expect(isoWithOffset(at(instant), timezone)).toBe(iso);
  });
});

describe('memoised offsets agree with luxon', () => {
  // Zones with DST, half-hour and 45-minute offsets, a skipped day (Apia 2011-12-30), local mean time
  // before 1900 (offsets with seconds), and a fixed offset.
  const zones = ['America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Apia', 'America/Havana', 'Europe/Dublin', 'UTC+5:30'];
  const luxonIso = (ms: number, timezone: string): string => DateTime.fromMillis(ms, { zone: zoneFor(timezone) }).toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
  // A deterministic spread of instants from 1850 to 2100, plus every minute around transitions.
  const instants: number[] = [];
  let state = 12345;
  for (let i = 0; i < 3000; i++) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    instants.push(Date.UTC(1850, 0, 1) + Math.floor((state / 2 ** 31) * (Date.UTC(2100, 0, 1) - Date.UTC(1850, 0, 1))));
  }
  for (const transition of ['2026-03-08T07:00:00Z', '2026-11-01T06:00:00Z', '2026-03-29T01:00:00Z', '2011-12-30T10:00:00Z', '2026-04-05T15:00:00Z']) {
    for (let minute = -90; minute <= 90; minute++) instants.push(Date.parse(transition) + minute * 60_000);
  }

  it.each(zones)('formatWallClock and isoWithOffset in %s match luxon at every instant', (timezone) => {
    for (const ms of instants) {
      const iso = luxonIso(ms, timezone);
      expect(isoWithOffset(new Date(ms), timezone)).toBe(iso);
      expect(formatWallClock(new Date(ms), timezone)).toBe(iso.slice(0, 19).replace('T', ' '));
    }
  });

  it('abbreviations stay right on both sides of a transition, asked in any order', () => {
    const before = at('2026-03-08T06:59:59Z');
    const after = at('2026-03-08T07:00:00Z');
    expect(timezoneAbbr('America/New_York', after)).toBe('EDT');
    expect(timezoneAbbr('America/New_York', before)).toBe('EST');
    expect(timezoneAbbr('America/New_York', after)).toBe('EDT');
    expect(timezoneAbbr('America/New_York', at('2026-03-08T03:00:00Z'))).toBe('EST');
  });
});

describe('offsets read from a formatted wall clock', () => {
  it("equal luxon's in every zone this Node knows", () => {
    const next = random(7);
    const YEAR_MS = 365.2425 * 86_400_000;
    const SAMPLED = [
      'Europe/Berlin',
      'America/New_York',
      'America/Sao_Paulo',
      'America/St_Johns',
      'Australia/Sydney',
      'Australia/Lord_Howe',
      'Asia/Kolkata',
      'Pacific/Chatham',
      'Africa/Casablanca',
    ];
    const mismatches: string[] = [];
    let read = 0;
    for (const zone of Intl.supportedValuesOf('timeZone')) {
      const format = offsetFormat(zone);
      const luxon = IANAZone.create(zone);
      // Random instants from 1900 to 2200 (before 1970 too, at odd seconds); in the zones above, also
      // every quarter hour of the months with 2026's transitions.
      const instants = Array.from({ length: 60 }, () => Math.floor(Date.UTC(1900, 0, 1) + next() * 300 * YEAR_MS));
      if (SAMPLED.includes(zone)) {
        for (const month of [1, 2, 3, 8, 9, 10])
          for (let ms = Date.UTC(2026, month, 1); ms < Date.UTC(2026, month + 1, 1); ms += 15 * 60_000) instants.push(ms);
      }
      for (const ms of instants) {
        const offset = formattedOffset(format, ms);
        if (offset !== null) read++;
        if (offset !== luxon.offset(ms)) mismatches.push(`${zone} at ${new Date(ms).toISOString()}: ${offset} against ${luxon.offset(ms)}`);
      }
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    // The format is read, not handed back to luxon (which would agree with itself).
    expect(read).toBeGreaterThan(40_000);
  });
});
