/**
 * The common date forms parseDateInput reads directly (src/lib/dates/parse.ts) must mean exactly
 * what PHP's strtotime makes of them: `YYYY-MM-DD[ HH:MM[:SS]]` (space or `T`), with or without
 * `Z`/`±HH:MM`/`±HHMM`, and whole days or weeks from now (`+3 days 19:30`). Property tests compare
 * the two readings over zones with DST (northern and southern, half-hour steps, Casablanca's),
 * half-hour and 45-minute offsets and fixed `UTC±N` offsets, on random dates and on the days of
 * DST transitions, so gaps and overlaps come up often.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDateInput } from '../../src/lib/dates/index.js';
import { commonFormInstant, strtotimeOnly } from '../../src/lib/dates/parse.js';

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'Europe/London',
  'Europe/Dublin',
  'America/New_York',
  'America/Havana',
  'America/Sao_Paulo',
  'America/St_Johns',
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  'Africa/Casablanca',
  'UTC+5.5',
  'UTC-3.5',
] as const;

/** Days on which some zone above changes offset (any zone may be paired with any of them). */
const TRANSITION_DAYS: Array<[number, number, number]> = [
  [2026, 3, 29],
  [2026, 10, 25], // Europe
  [2026, 3, 8],
  [2026, 11, 1], // North America (Havana and St John's too)
  [2026, 4, 5],
  [2026, 10, 4], // Australia, Lord Howe
  [2026, 9, 27], // Chatham
  [2018, 11, 4],
  [2018, 2, 18], // São Paulo, while it had DST
  [2026, 2, 15],
  [2026, 3, 22], // Casablanca around Ramadan
  [1916, 5, 21],
  [1947, 4, 16],
  [2011, 3, 27], // historic European and British changes
];

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const iso = (d: Date | null | undefined) => (d === undefined ? undefined : d === null ? null : d.toISOString());

/** Both readings of a text; `fast` is undefined when the text is not a common form. */
function readings(text: string, timezone: string, now: Date) {
  return {
    fast: iso(commonFormInstant(text, timezone, now)),
    strtotime: iso(strtotimeOnly(text, timezone, now)),
    api: iso(parseDateInput(text, { timezone, now })),
  };
}

const zone = fc.constantFrom(...ZONES);
const day = fc.oneof(
  fc.tuple(fc.integer({ min: 1900, max: 2200 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 })),
  fc.constantFrom(...TRANSITION_DAYS),
);
// Night hours are over-sampled: DST changes happen there.
const hour = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 23 }));
const minute = fc.oneof(fc.constantFrom(0, 15, 30, 45, 59), fc.integer({ min: 0, max: 59 }));
const second = fc.integer({ min: 0, max: 59 });
const suffix = fc.constantFrom('', '', '', 'Z', '+05:30', '-03:00', '+0100', '-0930', '+14:00', '-12:00');
const anchor = fc.oneof(
  fc.date({ min: new Date(Date.UTC(2024, 0, 1)), max: new Date(Date.UTC(2028, 0, 1)), noInvalidDate: true }),
  // Within two days of a transition.
  fc
    .tuple(fc.constantFrom(...TRANSITION_DAYS.filter(([year]) => year >= 2011)), fc.integer({ min: -48 * 60, max: 48 * 60 }))
    .map(([[y, m, d], minutes]) => new Date(Date.UTC(y, m - 1, d) + minutes * 60_000)),
);
const absoluteText = fc.tuple(day, hour, minute, second, fc.integer({ min: 0, max: 3 }), suffix).map(([[y, m, d], h, mi, s, form, zoneSuffix]) => {
  const date = `${pad(y, 4)}-${pad(m)}-${pad(d)}`;
  const forms = [date, `${date} ${pad(h)}:${pad(mi)}`, `${date} ${pad(h)}:${pad(mi)}:${pad(s)}`, `${date}T${pad(h)}:${pad(mi)}:${pad(s)}`];
  return `${forms[form]}${form === 0 ? '' : zoneSuffix}`;
});
const relativeText = fc
  .tuple(
    fc.constantFrom('+', '+', '-'),
    fc.integer({ min: 0, max: 400 }),
    fc.constantFrom('day', 'days', 'week', 'weeks'),
    fc.option(fc.tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 30, 45), fc.option(second))),
  )
  .map(([sign, n, unit, time]) => `${sign}${n} ${unit}${time === null ? '' : ` ${time[0]}:${pad(time[1])}${time[2] === null ? '' : `:${pad(time[2])}`}`}`);

describe('common date forms mean what strtotime makes of them', () => {
  it('absolute dates and times, with and without an offset, across zones and DST', () => {
    let taken = 0;
    fc.assert(
      fc.property(absoluteText, zone, anchor, (text, timezone, now) => {
        const { fast, strtotime, api } = readings(text, timezone, now);
        if (fast !== undefined) {
          taken++;
          expect(fast).toBe(strtotime);
        }
        expect(api).toBe(strtotime);
      }),
      { numRuns: 3000 },
    );
    // The fast path was taken, not left to strtotime (days past a month's end are left to it).
    expect(taken).toBeGreaterThan(2000);
  });

  it('whole days and weeks from now, with and without a time, across zones and DST', () => {
    let taken = 0;
    fc.assert(
      fc.property(relativeText, zone, anchor, (text, timezone, now) => {
        const { fast, strtotime, api } = readings(text, timezone, now);
        if (fast !== undefined) {
          taken++;
          expect(fast).toBe(strtotime);
        }
        expect(api).toBe(strtotime);
      }),
      { numRuns: 2000 },
    );
    expect(taken).toBe(2000);
  });

  it('wall clocks in DST gaps and overlaps', () => {
    const cases: Array<[string, string]> = [
      ['Europe/Berlin', '2026-03-29 02:30'],
      ['Europe/Berlin', '2026-10-25 02:30'],
      ['America/New_York', '2026-03-08 02:30'],
      ['America/New_York', '2026-11-01 01:30'],
      ['Australia/Sydney', '2026-04-05 02:30'],
      ['Australia/Sydney', '2026-10-04 02:30'],
      ['Australia/Lord_Howe', '2026-04-05 01:45'],
      ['Australia/Lord_Howe', '2026-10-04 02:15'],
      ['America/Sao_Paulo', '2018-11-04 00:00'],
      ['America/Sao_Paulo', '2018-11-04'],
      ['America/Havana', '2026-03-08'],
      ['Pacific/Chatham', '2026-09-27 02:50'],
      ['Africa/Casablanca', '2026-02-15 02:30'],
    ];
    for (const [timezone, text] of cases) {
      const { fast, strtotime } = readings(text, timezone, new Date(Date.UTC(2026, 0, 1)));
      expect(fast, `${text} in ${timezone}`).toBeDefined();
      expect(fast, `${text} in ${timezone}`).toBe(strtotime);
    }
  });

  it('month lengths and leap years; 29 February of other years is left to strtotime, which rolls it over', () => {
    const now = new Date(Date.UTC(2026, 0, 15, 12));
    for (const timezone of ['Europe/Berlin', 'UTC']) {
      for (const text of ['2024-02-29 10:00', '2000-02-29', '2026-04-30 23:59', '2026-12-31 23:59']) {
        const { fast, strtotime } = readings(text, timezone, now);
        expect(fast, text).toBeDefined();
        expect(fast, text).toBe(strtotime);
      }
      for (const text of ['2025-02-29 10:00', '2100-02-29', '2026-04-31']) {
        const { fast, api, strtotime } = readings(text, timezone, now);
        expect(fast, text).toBeUndefined();
        expect(api, text).toBe(strtotime);
        expect(api, text).not.toBeNull();
      }
    }
  });

  it('leaves every other form to strtotime', () => {
    const now = new Date(Date.UTC(2026, 4, 10, 9, 15));
    const nearMisses = [
      '2026-05-01 19:3a',
      '2026-05-01X19:30',
      '2026-05-0119:30:0',
      '2026-05-01 19:30:0x',
      '2026-05-01 19-30',
      '2026/05/01',
      '2026-5-01 19:30',
      '2026-05-01 24:00',
      '2026-05-01 19:60:00',
      '2026-13-01',
      '+026-05-01',
      '1899-12-31',
      '2201-01-01',
      '2026-05-01T10:00:00+15:00',
      '2026-05-01T10:00:00+05:60',
      '+3 days 24:00',
      '+3 days 9:60',
      '+3 months',
      '+10000 days',
    ];
    for (const text of ['tomorrow 9am', 'next monday 18:00', '+2 months 10:00', '@1767225600', 'not a date', ...nearMisses]) {
      const { fast, api, strtotime } = readings(text, 'Europe/Paris', now);
      expect(fast, text).toBeUndefined();
      expect(api, text).toBe(strtotime);
    }
  });
});
