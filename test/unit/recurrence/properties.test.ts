/**
 * Properties of the recurrence library on random series (rules of every frequency with INTERVAL,
 * BYDAY with ordinals, BYMONTHDAY with negative days, BYMONTH, BYSETPOS, WKST, COUNT or UNTIL;
 * random start dates, exdates and rdates):
 * - occurrenceDates equals ical.js's expansion of the same VEVENT, its DTSTART a DATE, a floating
 *   local date-time, or a local date-time in a zone with DST (the VEVENT's RRULE is icsRrule's, so
 *   this also checks that calendar apps end the series on its last date);
 * - splitting a series at a date keeps its occurrences: the two halves together are the original.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  icsRrule,
  occurrenceDates,
  parseRecurrence,
  RecurrenceError,
  type RecurrenceRule,
  ruleFrom,
  ruleUntilBefore,
} from '../../../src/lib/recurrence/index.js';
import { addDays, DAY_MS, dateAt, type Generated, series } from './arbitraries.js';
import { icalDates, type Start } from './oracle.js';

const RUNS = 200;
const MAX_OCCURRENCES = 1000;

/** The series parsed, or null when the library refuses it (counted: most must be accepted). */
function accepted(g: Generated, refusals: { count: number }): { rule: RecurrenceRule; startDate: string } | null {
  const startDate = dateAt(g.startOffset);
  try {
    const rule = parseRecurrence(
      { rrule: g.rrule, exdates: g.exdateOffsets.map((d) => dateAt(g.startOffset + d)), rdates: g.rdateOffsets.map((d) => dateAt(g.startOffset + d)) },
      startDate,
      { maxOccurrences: MAX_OCCURRENCES },
    );
    return { rule, startDate };
  } catch (error) {
    if (!(error instanceof RecurrenceError)) throw error;
    refusals.count++;
    return null;
  }
}

function vevent(rule: RecurrenceRule, startDate: string, start: Start): string {
  if (start.kind === 'date') return icsRrule(rule, startDate, '00:00:00', true);
  return start.kind === 'floating' ? icsRrule(rule, startDate, start.time, false) : icsRrule(rule, startDate, start.time, false, start.zone);
}

describe('recurrence properties', () => {
  it('occurrenceDates equals ical.js’s expansion of the same VEVENT', () => {
    const refusals = { count: 0 };
    fc.assert(
      fc.property(series, (g) => {
        const parsed = accepted(g, refusals);
        if (parsed === null) return;
        const { rule, startDate } = parsed;
        const ours = occurrenceDates(rule, startDate);
        const theirs = icalDates({ rrule: vevent(rule, startDate, g.start), startDate, start: g.start, exdates: rule.exdates, rdates: rule.rdates });
        expect(ours).toEqual(theirs);
      }),
      { numRuns: RUNS },
    );
    expect(refusals.count).toBeLessThan(RUNS / 4);
  });

  it('the halves of a split are the whole series', () => {
    const refusals = { count: 0 };
    let restarts = 0;
    fc.assert(
      fc.property(series, fc.nat(), fc.boolean(), (g, pick, onOccurrence) => {
        const parsed = accepted(g, refusals);
        if (parsed === null) return;
        const { rule, startDate } = parsed;
        const all = occurrenceDates(rule, startDate);
        const last = all.at(-1) as string;
        const span = (Date.parse(last) - Date.parse(startDate)) / DAY_MS;
        const date = onOccurrence ? (all[pick % all.length] as string) : addDays(startDate, pick % (span + 2));
        const first = ruleUntilBefore(rule, startDate, date);
        const before = all.filter((d) => d < date);
        const after = all.filter((d) => d >= date);
        expect(first === null ? [] : occurrenceDates(first, startDate)).toEqual(before);
        if (first === null) expect(before).toEqual([]);
        try {
          const second = ruleFrom(rule, startDate, date);
          expect(occurrenceDates(second, date)).toEqual(after);
          restarts++;
        } catch (error) {
          if (!(error instanceof RecurrenceError)) throw error;
          // Refused only when nothing remains, or when an INTERVAL counted from another start would shift the dates.
          expect(after.length === 0 || /INTERVAL=[2-9]/.test(rule.rrule)).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
    expect(refusals.count).toBeLessThan(RUNS / 4);
    expect(restarts).toBeGreaterThan(RUNS / 2);
  });
});
