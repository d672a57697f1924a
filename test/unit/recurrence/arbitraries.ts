/**
 * Random series for the properties: rules of every frequency with INTERVAL, BYDAY with ordinals,
 * BYMONTHDAY with negative days, BYMONTH, BYSETPOS, WKST, COUNT or UNTIL; start dates from 2019
 * on, with exdates and rdates, and the form of the VEVENT's DTSTART.
 */
import fc from 'fast-check';
import { type Start } from './oracle.js';

export const DAY_MS = 86_400_000;
const BASE = Date.UTC(2019, 0, 1);
const DAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Sydney'];
/** Times in the DST gap (02:30 in Berlin and New York in spring) and overlap (01:30 in New York in autumn) among them. */
const TIMES = ['00:15:00', '01:30:00', '02:30:00', '10:00:00', '23:30:00'];

export const dateAt = (offset: number): string => new Date(BASE + offset * DAY_MS).toISOString().slice(0, 10);
export const addDays = (date: string, days: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** Present about one time in three: rules with many BY… parts are sparse, and ical.js searches them slowly. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.oneof({ arbitrary: fc.constant(null), weight: 2 }, { arbitrary, weight: 1 });

const ordinalDay = (maxOrdinal: number): fc.Arbitrary<string> =>
  fc
    .tuple(fc.oneof(fc.constant(0), fc.integer({ min: -maxOrdinal, max: maxOrdinal })), fc.constantFrom(...DAYS))
    .map(([n, day]) => (n === 0 ? day : `${n}${day}`));

export interface Generated {
  rrule: string;
  startOffset: number;
  exdateOffsets: number[];
  rdateOffsets: number[];
  start: Start;
}

const ruleText = fc
  .record({
    freq: fc.constantFrom('DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'),
    interval: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 4 })),
    byDayPlain: sometimes(fc.uniqueArray(fc.constantFrom(...DAYS), { minLength: 1, maxLength: 3 })),
    // One item per weekday: ical.js counts a day twice toward COUNT when two items (MO and -1MO) pick it.
    byDayOrdinal: sometimes(fc.uniqueArray(ordinalDay(5), { minLength: 1, maxLength: 3, selector: (item) => item.slice(-2) })),
    byMonthDay: sometimes(
      fc.uniqueArray(
        fc.integer({ min: -31, max: 31 }).filter((n) => n !== 0),
        { minLength: 1, maxLength: 3 },
      ),
    ),
    byMonth: sometimes(fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 4 })),
    bySetPos: sometimes(
      fc.uniqueArray(
        fc.integer({ min: -3, max: 3 }).filter((n) => n !== 0),
        { minLength: 1, maxLength: 2 },
      ),
    ),
    wkst: sometimes(fc.constantFrom(...DAYS)),
    end: fc.oneof(
      fc.integer({ min: 1, max: 40 }).map((count) => ({ count, untilDays: 0, untilForm: '' })),
      fc.record({ count: fc.constant(0), untilDays: fc.integer({ min: 0, max: 900 }), untilForm: fc.constantFrom('', 'T120000', 'T235959Z') }),
    ),
    startOffset: fc.integer({ min: 3, max: 4000 }),
  })
  .map((g) => {
    const parts = [`FREQ=${g.freq}`];
    if (g.interval !== 1) parts.push(`INTERVAL=${g.interval}`);
    const ordinals = g.freq === 'MONTHLY' || g.freq === 'YEARLY';
    const byDay = ordinals ? (g.byDayOrdinal ?? g.byDayPlain) : g.byDayPlain;
    if (byDay !== null) parts.push(`BYDAY=${byDay.join(',')}`);
    // ical.js does not check the first instance of a weekly or monthly rule against BYMONTH.
    const byMonth = g.freq === 'DAILY' || g.freq === 'YEARLY' ? g.byMonth : null;
    // Negative days for monthly rules only: ical.js loops forever on a daily rule with one, and
    // takes the last day of January for the 30th in a yearly rule. And days 1…28 for yearly rules
    // (their start dates too): ical.js rolls a yearly September 31st over to October 1st.
    const yearly = g.freq === 'YEARLY';
    const byMonthDay = g.freq === 'MONTHLY' ? g.byMonthDay : g.byMonthDay?.map((n) => (yearly ? (Math.abs(n) % 28) + 1 : Math.abs(n)));
    const startDay = Number(dateAt(g.startOffset).slice(8));
    const startOffset = yearly && startDay > 28 ? g.startOffset - 3 : g.startOffset;
    // ical.js refuses some monthly rules with both BYDAY and BYMONTHDAY ("Malformed values in
    // BYDAY part"), and takes seconds over yearly ones (a few days a decade): only daily rules get both.
    const withByDay = g.freq !== 'DAILY' && byDay !== null;
    // A yearly BYMONTHDAY without BYMONTH is that day of every month (RFC 5545); ical.js takes DTSTART's month only.
    const yearlyAlone = g.freq === 'YEARLY' && byMonth === null;
    if (byMonthDay != null && g.freq !== 'WEEKLY' && !withByDay && !yearlyAlone) parts.push(`BYMONTHDAY=${[...new Set(byMonthDay)].join(',')}`);
    if (byMonth !== null) parts.push(`BYMONTH=${byMonth.join(',')}`);
    // ical.js applies BYSETPOS right to monthly rules without INTERVAL only: it picks wrong days in
    // a weekly rule or a monthly one with INTERVAL, ignores BYSETPOS in a yearly one (or takes its
    // positions in each month), and may loop forever on a daily one; it also takes positions in
    // the order of the BYMONTHDAY list when that holds negative days. The unit tests hold those.
    const setPosRight = g.freq === 'MONTHLY' && g.interval === 1 && !(byMonthDay ?? []).some((n) => n < 0);
    if (g.bySetPos !== null && parts.length > 2 && setPosRight) parts.push(`BYSETPOS=${g.bySetPos.join(',')}`);
    if (g.wkst !== null) parts.push(`WKST=${g.wkst}`);
    if (g.end.count > 0) parts.push(`COUNT=${g.end.count}`);
    else parts.push(`UNTIL=${dateAt(startOffset + g.end.untilDays).replaceAll('-', '')}${g.end.untilForm}`);
    return { rrule: parts.join(';'), startOffset };
  });

const startForm: fc.Arbitrary<Start> = fc.oneof(
  fc.constant<Start>({ kind: 'date' }),
  fc.constantFrom(...TIMES).map((time): Start => ({ kind: 'floating', time })),
  fc.tuple(fc.constantFrom(...TIMES), fc.constantFrom(...ZONES)).map(([time, zone]): Start => ({ kind: 'zoned', time, zone })),
);

export const series: fc.Arbitrary<Generated> = fc
  .tuple(
    ruleText,
    fc.uniqueArray(fc.integer({ min: 0, max: 500 }), { maxLength: 4 }),
    fc.uniqueArray(fc.integer({ min: 0, max: 500 }), { maxLength: 3 }),
    startForm,
  )
  .map(([rule, exdateOffsets, rdateOffsets, start]) => ({ ...rule, exdateOffsets, rdateOffsets, start }));
