/**
 * Event list compilation (src/query/events.ts):
 * paging, date bounds in inclusive and strict mode, the default window, `include`, every filter
 * clause, status, hide-from-listings and the sort — pure input → CompiledQuery tables.
 */
import { describe, expect, it } from 'vitest';
import {
  type CompileContext,
  type CompiledEventList,
  DATE_PARAMS,
  type DateParam,
  type EventListInput,
  type EventOrderBy,
  compileEventList,
  dateBounds,
  isStrict,
} from '../../src/query/events.js';
import { DEFAULT_PER_PAGE, resolvePaging, totalPages } from '../../src/query/paging.js';
import { statusFilter } from '../../src/query/status.js';
import { type Filter, type PostStatus, type Sort } from '../../src/storage/port.js';

/** Monday 2026-06-15 12:00 UTC. */
const NOW = new Date('2026-06-15T12:00:00.000Z');
const CTX: CompileContext = { now: NOW, siteTimezone: 'UTC', perPageMax: 50 };

const at = (iso: string): Date => new Date(iso);

function input(overrides: Partial<EventListInput> = {}): EventListInput {
  return { dates: {}, statuses: ['publish'], ...overrides };
}

function compile(overrides: Partial<EventListInput> = {}, ctx: Partial<CompileContext> = {}): CompiledEventList {
  return compileEventList(input(overrides), { ...CTX, ...ctx });
}

/** The bounds as ISO strings (easier to read in failures than Dates). */
function boundsOf(overrides: Partial<EventListInput>, ctx: Partial<CompileContext> = {}): Partial<Record<DateParam, string>> {
  const { bounds } = dateBounds(input(overrides), { ...CTX, ...ctx });
  return Object.fromEntries(Object.entries(bounds).map(([k, v]) => [k, v.toISOString()]));
}

function clausesOf(result: CompiledEventList): Filter[] {
  const { filter } = result.query;
  expect(Object.keys(filter)).toEqual(['$and']);
  return filter.$and as Filter[];
}

/** The date clauses of a compiled query: those on startUtc or endUtc. */
function dateClausesOf(result: CompiledEventList): Filter[] {
  return clausesOf(result).filter((c) => 'startUtc' in c || 'endUtc' in c);
}

// The default window at NOW in UTC: 00:00 yesterday, 23:59:59 of the day 24 months ahead.
const DEFAULT_START = '2026-06-14T00:00:00.000Z';
const DEFAULT_END = '2028-06-15T23:59:59.000Z';

describe('paging', () => {
  it.each<[string, Partial<EventListInput>, number, { page: number; perPage: number; skip: number }]>([
    ['defaults: page 1, 10 per page', {}, 50, { page: 1, perPage: 10, skip: 0 }],
    ['page 2 of the default size', { page: 2 }, 50, { page: 2, perPage: 10, skip: 10 }],
    ['an explicit per_page', { perPage: 3 }, 50, { page: 1, perPage: 3, skip: 0 }],
    ['page 3 of 7', { page: 3, perPage: 7 }, 50, { page: 3, perPage: 7, skip: 14 }],
    ['per_page at the maximum', { perPage: 50 }, 50, { page: 1, perPage: 50, skip: 0 }],
    ['per_page above the maximum is clamped', { perPage: 100 }, 50, { page: 1, perPage: 50, skip: 0 }],
    ['the clamp applies before the skip', { page: 2, perPage: 100 }, 50, { page: 2, perPage: 50, skip: 50 }],
    ['the clamp also applies to the default', {}, 5, { page: 1, perPage: 5, skip: 0 }],
    ['a configured maximum', { page: 4, perPage: 30 }, 20, { page: 4, perPage: 20, skip: 60 }],
  ])('%s', (_label, overrides, perPageMax, expected) => {
    const result = compile(overrides, { perPageMax });
    expect(result.paging).toEqual(expected);
    expect(result.query.skip).toBe(expected.skip);
    expect(result.query.limit).toBe(expected.perPage);
  });

  it('defaults to 10 per page', () => {
    expect(DEFAULT_PER_PAGE).toBe(10);
    expect(resolvePaging(undefined, undefined, 50)).toEqual({ page: 1, perPage: 10, skip: 0 });
  });

  it.each([
    [0, 10, 0],
    [1, 10, 1],
    [10, 10, 1],
    [11, 10, 2],
    [51, 50, 2],
    [9, 3, 3],
  ])('totalPages(%i, %i) = %i', (total, perPage, expected) => {
    expect(totalPages(total, perPage)).toBe(expected);
  });
});

describe('isStrict (strict_dates)', () => {
  it.each(['1', 'true', 'TRUE', 'True', 'on', 'ON', 'On', 'yes', 'YES', 'Yes'])('%j is strict', (value) => {
    expect(isStrict(value)).toBe(true);
  });
  it.each([undefined, '', '0', 'false', 'FALSE', 'off', 'no', 'y', 'enabled', '2', 'truth', 'yes please'])('%j is inclusive', (value) => {
    expect(isStrict(value)).toBe(false);
  });
});

describe('dateBounds: inclusive mode (the default) rounds to whole site-time-zone days', () => {
  it.each<[string, Partial<Record<DateParam, string | number>>, Partial<Record<DateParam, string>>]>([
    ['no date parameters: the default window', {}, { start_date: DEFAULT_START, end_date: DEFAULT_END }],
    [
      'start_date → 00:00:00 of its day (default end kept)',
      { start_date: '2018-01-01 15:00:00' },
      { start_date: '2018-01-01T00:00:00.000Z', end_date: DEFAULT_END },
    ],
    ['start_date already at midnight', { start_date: '2018-01-01' }, { start_date: '2018-01-01T00:00:00.000Z', end_date: DEFAULT_END }],
    ['start_date one second before midnight', { start_date: '2018-01-01 23:59:59' }, { start_date: '2018-01-01T00:00:00.000Z', end_date: DEFAULT_END }],
    [
      'end_date → 23:59:59 of its day (default start kept)',
      { end_date: '2030-01-01 15:00:00' },
      { start_date: DEFAULT_START, end_date: '2030-01-01T23:59:59.000Z' },
    ],
    [
      'end_date at midnight → the end of that same day',
      { end_date: '2030-01-01 00:00:00' },
      { start_date: DEFAULT_START, end_date: '2030-01-01T23:59:59.000Z' },
    ],
    [
      'start_date and end_date',
      { start_date: '2018-01-01 15:00:00', end_date: '2018-01-01 18:00:00' },
      { start_date: '2018-01-01T00:00:00.000Z', end_date: '2018-01-01T23:59:59.000Z' },
    ],
    ['starts_before → 23:59:59, no default window', { starts_before: '2018-01-02 08:00' }, { starts_before: '2018-01-02T23:59:59.000Z' }],
    ['starts_after → 23:59:59, no default window', { starts_after: '2018-01-02 08:00' }, { starts_after: '2018-01-02T23:59:59.000Z' }],
    ['ends_before → 23:59:59, no default window', { ends_before: '2018-01-02' }, { ends_before: '2018-01-02T23:59:59.000Z' }],
    ['ends_after → 23:59:59, no default window', { ends_after: '2017-12-31' }, { ends_after: '2017-12-31T23:59:59.000Z' }],
    [
      'two relative parameters',
      { ends_after: '2017-12-31', starts_before: '2018-01-02' },
      { starts_before: '2018-01-02T23:59:59.000Z', ends_after: '2017-12-31T23:59:59.000Z' },
    ],
    [
      'a relative parameter with an explicit start_date: the start applies, the default end does not',
      { starts_before: '2018-01-02', start_date: '2017-12-30' },
      { start_date: '2017-12-30T00:00:00.000Z', starts_before: '2018-01-02T23:59:59.000Z' },
    ],
    [
      'a relative parameter with an explicit end_date: the end applies, the default start does not',
      { ends_after: '2017-12-31', end_date: '2018-01-02 10:00' },
      { end_date: '2018-01-02T23:59:59.000Z', ends_after: '2017-12-31T23:59:59.000Z' },
    ],
    [
      'all six parameters',
      {
        start_date: '2017-12-30 10:00',
        end_date: '2018-01-02 10:00',
        starts_before: '2018-01-02',
        starts_after: '2017-12-29',
        ends_before: '2018-01-03',
        ends_after: '2017-12-31',
      },
      {
        start_date: '2017-12-30T00:00:00.000Z',
        end_date: '2018-01-02T23:59:59.000Z',
        starts_before: '2018-01-02T23:59:59.000Z',
        starts_after: '2017-12-29T23:59:59.000Z',
        ends_before: '2018-01-03T23:59:59.000Z',
        ends_after: '2017-12-31T23:59:59.000Z',
      },
    ],
    // Unix timestamps (numbers, and numeric strings as query strings carry them).
    ['a timestamp start_date (2018-01-01T16:00:00Z)', { start_date: 1514822400 }, { start_date: '2018-01-01T00:00:00.000Z', end_date: DEFAULT_END }],
    ['a numeric-string timestamp end_date', { end_date: '1514822400' }, { start_date: DEFAULT_START, end_date: '2018-01-01T23:59:59.000Z' }],
    ['a timestamp starts_after', { starts_after: '1514822400' }, { starts_after: '2018-01-01T23:59:59.000Z' }],
    // Relative English dates, counted from NOW (Monday 2026-06-15 12:00).
    ['start_date "tomorrow"', { start_date: 'tomorrow' }, { start_date: '2026-06-16T00:00:00.000Z', end_date: DEFAULT_END }],
    ['start_date "tomorrow 9am" is rounded down', { start_date: 'tomorrow 9am' }, { start_date: '2026-06-16T00:00:00.000Z', end_date: DEFAULT_END }],
    ['end_date "+1 week"', { end_date: '+1 week' }, { start_date: DEFAULT_START, end_date: '2026-06-22T23:59:59.000Z' }],
    ['end_date "next wednesday 4pm"', { end_date: 'next wednesday 4pm' }, { start_date: DEFAULT_START, end_date: '2026-06-17T23:59:59.000Z' }],
    ['ends_after "yesterday"', { ends_after: 'yesterday' }, { ends_after: '2026-06-14T23:59:59.000Z' }],
    // An explicit offset names the instant; the day is still the site's (UTC) day of that instant.
    ['start_date with an explicit offset', { start_date: '2018-01-01T22:00:00-05:00' }, { start_date: '2018-01-02T00:00:00.000Z', end_date: DEFAULT_END }],
  ])('%s', (_label, dates, expected) => {
    expect(boundsOf({ dates })).toEqual(expected);
  });
});

describe('dateBounds: strict mode keeps the instants', () => {
  it.each<[string, Partial<Record<DateParam, string | number>>, Partial<Record<DateParam, string>>]>([
    [
      'start_date and end_date',
      { start_date: '2018-01-01 15:00:00', end_date: '2018-01-01 18:00:00' },
      { start_date: '2018-01-01T15:00:00.000Z', end_date: '2018-01-01T18:00:00.000Z' },
    ],
    ['start_date only: the default end stays', { start_date: '2018-01-01 15:00:00' }, { start_date: '2018-01-01T15:00:00.000Z', end_date: DEFAULT_END }],
    [
      'end_date only: the default start stays 00:00 yesterday',
      { end_date: '2030-01-01 15:00:00' },
      { start_date: DEFAULT_START, end_date: '2030-01-01T15:00:00.000Z' },
    ],
    ['no date parameters: the default window', {}, { start_date: DEFAULT_START, end_date: DEFAULT_END }],
    ['starts_before', { starts_before: '2018-01-02 08:00' }, { starts_before: '2018-01-02T08:00:00.000Z' }],
    ['starts_after', { starts_after: '2018-01-02 08:00' }, { starts_after: '2018-01-02T08:00:00.000Z' }],
    ['ends_before', { ends_before: '2018-01-02 08:30:15' }, { ends_before: '2018-01-02T08:30:15.000Z' }],
    ['ends_after', { ends_after: '2018-01-02' }, { ends_after: '2018-01-02T00:00:00.000Z' }],
    ['a timestamp', { start_date: 1514822400 }, { start_date: '2018-01-01T16:00:00.000Z', end_date: DEFAULT_END }],
    ['"tomorrow 9am"', { start_date: 'tomorrow 9am' }, { start_date: '2026-06-16T09:00:00.000Z', end_date: DEFAULT_END }],
    ['"next wednesday 4pm"', { starts_before: 'next wednesday 4pm' }, { starts_before: '2026-06-17T16:00:00.000Z' }],
  ])('%s', (_label, dates, expected) => {
    expect(boundsOf({ dates, strictDates: 'true' })).toEqual(expected);
  });

  it.each(['1', 'true', 'TRUE', 'on', 'Yes'])('strict_dates=%j is strict', (strictDates) => {
    expect(boundsOf({ dates: { start_date: '2018-01-01 15:00:00' }, strictDates }).start_date).toBe('2018-01-01T15:00:00.000Z');
  });

  it.each(['0', 'false', 'off', 'no', 'foo', 'y'])('strict_dates=%j is inclusive', (strictDates) => {
    expect(boundsOf({ dates: { start_date: '2018-01-01 15:00:00' }, strictDates }).start_date).toBe('2018-01-01T00:00:00.000Z');
  });
});

describe('dateBounds: the default window (start ≥ 00:00 yesterday in the site time zone, end ≤ 23:59:59 of the day 24 months ahead)', () => {
  it.each<[string, string, string, string, string]>([
    ['UTC at noon', 'UTC', '2026-06-15T12:00:00Z', '2026-06-14T00:00:00.000Z', '2028-06-15T23:59:59.000Z'],
    ['UTC just after midnight', 'UTC', '2026-06-15T00:00:01Z', '2026-06-14T00:00:00.000Z', '2028-06-15T23:59:59.000Z'],
    ['UTC just before midnight', 'UTC', '2026-06-15T23:59:59Z', '2026-06-14T00:00:00.000Z', '2028-06-15T23:59:59.000Z'],
    ['New York, same date as UTC (EDT)', 'America/New_York', '2026-06-15T12:00:00Z', '2026-06-14T04:00:00.000Z', '2028-06-16T03:59:59.000Z'],
    // 02:00 UTC is still the 14th in New York, so yesterday is the 13th there.
    ['New York, a day behind UTC', 'America/New_York', '2026-06-15T02:00:00Z', '2026-06-13T04:00:00.000Z', '2028-06-15T03:59:59.000Z'],
    ['New York in winter (EST)', 'America/New_York', '2026-01-15T12:00:00Z', '2026-01-14T05:00:00.000Z', '2028-01-16T04:59:59.000Z'],
    // 23:30 UTC is already the 16th in Berlin, so yesterday is the 15th there.
    ['Berlin, a day ahead of UTC', 'Europe/Berlin', '2026-06-15T23:30:00Z', '2026-06-14T22:00:00.000Z', '2028-06-16T21:59:59.000Z'],
    ['Tokyo', 'Asia/Tokyo', '2026-06-15T12:00:00Z', '2026-06-13T15:00:00.000Z', '2028-06-15T14:59:59.000Z'],
    // The day after a 23-hour day: 00:30 EDT on 2026-03-09 is only 23.5 h after the start of the 8th.
    ['New York, first hour after the spring-forward day', 'America/New_York', '2026-03-09T04:30:00Z', '2026-03-08T05:00:00.000Z', '2028-03-09T04:59:59.000Z'],
    ['New York, the spring-forward day itself', 'America/New_York', '2026-03-08T15:00:00Z', '2026-03-07T05:00:00.000Z', '2028-03-09T04:59:59.000Z'],
    // The day after a 25-hour day: 00:30 EST on 2026-11-02 is 25.5 h after the start of the 1st.
    ['New York, first hour after the fall-back day', 'America/New_York', '2026-11-02T05:30:00Z', '2026-11-01T04:00:00.000Z', '2028-11-03T03:59:59.000Z'],
    ['Berlin, first hour after the spring-forward day', 'Europe/Berlin', '2026-03-29T22:30:00Z', '2026-03-28T23:00:00.000Z', '2028-03-30T21:59:59.000Z'],
  ])('%s', (_label, siteTimezone, now, start, end) => {
    expect(boundsOf({}, { siteTimezone, now: at(now) })).toEqual({ start_date: start, end_date: end });
  });

  it.each<[string, Partial<Record<DateParam, string>>, DateParam[]]>([
    ['no parameter: both defaults', {}, ['start_date', 'end_date']],
    ['start_date only: the default end', { start_date: '2030-01-01' }, ['start_date', 'end_date']],
    ['end_date only: the default start', { end_date: '2030-01-01' }, ['start_date', 'end_date']],
    ['starts_before: no defaults', { starts_before: '2030-01-01' }, ['starts_before']],
    ['starts_after: no defaults', { starts_after: '2030-01-01' }, ['starts_after']],
    ['ends_before: no defaults', { ends_before: '2030-01-01' }, ['ends_before']],
    ['ends_after: no defaults', { ends_after: '2030-01-01' }, ['ends_after']],
    ['ends_after with start_date: no default end', { ends_after: '2030-01-01', start_date: '2029-01-01' }, ['start_date', 'ends_after']],
    ['starts_after with end_date: no default start', { starts_after: '2030-01-01', end_date: '2031-01-01' }, ['end_date', 'starts_after']],
  ])('%s', (_label, dates, expected) => {
    expect(Object.keys(boundsOf({ dates })).sort()).toEqual([...expected].sort());
  });
});

describe('dateBounds: a non-UTC site time zone, DST days included', () => {
  it.each<[string, string, Partial<Record<DateParam, string | number>>, string | undefined, Partial<Record<DateParam, string>>]>([
    // New York, spring forward on 2026-03-08 (a 23-hour day): 00:00 EST → 23:59:59 EDT.
    [
      'New York, 2026-03-08 (spring forward), inclusive',
      'America/New_York',
      { start_date: '2026-03-08', end_date: '2026-03-08' },
      undefined,
      { start_date: '2026-03-08T05:00:00.000Z', end_date: '2026-03-09T03:59:59.000Z' },
    ],
    [
      'New York, 2026-03-08, a time of day is rounded to the same bounds',
      'America/New_York',
      { start_date: '2026-03-08 12:34:56', end_date: '2026-03-08 01:00:00' },
      undefined,
      { start_date: '2026-03-08T05:00:00.000Z', end_date: '2026-03-09T03:59:59.000Z' },
    ],
    // Fall back on 2026-11-01 (a 25-hour day): 00:00 EDT → 23:59:59 EST.
    [
      'New York, 2026-11-01 (fall back), inclusive',
      'America/New_York',
      { start_date: '2026-11-01', end_date: '2026-11-01' },
      undefined,
      { start_date: '2026-11-01T04:00:00.000Z', end_date: '2026-11-02T04:59:59.000Z' },
    ],
    [
      'New York, relative parameters on DST days',
      'America/New_York',
      { starts_after: '2026-03-08', ends_before: '2026-11-01 08:00' },
      undefined,
      { starts_after: '2026-03-09T03:59:59.000Z', ends_before: '2026-11-02T04:59:59.000Z' },
    ],
    // Berlin, spring forward on 2026-03-29: 00:00 CET → 23:59:59 CEST.
    [
      'Berlin, 2026-03-29 (spring forward), inclusive',
      'Europe/Berlin',
      { start_date: '2026-03-29', end_date: '2026-03-29' },
      undefined,
      { start_date: '2026-03-28T23:00:00.000Z', end_date: '2026-03-29T21:59:59.000Z' },
    ],
    [
      'Berlin, 2026-10-25 (fall back), inclusive',
      'Europe/Berlin',
      { start_date: '2026-10-25', end_date: '2026-10-25' },
      undefined,
      { start_date: '2026-10-24T22:00:00.000Z', end_date: '2026-10-25T22:59:59.000Z' },
    ],
    // Strict: the wall clocks are read in the site time zone.
    [
      'New York, strict, after the spring-forward gap',
      'America/New_York',
      { start_date: '2026-03-08 12:00:00', end_date: '2026-03-08 01:30:00' },
      'true',
      { start_date: '2026-03-08T16:00:00.000Z', end_date: '2026-03-08T06:30:00.000Z' },
    ],
    [
      'Berlin, strict',
      'Europe/Berlin',
      { start_date: '2026-03-29 01:00:00', end_date: '2026-03-29 12:00:00' },
      'yes',
      { start_date: '2026-03-29T00:00:00.000Z', end_date: '2026-03-29T10:00:00.000Z' },
    ],
    // A timestamp is an instant; the day it falls on is the site's day.
    [
      'New York, a timestamp on the previous local day (2018-01-01T01:00Z = 2017-12-31 20:00 EST)',
      'America/New_York',
      { start_date: 1514768400, end_date: '1514768400' },
      undefined,
      { start_date: '2017-12-31T05:00:00.000Z', end_date: '2018-01-01T04:59:59.000Z' },
    ],
    [
      'Berlin, a timestamp on the next local day (2017-12-31T23:30Z = 2018-01-01 00:30 CET)',
      'Europe/Berlin',
      { start_date: 1514763000 },
      undefined,
      // The default end: 23:59:59 in Berlin (CEST) of the day 24 months ahead.
      { start_date: '2017-12-31T23:00:00.000Z', end_date: '2028-06-15T21:59:59.000Z' },
    ],
    // Relative English dates are evaluated on the site's wall clock (NOW = 08:00 EDT on Monday 15th).
    [
      'New York, strict "tomorrow 9am"',
      'America/New_York',
      { start_date: 'tomorrow 9am' },
      'true',
      // The default end: 23:59:59 in New York (EDT) of the day 24 months ahead.
      { start_date: '2026-06-16T13:00:00.000Z', end_date: '2028-06-16T03:59:59.000Z' },
    ],
    [
      'New York, inclusive "tomorrow"',
      'America/New_York',
      { start_date: 'tomorrow', end_date: '+2 days' },
      undefined,
      { start_date: '2026-06-16T04:00:00.000Z', end_date: '2026-06-18T03:59:59.000Z' },
    ],
  ])('%s', (_label, siteTimezone, dates, strictDates, expected) => {
    const overrides: Partial<EventListInput> = { dates };
    if (strictDates !== undefined) overrides.strictDates = strictDates;
    expect(boundsOf(overrides, { siteTimezone })).toEqual(expected);
  });

  it('echoes the bounds as site-time-zone wall clocks', () => {
    const result = compile({ dates: { start_date: '2026-03-08', end_date: '2026-03-08' } }, { siteTimezone: 'America/New_York' });
    expect(result.effectiveDates).toEqual({ start_date: '2026-03-08 00:00:00', end_date: '2026-03-08 23:59:59' });
    expect(dateClausesOf(result)).toEqual([{ startUtc: { $gte: at('2026-03-08T05:00:00Z') } }, { endUtc: { $lte: at('2026-03-09T03:59:59Z') } }]);
  });

  it('echoes the default window as site-time-zone wall clocks', () => {
    const result = compile({}, { siteTimezone: 'Europe/Berlin' });
    expect(result.effectiveDates).toEqual({ start_date: '2026-06-14 00:00:00', end_date: '2028-06-15 23:59:59' });
  });
});

describe('dateBounds: invalid dates are reported', () => {
  it.each<[string, Partial<Record<DateParam, string>>, DateParam[]]>([
    ['start_date in quotes (reference test)', { start_date: '"before my birthday"' }, ['start_date']],
    ['end_date in quotes (reference test)', { end_date: '"after my birthday"' }, ['end_date']],
    ['starts_before', { starts_before: 'foo' }, ['starts_before']],
    ['starts_after', { starts_after: 'not a strtotime parsable string' }, ['starts_after']],
    ['ends_before', { ends_before: 'foo' }, ['ends_before']],
    ['ends_after', { ends_after: 'foo' }, ['ends_after']],
    ['two bad ones, in parameter order', { ends_after: 'foo', start_date: 'bar' }, ['start_date', 'ends_after']],
    ['a bad one next to a good one', { start_date: '2018-01-01', end_date: 'whenever' }, ['end_date']],
    ['a year past 9999', { start_date: '10000-01-01' }, ['start_date']],
  ])('%s', (_label, dates, expected) => {
    const result = compile({ dates });
    expect(result.invalidDates).toEqual(expected);
    for (const param of expected) expect(result.effectiveDates[param]).toBeUndefined();
  });

  it('reports no invalid date for good inputs', () => {
    expect(compile({ dates: { start_date: '2018-01-01', end_date: 1514822400, starts_after: 'tomorrow' } }).invalidDates).toEqual([]);
  });

  it('still reports an invalid date when include makes the dates irrelevant (every parameter is validated)', () => {
    const result = compile({ include: [1], dates: { start_date: 'before my birthday', end_date: '2018-01-01' } });
    expect(result.invalidDates).toEqual(['start_date']);
    expect(dateClausesOf(result)).toEqual([]);
  });
});

describe('include ignores every date filter', () => {
  it.each<[string, Partial<Record<DateParam, string>>]>([
    ['no date parameter: no default window', {}],
    ['explicit start_date and end_date', { start_date: '2030-01-01', end_date: '2030-01-02' }],
    ['relative parameters', { starts_after: '2030-01-01', ends_before: '2031-01-01' }],
    [
      'all of them',
      {
        start_date: '2030-01-01',
        end_date: '2030-01-02',
        starts_before: '2030-01-01',
        starts_after: '2030-01-01',
        ends_before: '2030-01-01',
        ends_after: '2030-01-01',
      },
    ],
  ])('%s', (_label, dates) => {
    const result = compile({ include: [7, 3], dates, strictDates: 'true' });
    expect(dateBounds(input({ include: [7, 3], dates }), CTX).bounds).toEqual({});
    expect(dateClausesOf(result)).toEqual([]);
    expect(result.effectiveDates).toEqual({});
    expect(clausesOf(result)).toContainEqual({ _id: { $in: [7, 3] } });
  });
});

describe('compileEventList: date clauses', () => {
  it.each<[string, Partial<EventListInput>, Filter[]]>([
    ['the default window', {}, [{ startUtc: { $gte: at(DEFAULT_START) } }, { endUtc: { $lte: at(DEFAULT_END) } }]],
    [
      'start ≥ and end ≤ for start_date / end_date',
      { dates: { start_date: '2018-01-01 15:00:00', end_date: '2018-01-01 18:00:00' } },
      [{ startUtc: { $gte: at('2018-01-01T00:00:00Z') } }, { endUtc: { $lte: at('2018-01-01T23:59:59Z') } }],
    ],
    [
      'start > / start < / end < / end > for the relative parameters, in parameter order',
      { dates: { ends_after: '2018-01-04', ends_before: '2018-01-03', starts_after: '2018-01-02', starts_before: '2018-01-01' }, strictDates: '1' },
      [
        { startUtc: { $lt: at('2018-01-01T00:00:00Z') } },
        { startUtc: { $gt: at('2018-01-02T00:00:00Z') } },
        { endUtc: { $lt: at('2018-01-03T00:00:00Z') } },
        { endUtc: { $gt: at('2018-01-04T00:00:00Z') } },
      ],
    ],
  ])('%s', (_label, overrides, expected) => {
    expect(dateClausesOf(compile(overrides))).toEqual(expected);
  });

  it.each<[string, Partial<EventListInput>, Partial<Record<DateParam, string>>]>([
    ['the default window', {}, { start_date: '2026-06-14 00:00:00', end_date: '2028-06-15 23:59:59' }],
    [
      'rounded dates',
      { dates: { start_date: '2018-01-01 15:00:00', end_date: '2018-01-01 18:00:00' } },
      { start_date: '2018-01-01 00:00:00', end_date: '2018-01-01 23:59:59' },
    ],
    [
      'strict dates as given',
      { dates: { start_date: '2018-01-01 15:00:00', end_date: '2018-01-01 18:00:00' }, strictDates: 'true' },
      { start_date: '2018-01-01 15:00:00', end_date: '2018-01-01 18:00:00' },
    ],
    [
      'a timestamp re-formatted',
      { dates: { start_date: 1514822400 }, strictDates: 'on' },
      { start_date: '2018-01-01 16:00:00', end_date: '2028-06-15 23:59:59' },
    ],
    [
      'only relative dates: no start_date / end_date',
      { dates: { ends_after: '2017-12-31', starts_before: '2018-01-02' } },
      { starts_before: '2018-01-02 23:59:59', ends_after: '2017-12-31 23:59:59' },
    ],
  ])('effective dates: %s', (_label, overrides, expected) => {
    expect(compile(overrides).effectiveDates).toEqual(expected);
  });
});

/** Events of the reference's date-filter examples (site time zone UTC), as [name, start, end]. */
const EXAMPLE_EVENTS: Array<[string, string, string]> = [
  ['dec31', '2017-12-31T17:00:00Z', '2017-12-31T17:30:00Z'],
  ['jan1-16', '2018-01-01T16:00:00Z', '2018-01-01T16:30:00Z'],
  ['jan1-20', '2018-01-01T20:00:00Z', '2018-01-01T20:30:00Z'],
  ['jan2', '2018-01-02T10:00:00Z', '2018-01-02T10:30:00Z'],
  // Multi-day events for the relative example.
  ['dec30-to-jan3', '2017-12-30T10:00:00Z', '2018-01-03T10:00:00Z'],
  ['dec29-to-jan1', '2017-12-29T10:00:00Z', '2018-01-01T10:00:00Z'],
  ['jan3', '2018-01-03T09:00:00Z', '2018-01-03T10:00:00Z'],
];

const OPS: Record<string, (value: number, bound: number) => boolean> = {
  $gte: (v, b) => v >= b,
  $lte: (v, b) => v <= b,
  $gt: (v, b) => v > b,
  $lt: (v, b) => v < b,
};

/** The example events matched by the date clauses of a compiled query (an independent evaluation). */
function matchingExamples(result: CompiledEventList): string[] {
  const clauses = dateClausesOf(result);
  return EXAMPLE_EVENTS.filter(([, start, end]) =>
    clauses.every((clause) =>
      Object.entries(clause).every(([field, condition]) => {
        const value = field === 'startUtc' ? Date.parse(start) : Date.parse(end);
        return Object.entries(condition as Record<string, Date>).every(([op, bound]) => (OPS[op] as (v: number, b: number) => boolean)(value, bound.getTime()));
      }),
    ),
  ).map(([name]) => name);
}

describe('the reference examples', () => {
  it.each<[string, Partial<EventListInput>, string[]]>([
    [
      'inclusive start_date=2018-01-01 15:00:00&end_date=2018-01-01 18:00:00 → both Jan 1 events',
      { dates: { start_date: '2018-01-01 15:00:00', end_date: '2018-01-01 18:00:00' } },
      ['jan1-16', 'jan1-20'],
    ],
    [
      'the same with strict_dates=true → only the 16:00 event',
      { dates: { start_date: '2018-01-01 15:00:00', end_date: '2018-01-01 18:00:00' }, strictDates: 'true' },
      ['jan1-16'],
    ],
    [
      'ends_after=2017-12-31&starts_before=2018-01-02 → spanning events in, the Dec 31 event out',
      { dates: { ends_after: '2017-12-31', starts_before: '2018-01-02' } },
      ['jan1-16', 'jan1-20', 'jan2', 'dec30-to-jan3', 'dec29-to-jan1'],
    ],
    [
      'adding start_date=2017-12-30&end_date=2018-01-02',
      { dates: { ends_after: '2017-12-31', starts_before: '2018-01-02', start_date: '2017-12-30', end_date: '2018-01-02' } },
      ['jan1-16', 'jan1-20', 'jan2'],
    ],
    ['start_date=2018-01-02 alone (with the default end)', { dates: { start_date: '2018-01-02' } }, ['jan2', 'jan3']],
    ['ends_before=2018-01-01 (before the end of Jan 1)', { dates: { ends_before: '2018-01-01' } }, ['jan1-16', 'jan1-20', 'dec31', 'dec29-to-jan1'].sort()],
  ])('%s', (_label, overrides, expected) => {
    expect(matchingExamples(compile(overrides)).sort()).toEqual([...expected].sort());
  });

  it('the default window at NOW matches none of them (they are in the past)', () => {
    expect(matchingExamples(compile({}))).toEqual([]);
  });

  it('include matches them whatever the dates say', () => {
    expect(matchingExamples(compile({ include: [1], dates: { start_date: '2030-01-01' } })).length).toBe(EXAMPLE_EVENTS.length);
  });
});

describe('compileEventList: filter clauses', () => {
  const PUBLISHED = statusFilter(['publish'], NOW);
  const WINDOW: Filter[] = [{ startUtc: { $gte: at(DEFAULT_START) } }, { endUtc: { $lte: at(DEFAULT_END) } }];

  it('with no filter: status, never hidden events, the default window', () => {
    expect(compile().query.filter).toEqual({ $and: [PUBLISHED, { hideFromListings: false }, ...WINDOW] });
  });

  it.each<[string, Partial<EventListInput>, Filter]>([
    ['search: $text and every stemmed word', { search: 'Jazz concerts' }, { $text: { $search: 'Jazz concerts' }, searchTerms: { $all: ['jazz', 'concert'] } }],
    ['search: one word', { search: 'foo' }, { $text: { $search: 'foo' }, searchTerms: { $all: ['foo'] } }],
    ['search: delimiters and stop words', { search: 'the foo-bar' }, { $text: { $search: 'the foo bar' }, searchTerms: { $all: ['foo', 'bar'] } }],
    ['categories: $in the ids', { categoryIds: [4, 5, 9] }, { categoryIds: { $in: [4, 5, 9] } }],
    ['tags: $in the ids', { tagIds: [11] }, { tagIds: { $in: [11] } }],
    ['venue: $in the ids', { venueIds: [21, 22] }, { venueId: { $in: [21, 22] } }],
    ['organizer: $in the ids', { organizerIds: [31, 32] }, { organizerIds: { $in: [31, 32] } }],
    ['featured true', { featured: true }, { featured: true }],
    ['featured false', { featured: false }, { featured: false }],
    ['ticketed true', { ticketed: true }, { ticketed: true }],
    ['ticketed false', { ticketed: false }, { ticketed: false }],
    ['post_parent', { postParent: 42 }, { postParent: 42 }],
    ['include: _id $in', { include: [3, 1, 2] }, { _id: { $in: [3, 1, 2] } }],
  ])('%s', (_label, overrides, clause) => {
    const clauses = clausesOf(compile(overrides));
    expect(clauses).toContainEqual(clause);
    expect(clauses.slice(0, 2)).toEqual([PUBLISHED, { hideFromListings: false }]);
  });

  it('combines every filter with $and, in a fixed order, extra clauses last', () => {
    const geo: Filter = { venueId: { $in: [99] } };
    const result = compile({
      dates: { start_date: '2018-01-01', starts_before: '2018-02-01' },
      search: 'foo',
      categoryIds: [1],
      tagIds: [2],
      venueIds: [3],
      organizerIds: [4],
      featured: true,
      ticketed: false,
      postParent: 5,
      statuses: ['publish', 'draft'],
      extra: [geo],
    });
    expect(result.query.filter).toEqual({
      $and: [
        statusFilter(['publish', 'draft'], NOW),
        { hideFromListings: false },
        { startUtc: { $gte: at('2018-01-01T00:00:00Z') } },
        { startUtc: { $lt: at('2018-02-01T23:59:59Z') } },
        { $text: { $search: 'foo' }, searchTerms: { $all: ['foo'] } },
        { categoryIds: { $in: [1] } },
        { tagIds: { $in: [2] } },
        { venueId: { $in: [3] } },
        { organizerIds: { $in: [4] } },
        { featured: true },
        { ticketed: false },
        { postParent: 5 },
        geo,
      ],
    });
  });

  it('never lists events hidden from listings, not even with include', () => {
    for (const overrides of [{}, { include: [1, 2] }, { statuses: ['draft'] as PostStatus[] }, { featured: true }]) {
      expect(clausesOf(compile(overrides))).toContainEqual({ hideFromListings: false });
    }
  });

  it('does not add clauses for filters that were not given', () => {
    const clauses = clausesOf(compile());
    for (const field of ['$text', 'categoryIds', 'tagIds', 'venueId', 'organizerIds', 'featured', 'ticketed', 'postParent', '_id']) {
      expect(clauses.some((c) => field in c)).toBe(false);
    }
  });

  it.each<[string, PostStatus[]]>([
    ['publish', ['publish']],
    ['publish and draft', ['publish', 'draft']],
    ['every status but trash', ['publish', 'future', 'draft', 'pending', 'private']],
    ['future only', ['future']],
    ['trash', ['trash']],
  ])('status %s goes through statusFilter', (_label, statuses) => {
    expect(clausesOf(compile({ statuses }))[0]).toEqual(statusFilter(statuses, NOW));
  });
});

describe('statusFilter (statuses as readers see them at now)', () => {
  it.each<[string, PostStatus[], Filter]>([
    [
      'publish: also future posts whose date has passed',
      ['publish'],
      { status: { $in: ['publish', 'future'] }, $nor: [{ status: 'future', dateUtc: { $gt: NOW } }] },
    ],
    ['future: only those still in the future', ['future'], { status: { $in: ['future'] }, $nor: [{ status: 'future', dateUtc: { $lte: NOW } }] }],
    ['publish and future: both stored statuses', ['publish', 'future'], { status: { $in: ['publish', 'future'] } }],
    ['draft', ['draft'], { status: { $in: ['draft'] } }],
    ['draft and pending', ['draft', 'pending'], { status: { $in: ['draft', 'pending'] } }],
    ['publish and draft', ['publish', 'draft'], { status: { $in: ['publish', 'future', 'draft'] }, $nor: [{ status: 'future', dateUtc: { $gt: NOW } }] }],
    ['every status but trash', ['publish', 'future', 'draft', 'pending', 'private'], { status: { $in: ['publish', 'future', 'draft', 'pending', 'private'] } }],
  ])('%s', (_label, statuses, expected) => {
    expect(statusFilter(statuses, NOW)).toEqual(expected);
  });
});

describe('compileEventList: sort (orderby / order)', () => {
  it.each<[string, EventOrderBy | undefined, 1 | -1 | undefined, Sort]>([
    [
      'default: start then id, ascending',
      undefined,
      undefined,
      [
        ['startUtc', 1],
        ['_id', 1],
      ],
    ],
    [
      'start_date asc',
      'start_date',
      1,
      [
        ['startUtc', 1],
        ['_id', 1],
      ],
    ],
    [
      'start_date desc',
      'start_date',
      -1,
      [
        ['startUtc', -1],
        ['_id', -1],
      ],
    ],
    [
      'order desc without orderby',
      undefined,
      -1,
      [
        ['startUtc', -1],
        ['_id', -1],
      ],
    ],
    [
      'end_date',
      'end_date',
      undefined,
      [
        ['endUtc', 1],
        ['_id', 1],
      ],
    ],
    [
      'end_date desc',
      'end_date',
      -1,
      [
        ['endUtc', -1],
        ['_id', -1],
      ],
    ],
    [
      'date (publication)',
      'date',
      1,
      [
        ['dateUtc', 1],
        ['_id', 1],
      ],
    ],
    [
      'date desc',
      'date',
      -1,
      [
        ['dateUtc', -1],
        ['_id', -1],
      ],
    ],
    [
      'modified',
      'modified',
      1,
      [
        ['modifiedUtc', 1],
        ['_id', 1],
      ],
    ],
    [
      'modified desc',
      'modified',
      -1,
      [
        ['modifiedUtc', -1],
        ['_id', -1],
      ],
    ],
    ['id', 'id', undefined, [['_id', 1]]],
    ['id desc', 'id', -1, [['_id', -1]]],
  ])('%s', (_label, orderBy, order, expected) => {
    const overrides: Partial<EventListInput> = {};
    if (orderBy !== undefined) overrides.orderBy = orderBy;
    if (order !== undefined) overrides.order = order;
    expect(compile(overrides).query.sort).toEqual(expected);
  });

  it('include keeps the requested order', () => {
    expect(compile({ include: [1, 2] }).query.sort).toEqual([
      ['startUtc', 1],
      ['_id', 1],
    ]);
  });
});

describe('DATE_PARAMS', () => {
  it('names the six date parameters in the reference order', () => {
    expect(DATE_PARAMS).toEqual(['start_date', 'end_date', 'starts_before', 'starts_after', 'ends_before', 'ends_after']);
  });
});
