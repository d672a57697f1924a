/**
 * RRULE text ↔ the rule's parts. The parser is strict where rrule.js is lenient (it accepts
 * `COUNT=abc` or `BYDAY=XX` and expands something): every part is checked here against RFC 5545
 * and this module's model (index.ts), so what rrule.js is given always means what the text says.
 */
import rrulePkg, { type Options, type Weekday } from 'rrule';
import { compactDate, isIsoDate, RecurrenceError } from './dates.js';

// rrule's CommonJS bundle exposes its exports on the default export only.
const { RRule } = rrulePkg;

export type Frequency = 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY';
/** Weekday codes in rrule.js's order (0 = Monday). */
export const DAY_CODES = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;

export interface ByDay {
  /** The ordinal (2 = 2nd, -1 = last), 0 for every such weekday. */
  n: number;
  /** 0 = Monday … 6 = Sunday. */
  day: number;
}

export interface RuleParts {
  freq: Frequency;
  interval: number;
  count: number | null;
  /** The last local date (inclusive) and whether the text gave it as a DATE; its time of day, if any, as written. */
  until: { date: string; time: string | null } | null;
  byMonth: number[];
  byWeekNo: number[];
  byYearDay: number[];
  byMonthDay: number[];
  byDay: ByDay[];
  bySetPos: number[];
  /** 0 = Monday … 6 = Sunday; null when not given (Monday). */
  wkst: number | null;
}

const FREQUENCIES: readonly string[] = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'];
const SUB_DAILY: readonly string[] = ['SECONDLY', 'MINUTELY', 'HOURLY'];
const TIME_PARTS: readonly string[] = ['BYHOUR', 'BYMINUTE', 'BYSECOND'];
const KNOWN_PARTS: readonly string[] = [
  'FREQ',
  'INTERVAL',
  'COUNT',
  'UNTIL',
  'BYMONTH',
  'BYWEEKNO',
  'BYYEARDAY',
  'BYMONTHDAY',
  'BYDAY',
  'BYSETPOS',
  'WKST',
  ...TIME_PARTS,
];
const MAX_INTERVAL = 1000;
const INTEGER = /^[+-]?\d{1,6}$/;
const UNTIL_VALUE = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?$/;
const BYDAY_VALUE = /^([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/;

const refuse = (sentence: string): never => {
  throw new RecurrenceError(`recurrence: ${sentence}`);
};

/** The `NAME=VALUE` parts of RRULE text, names and values upper-cased. */
function splitParts(text: string): Map<string, string> {
  const body = text.trim().replace(/^RRULE:/i, '');
  if (/[\r\n]/.test(body)) refuse('the rule must be a single RRULE line.');
  if (/DTSTART/i.test(body)) refuse('DTSTART is not allowed in the rule: the series starts on the event’s start date.');
  if (/TZID/i.test(body)) refuse('TZID is not allowed in the rule: the series uses the event’s time zone.');
  const parts = new Map<string, string>();
  for (const piece of body.split(';')) {
    if (piece.trim() === '') continue;
    const [name, value, extra] = piece.split('=').map((side) => side.trim().toUpperCase());
    if (name === undefined || name === '' || value === undefined || value === '' || extra !== undefined) {
      refuse(`${JSON.stringify(piece)} is not a NAME=VALUE rule part.`);
    }
    const key = name as string;
    if (!KNOWN_PARTS.includes(key)) refuse(`unknown rule part ${key}.`);
    if (parts.has(key)) refuse(`${key} is given twice.`);
    parts.set(key, value as string);
  }
  return parts;
}

function integer(name: string, text: string, min: number, max: number, allowNegative: boolean): number {
  const value = INTEGER.test(text) ? Number(text) : Number.NaN;
  const magnitude = Math.abs(value);
  if (!Number.isInteger(value) || magnitude < min || magnitude > max || (value < 0 && !allowNegative)) {
    const range = allowNegative ? `${min}…${max} or -${max}…-${min}` : `${min}…${max}`;
    refuse(`${name}=${text} is not valid: expected ${range}.`);
  }
  return value;
}

const integers = (name: string, text: string | undefined, min: number, max: number, allowNegative: boolean): number[] =>
  text === undefined ? [] : text.split(',').map((item) => integer(name, item, min, max, allowNegative));

function untilOf(text: string): RuleParts['until'] {
  const match = UNTIL_VALUE.exec(text);
  const date = match === null ? '' : `${match[1]}-${match[2]}-${match[3]}`;
  if (match === null || !isIsoDate(date)) return refuse(`UNTIL=${text} is not valid: expected YYYYMMDD or YYYYMMDDTHHMMSS[Z].`);
  if (match[4] === undefined) return { date, time: null };
  if (Number(match[4]) > 23 || Number(match[5]) > 59 || Number(match[6]) > 59) refuse(`UNTIL=${text} has no valid time of day.`);
  return { date, time: `${match[4]}${match[5]}${match[6]}` };
}

function byDayOf(text: string | undefined, freq: Frequency, hasWeekNo: boolean): ByDay[] {
  if (text === undefined) return [];
  return text.split(',').map((item) => {
    const match = BYDAY_VALUE.exec(item);
    if (match === null) return refuse(`BYDAY=${text} is not valid: expected weekdays such as MO, 2TU or -1FR.`);
    const n = match[1] === undefined ? 0 : Number(match[1]);
    if (n !== 0) {
      const max = freq === 'MONTHLY' ? 5 : 53;
      if ((freq !== 'MONTHLY' && freq !== 'YEARLY') || hasWeekNo) {
        refuse(`BYDAY=${text}: an ordinal weekday needs FREQ=MONTHLY or FREQ=YEARLY without BYWEEKNO.`);
      }
      if (Math.abs(n) > max) refuse(`BYDAY=${text}: the ordinal must be 1…${max} or -${max}…-1.`);
    }
    return { n, day: DAY_CODES.indexOf(match[2] as (typeof DAY_CODES)[number]) };
  });
}

function frequencyOf(value: string | undefined): Frequency {
  if (value === undefined) return refuse('FREQ is required (DAILY, WEEKLY, MONTHLY or YEARLY).');
  if (SUB_DAILY.includes(value)) refuse(`FREQ=${value} is not supported: at most one occurrence per day.`);
  if (!FREQUENCIES.includes(value)) refuse(`FREQ=${value} is not valid: expected DAILY, WEEKLY, MONTHLY or YEARLY.`);
  return value as Frequency;
}

/** The combinations RFC 5545 (and ical.js, which calendar apps resemble) do not allow. */
function checkCombinations(parts: RuleParts): void {
  const { freq } = parts;
  if (parts.byMonthDay.length > 0 && freq === 'WEEKLY') refuse('BYMONTHDAY is not allowed with FREQ=WEEKLY.');
  if (parts.byYearDay.length > 0 && freq !== 'YEARLY') refuse('BYYEARDAY needs FREQ=YEARLY.');
  if (parts.byWeekNo.length > 0 && freq !== 'YEARLY') refuse('BYWEEKNO needs FREQ=YEARLY.');
  if (parts.byYearDay.length > 0 && (parts.byMonth.length > 0 || parts.byWeekNo.length > 0 || parts.byMonthDay.length > 0)) {
    refuse('BYYEARDAY cannot be combined with BYMONTH, BYWEEKNO or BYMONTHDAY.');
  }
  if (parts.byWeekNo.length > 0 && parts.byMonthDay.length > 0) refuse('BYWEEKNO cannot be combined with BYMONTHDAY.');
  const others = parts.byMonth.length + parts.byWeekNo.length + parts.byYearDay.length + parts.byMonthDay.length + parts.byDay.length;
  if (parts.bySetPos.length > 0 && others === 0) refuse('BYSETPOS needs another BY… rule part to pick from.');
  if (parts.count !== null && parts.until !== null) refuse('COUNT and UNTIL cannot both be given.');
  if (parts.count === null && parts.until === null) {
    refuse('the rule must end: give COUNT or UNTIL (every occurrence is listed, so a series cannot be endless).');
  }
}

/** The parts of RRULE text (with or without `RRULE:`, any case). Throws a RecurrenceError. */
export function parseRule(text: string): RuleParts {
  if (typeof text !== 'string' || text.trim() === '') return refuse('the rule (RRULE) is missing.');
  const raw = splitParts(text);
  for (const name of TIME_PARTS) {
    if (raw.has(name)) refuse(`${name} is not supported: the time of day is the event’s start time.`);
  }
  const freq = frequencyOf(raw.get('FREQ'));
  const wkst = raw.get('WKST');
  const byWeekNo = integers('BYWEEKNO', raw.get('BYWEEKNO'), 1, 53, true);
  const parts: RuleParts = {
    freq,
    interval: raw.has('INTERVAL') ? integer('INTERVAL', raw.get('INTERVAL') as string, 1, MAX_INTERVAL, false) : 1,
    count: raw.has('COUNT') ? integer('COUNT', raw.get('COUNT') as string, 1, 999_999, false) : null,
    until: raw.has('UNTIL') ? untilOf(raw.get('UNTIL') as string) : null,
    byMonth: integers('BYMONTH', raw.get('BYMONTH'), 1, 12, false),
    byWeekNo,
    byYearDay: integers('BYYEARDAY', raw.get('BYYEARDAY'), 1, 366, true),
    byMonthDay: integers('BYMONTHDAY', raw.get('BYMONTHDAY'), 1, 31, true),
    byDay: byDayOf(raw.get('BYDAY'), freq, byWeekNo.length > 0),
    bySetPos: integers('BYSETPOS', raw.get('BYSETPOS'), 1, 366, true),
    wkst: wkst === undefined ? null : DAY_CODES.indexOf(wkst as (typeof DAY_CODES)[number]),
  };
  if (parts.wkst === -1) refuse(`WKST=${wkst} is not valid: expected MO…SU.`);
  checkCombinations(parts);
  return parts;
}

const weekday = (by: ByDay): Weekday => {
  const day = RRule[DAY_CODES[by.day] as (typeof DAY_CODES)[number]];
  return by.n === 0 ? day : day.nth(by.n);
};

/** rrule.js's options for the parts (UNTIL and COUNT left to the caller), in the canonical order of the text. */
export function rruleOptions(parts: RuleParts): Partial<Options> {
  const options: Partial<Options> = { freq: RRule[parts.freq] };
  if (parts.interval !== 1) options.interval = parts.interval;
  if (parts.wkst !== null && parts.wkst !== 0) options.wkst = parts.wkst;
  if (parts.byMonth.length > 0) options.bymonth = parts.byMonth;
  if (parts.byWeekNo.length > 0) options.byweekno = parts.byWeekNo;
  if (parts.byYearDay.length > 0) options.byyearday = parts.byYearDay;
  if (parts.byMonthDay.length > 0) options.bymonthday = parts.byMonthDay;
  if (parts.byDay.length > 0) options.byweekday = parts.byDay.map(weekday);
  if (parts.bySetPos.length > 0) options.bysetpos = parts.bySetPos;
  return options;
}

/**
 * The canonical RRULE value (no `RRULE:` prefix) as rrule.js writes the parts, then COUNT or
 * UNTIL. UNTIL is given as `until` says: a DATE `YYYYMMDD`, or a date-time `YYYYMMDDTHHMMSS[Z]`.
 */
export function ruleText(parts: RuleParts, until: string | null = defaultUntil(parts)): string {
  const body = RRule.optionsToString(rruleOptions(parts)).replace(/^RRULE:/, '');
  if (parts.count !== null) return `${body};COUNT=${parts.count}`;
  return until === null ? body : `${body};UNTIL=${until}`;
}

/** UNTIL as stored: a DATE when given as one, else the date-time as rrule.js writes it (UTC form). */
function defaultUntil(parts: RuleParts): string | null {
  if (parts.until === null) return null;
  const date = compactDate(parts.until.date);
  return parts.until.time === null ? date : `${date}T${parts.until.time}Z`;
}
