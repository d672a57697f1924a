/**
 * The seed loader's fast date paths must mean exactly what the API's parser means: every form they
 * take is compared with `parseDateInput` over many zones (DST gaps and overlaps, half-hour and
 * 45-minute offsets, southern-hemisphere DST) and anchors.
 */
import { IANAZone } from 'luxon';
import { describe, expect, it } from 'vitest';
import { parseDateInput } from '../../src/lib/dates.js';
import { formattedOffset, isRelativeDate, offsetFormat, resolveSeedDate } from '../../src/cli/seed-dates.js';
import { random } from '../helpers/random.js';

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'Europe/London',
  'America/New_York',
  'America/Sao_Paulo',
  'America/St_Johns',
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
  'Pacific/Chatham',
  'Africa/Casablanca',
  'UTC+5.5',
];


const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const same = (raw: string, zone: string, anchor: Date) => {
  const expected = parseDateInput(raw, { timezone: zone, now: anchor });
  const actual = resolveSeedDate(raw, zone, anchor);
  return { raw, zone, anchor: anchor.toISOString(), expected: expected?.toISOString() ?? null, actual: actual?.toISOString() ?? null };
};

describe('seed dates', () => {
  it('read absolute dates as parseDateInput does', () => {
    const next = random(1);
    const mismatches = [];
    for (let i = 0; i < 4000; i++) {
      const zone = ZONES[i % ZONES.length] as string;
      const year = 1950 + Math.floor(next() * 200);
      const month = 1 + Math.floor(next() * 12);
      const day = 1 + Math.floor(next() * 31);
      // Night hours are over-sampled: DST changes happen there.
      const hour = next() < 0.5 ? Math.floor(next() * 4) : Math.floor(next() * 24);
      const minute = [0, 15, 30, 45, 59][Math.floor(next() * 5)] as number;
      const date = `${year}-${pad(month)}-${pad(day)}`;
      const forms = [
        date,
        `${date} ${pad(hour)}:${pad(minute)}`,
        `${date} ${pad(hour)}:${pad(minute)}:${pad(Math.floor(next() * 60))}`,
        `${date}T${pad(hour)}:${pad(minute)}:00`,
        `${date}T${pad(hour)}:${pad(minute)}:00Z`,
        `${date}T${pad(hour)}:${pad(minute)}:00+05:30`,
        `${date} ${pad(hour)}:${pad(minute)}-0300`,
      ];
      for (const raw of forms) {
        const result = same(raw, zone, new Date(Date.UTC(2026, 0, 15, 12)));
        if (result.expected !== result.actual) mismatches.push(result);
      }
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it('knows month lengths and leap years as parseDateInput does (which rolls 29 February over in other years)', () => {
    const anchor = new Date(Date.UTC(2026, 0, 15, 12));
    const raws = ['2024-02-29 10:00', '2025-02-29 10:00', '2000-02-29', '2100-02-29', '2026-04-31', '2026-04-30 23:59', '2026-12-31 23:59'];
    const results = raws.flatMap((raw) => ['Europe/Berlin', 'UTC'].map((zone) => same(raw, zone, anchor)));
    expect(results.filter((r) => r.expected !== r.actual)).toEqual([]);
    expect(results.every((r) => r.actual !== null)).toBe(true);
  });

  it('reads wall clocks in DST gaps and overlaps as parseDateInput does', () => {
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
      ['Pacific/Chatham', '2026-09-27 02:50'],
      ['Africa/Casablanca', '2026-02-15 02:30'],
    ];
    for (const [zone, raw] of cases) {
      const result = same(raw, zone, new Date(Date.UTC(2026, 0, 1)));
      expect(result.actual, `${raw} in ${zone}`).toBe(result.expected);
    }
  });

  it('counts whole days and weeks from the anchor as parseDateInput does', () => {
    const next = random(2);
    const mismatches = [];
    for (let i = 0; i < 4000; i++) {
      const zone = ZONES[i % ZONES.length] as string;
      // Anchors over a few years, many of them near a DST change (late March/October, early April/November).
      const anchor = new Date(Date.UTC(2024 + Math.floor(next() * 4), Math.floor(next() * 12), 1 + Math.floor(next() * 28), Math.floor(next() * 24), Math.floor(next() * 60), Math.floor(next() * 60)));
      const n = Math.floor(next() * 400);
      const sign = next() < 0.8 ? '+' : '-';
      const unit = ['day', 'days', 'week', 'weeks'][Math.floor(next() * 4)] as string;
      const time = next() < 0.7 ? ` ${Math.floor(next() * 24)}:${pad([0, 30, 45][Math.floor(next() * 3)] as number)}` : '';
      const result = same(`${sign}${n} ${unit}${time}`, zone, anchor);
      if (result.expected !== result.actual) mismatches.push(result);
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it('leaves every other form to parseDateInput', () => {
    const anchor = new Date(Date.UTC(2026, 4, 10, 9, 15));
    const nearMisses = ['2026-05-01 19:3a', '2026-05-01X19:30', '2026-05-0119:30:0', '2026-05-01 19:30:0x', '2026-05-01 19-30', '2026/05/01', '2026-5-01 19:30', '2026-05-01 24:00', '2026-05-01 19:60:00', '2026-13-01', '+026-05-01'];
    for (const raw of ['tomorrow 9am', 'next monday 18:00', '+2 months 10:00', '2026-02-30', '@1767225600', '1767225600', 'not a date', ...nearMisses]) {
      const result = same(raw, 'Europe/Paris', anchor);
      expect(result.actual, raw).toBe(result.expected);
    }
    expect(resolveSeedDate(1767225600, 'Europe/Paris', anchor)?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  it('tells relative dates from absolute ones', () => {
    expect(isRelativeDate('+3 days 19:30', 'UTC')).toBe(true);
    expect(isRelativeDate('tomorrow', 'UTC')).toBe(true);
    expect(isRelativeDate('2026-05-01 10:00', 'Europe/Berlin')).toBe(false);
    expect(isRelativeDate('1 May 2026 10:00', 'Europe/Berlin')).toBe(false);
    expect(isRelativeDate(1767225600, 'UTC')).toBe(false);
  });

  it("reads a zone's offset from its formatted wall clock exactly as luxon computes it, in every zone this Node knows", () => {
    const next = random(7);
    const YEAR_MS = 365.2425 * 86_400_000;
    const mismatches: string[] = [];
    let read = 0;
    for (const zone of Intl.supportedValuesOf('timeZone')) {
      const format = offsetFormat(zone);
      const luxon = IANAZone.create(zone);
      // Random instants from 1900 to 2200 (before 1970 too, at odd seconds); in the zones above, also
      // every quarter hour of the months with 2026's transitions.
      const instants = Array.from({ length: 60 }, () => Math.floor(Date.UTC(1900, 0, 1) + next() * 300 * YEAR_MS));
      if (ZONES.includes(zone)) {
        for (const month of [1, 2, 3, 8, 9, 10]) for (let ms = Date.UTC(2026, month, 1); ms < Date.UTC(2026, month + 1, 1); ms += 15 * 60_000) instants.push(ms);
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
