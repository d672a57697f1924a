/**
 * Expansion of a series into its local dates, and the validation of a new recurrence (which
 * expands it to count its occurrences).
 */
import rrulePkg, { type Options } from 'rrule';
import { addDays, addYears, dateToUtc, isIsoDate, normaliseDates, RecurrenceError, sortedUnion, utcToDate } from './dates.js';
import { parseRule, type RuleParts, ruleText, rruleOptions } from './rule.js';

const { RRule } = rrulePkg;

/** The stored form of a recurrence: canonical RRULE text and sorted, unique local dates. */
export interface RecurrenceRule {
  rrule: string;
  exdates: string[];
  rdates: string[];
}

/** A recurrence as the API takes it. */
export interface RecurrenceInput {
  rrule: string;
  exdates?: string[];
  rdates?: string[];
}

/** At most this many exdates, and as many rdates. */
export const MAX_DATE_LIST = 1000;
/**
 * A series ends within this many years of its start: a bound on what one series may cost to
 * expand (see expansionOptions).
 */
export const HORIZON_YEARS = 100;

/** Throws unless `date` is a valid `YYYY-MM-DD`. */
export function checkDate(date: string, what: string): void {
  if (typeof date !== 'string' || !isIsoDate(date)) {
    throw new RecurrenceError(`recurrence: the ${what} ${JSON.stringify(date)} is not a date (YYYY-MM-DD).`);
  }
}

export interface RuleDates {
  dates: string[];
  /** True when the expansion stopped at `cap` dates, more following. */
  capped: boolean;
}

/** The Gregorian calendar repeats every 400 years to the weekday (146,097 days, 20,871 weeks). */
const CYCLE_YEARS = 400;
/** rrule.js's last year. */
const MAX_YEAR = 9999;

/** The date `years` later; `years` is a whole number of calendar cycles, so month and day stay. */
const shiftYears = (date: string, years: number): string => `${String(Number(date.slice(0, 4)) + years).padStart(4, '0')}${date.slice(4)}`;

/**
 * rrule.js's options for expanding the parts from `start` to `last`. A rule that stops matching
 * makes rrule.js search on, period by period, up to the year 9999 (UNTIL and COUNT are only
 * checked on a match), so the caller expands the rule moved by whole calendar cycles to end near
 * that year: the search past the end then covers at most a cycle and the horizon. FREQ=DAILY
 * without INTERVAL or BYSETPOS is expanded as the same days taken weekly, which rrule.js searches
 * a week at a time.
 */
function expansionOptions(parts: RuleParts, start: string, last: string): Partial<Options> {
  const options: Partial<Options> = { ...rruleOptions(parts), dtstart: dateToUtc(start), until: dateToUtc(last) };
  const plain = parts.byDay.filter((by) => by.n === 0);
  if (plain.length > 0 && plain.length < parts.byDay.length) {
    // rrule.js takes the weekdays with an ordinal and those without as two filters that must both
    // hold, where RFC 5545 lists days that each match: a plain weekday is written as all its ordinals.
    const most = parts.freq === 'MONTHLY' || parts.byMonth.length > 0 ? 5 : 53;
    const ordinals = Array.from({ length: most }, (_, i) => i + 1);
    const days = parts.byDay.flatMap((by) => (by.n === 0 ? ordinals.map((n) => ({ n, day: by.day })) : [by]));
    options.byweekday = rruleOptions({ ...parts, byDay: days }).byweekday ?? null;
  }
  if (parts.freq === 'DAILY' && parts.interval === 1 && parts.bySetPos.length === 0) {
    options.freq = RRule.WEEKLY;
    if (parts.byDay.length === 0) options.byweekday = [RRule.MO, RRule.TU, RRule.WE, RRule.TH, RRule.FR, RRule.SA, RRule.SU];
  }
  return options;
}

/**
 * The dates the rule itself yields from `startDate`, ascending, up to `to` (inclusive) and at most
 * `cap` of them. The start date is always the first (RFC 5545: DTSTART is the first instance,
 * whether or not the rule matches it) and counts toward COUNT; rrule.js leaves out a start date
 * the rule does not match, so it is put back here. COUNT is counted here too: rrule.js yields a
 * date twice when two BYSETPOS positions pick the same day, and counts it twice.
 */
export function ruleDates(parts: RuleParts, startDate: string, cap: number, to?: string): RuleDates {
  let last = parts.until?.date ?? addYears(startDate, HORIZON_YEARS);
  if (to !== undefined && to < last) last = to;
  if (last < startDate) return { dates: [], capped: false };
  const startYear = Number(startDate.slice(0, 4));
  const shift = CYCLE_YEARS * Math.floor((MAX_YEAR - HORIZON_YEARS - startYear) / CYCLE_YEARS);
  const dates: string[] = [startDate];
  // One more than the cap: telling "exactly cap" from "more than cap" needs a look past it.
  const want = Math.min(cap + 1, parts.count ?? Number.POSITIVE_INFINITY);
  if (want <= 1) return { dates: dates.slice(0, cap), capped: cap < 1 };
  const rule = new RRule(expansionOptions(parts, shiftYears(startDate, shift), shiftYears(last, shift)));
  rule.all((at) => {
    const date = shiftYears(utcToDate(at), -shift);
    if (date !== dates.at(-1)) dates.push(date);
    return dates.length < want;
  });
  const capped = dates.length > cap;
  return { dates: capped ? dates.slice(0, cap) : dates, capped };
}

/** The set: rule dates and rdates, less the exdates, ascending. */
export function combine(ruleDateList: readonly string[], rule: Pick<RecurrenceRule, 'exdates' | 'rdates'>): string[] {
  const excluded = new Set(rule.exdates);
  return sortedUnion(ruleDateList, rule.rdates).filter((date) => !excluded.has(date));
}

/** Every occurrence date ascending, optionally only those within [from, to] (inclusive). */
export function occurrenceDates(rule: RecurrenceRule, startDate: string, range: { from?: string; to?: string } = {}): string[] {
  checkDate(startDate, 'start date');
  const parts = parseRule(rule.rrule);
  const { dates } = ruleDates(parts, startDate, Number.POSITIVE_INFINITY, range.to);
  const all = combine(dates, rule);
  const { from, to } = range;
  return all.filter((date) => (from === undefined || date >= from) && (to === undefined || date <= to));
}

function checkEnd(parts: RuleParts, startDate: string): void {
  const horizon = addYears(startDate, HORIZON_YEARS);
  if (parts.until !== null && parts.until.date < startDate) {
    throw new RecurrenceError(`recurrence: UNTIL (${parts.until.date}) is before the start date (${startDate}).`);
  }
  if (parts.until !== null && parts.until.date > horizon) {
    throw new RecurrenceError(`recurrence: UNTIL (${parts.until.date}) must be within ${HORIZON_YEARS} years of the start date.`);
  }
}

/** Validates and normalises a recurrence for a series starting on `startDate`. Throws a RecurrenceError. */
export function parseRecurrence(input: RecurrenceInput, startDate: string, options: { maxOccurrences: number }): RecurrenceRule {
  checkDate(startDate, 'start date');
  if (typeof input !== 'object' || input === null) throw new RecurrenceError('recurrence: expected an object with an rrule.');
  const parts = parseRule(input.rrule);
  checkEnd(parts, startDate);
  const exdates = normaliseDates(input.exdates, 'EXDATE', MAX_DATE_LIST);
  const rdates = normaliseDates(input.rdates, 'RDATE', MAX_DATE_LIST);
  const early = rdates.find((date) => date < startDate);
  if (early !== undefined) throw new RecurrenceError(`recurrence: RDATE ${early} is before the start date (${startDate}).`);
  const max = options.maxOccurrences;
  const tooMany = `recurrence: the series has more than ${max} occurrences (the most allowed).`;
  // Each exdate removes at most one rule date: a rule with more than max + exdates dates is too long.
  const cap = max + exdates.length;
  if (parts.count !== null && parts.count > cap) throw new RecurrenceError(tooMany);
  const expansion = ruleDates(parts, startDate, cap);
  if (expansion.capped) throw new RecurrenceError(tooMany);
  if (parts.count !== null && expansion.dates.length < parts.count) {
    throw new RecurrenceError(`recurrence: the rule does not reach COUNT=${parts.count} occurrences within ${HORIZON_YEARS} years.`);
  }
  const rule: RecurrenceRule = { rrule: ruleText(parts), exdates, rdates };
  const count = combine(expansion.dates, rule).length;
  if (count > max) throw new RecurrenceError(tooMany);
  if (count === 0) throw new RecurrenceError('recurrence: the series has no occurrence (every date is excluded).');
  return rule;
}

/** The day before a date (the last day of the first half of a split). */
export const dayBefore = (date: string): string => addDays(date, -1);
