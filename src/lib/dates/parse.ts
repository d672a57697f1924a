/**
 * Dates as the reference reads them (`is_time`) and interprets them for writes:
 * Unix timestamps, PHP `strtotime` phrases, wall clocks in the caller's zone.
 *
 * The common forms (`2026-05-01`, `2026-05-01 19:30[:00]`, `2026-05-01T19:30:00`, with or without
 * `Z`/`±HH:MM`; whole days or weeks from now, `+3 days 19:30`) are read directly, by the same zone
 * rules, without PHP-style parsing, which tries every format of PHP's grammar on the string. They
 * mean exactly what strtotime makes of them (test/unit/dates-fast-path.test.ts checks both agree
 * across zones, DST gaps and overlaps); everything else goes through strtotime.
 */
import { phpStrtotime } from './strtotime.js';
import {
  assertValidInstant,
  digitsAt,
  instantOfWall,
  instantOfWallMs,
  MINUTE_MS,
  offsetAt,
  utcFieldsOf,
  wallAsUtcMs,
  wallFieldsOf,
  type ZoneRules,
  zoneRules,
} from './zones.js';

export interface ParseDateOptions {
  /** Zone in which strings without an explicit offset are read (and relative phrases evaluated). */
  timezone: string;
  /** The moment relative phrases (`tomorrow 9am`, `+5 days`) count from; defaults to the current time. */
  now?: Date;
}

const MIN_YEAR = 1;
const MAX_YEAR = 9999;
// Longer inputs are not dates anyone types; the bound keeps the parser's regex scan cheap.
const MAX_INPUT_LENGTH = 256;
// PHP's is_numeric(): such strings are Unix timestamps, never strtotime() input.
const PHP_NUMERIC = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;
// A 5+ digit number joined to a date separator is a year past 9999, which the parser would otherwise
// split into a 4-digit year and leftovers (`10000-01-01` → some time in 2000). `@<timestamp>` is exempt.
const OVERLONG_DATE_PART = /(?:^|[^@\d])\d{5,}[-/]|[-/]\d{5,}/;

// ---------------------------------------------------------------------------------------------
// The common forms
// ---------------------------------------------------------------------------------------------

// Outside these years the common forms go through strtotime too (historic local mean time has
// odd-second offsets, and the forms' agreement is checked within them).
const FAST_MIN_YEAR = 1900;
const FAST_MAX_YEAR = 2200;
const MAX_ZONE_OFFSET_MINUTES = 14 * 60;

const ABSOLUTE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?(Z|[+-]\d{2}:?\d{2})?$/;
const RELATIVE_DAYS = /^([+-])(\d{1,4}) (days?|weeks?)(?: (\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysInMonth = (year: number, month: number): number =>
  month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : MONTH_DAYS[month - 1]!;

/** An absolute date's parts; `zone` is the `Z` or `±HH:MM` it ends with, if any. */
type AbsoluteParts = [year: number, month: number, day: number, hour: number, minute: number, second: number, zone?: string];

/**
 * The parts of `YYYY-MM-DD`, `YYYY-MM-DD HH:MM` or `YYYY-MM-DD HH:MM:SS` (`T` or a space between),
 * read without a regular expression (a seed load reads two a record); undefined for any other text.
 */
function plainWallParts(text: string): AbsoluteParts | undefined {
  const length = text.length;
  if (length !== 10 && length !== 16 && length !== 19) return undefined;
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return undefined; // '-'
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  if (year < 0 || month < 0 || day < 0) return undefined;
  if (length === 10) return [year, month, day, 0, 0, 0];
  const separator = text.charCodeAt(10);
  if ((separator !== 32 && separator !== 84) || text.charCodeAt(13) !== 58) return undefined; // ' ' or 'T', ':'
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  if (hour < 0 || minute < 0) return undefined;
  if (length === 16) return [year, month, day, hour, minute, 0];
  const second = text.charCodeAt(16) === 58 ? digitsAt(text, 17, 2) : -1;
  return second < 0 ? undefined : [year, month, day, hour, minute, second];
}

/** The parts of an absolute date in one of the common forms (the plain ones without a regular expression). */
function absoluteParts(text: string): AbsoluteParts | undefined {
  const plain = plainWallParts(text);
  if (plain !== undefined) return plain;
  const match = ABSOLUTE.exec(text);
  if (match === null) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', zone] = match;
  return [Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s), zone];
}

/** An absolute date in one of the common forms, as milliseconds; undefined when the text is none. */
function fastAbsolute(text: string, zone: ZoneRules): number | undefined {
  const parts = absoluteParts(text);
  if (parts === undefined) return undefined;
  const [year, month, day, hour, minute, second, named] = parts;
  // Out-of-range parts roll over in PHP (`2026-02-30` is 2 March): left to strtotime.
  if (year < FAST_MIN_YEAR || year > FAST_MAX_YEAR || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const wallMs = Date.UTC(year, month - 1, day, hour, minute, second);
  if (named === undefined) return instantOfWallMs(wallMs, zone);
  if (named === 'Z') return wallMs;
  const digits = named.replace(':', '');
  const minutes = Number(digits.slice(3, 5));
  const offset = (Number(digits.slice(1, 3)) * 60 + minutes) * (digits[0] === '-' ? -1 : 1);
  if (minutes > 59 || Math.abs(offset) > MAX_ZONE_OFFSET_MINUTES) return undefined;
  return wallMs - offset * MINUTE_MS;
}

/**
 * Whole days or weeks from now (`+3 days 19:30`, `-2 weeks 18:00`, `+12 days`), as milliseconds:
 * PHP moves the wall-clock date and sets the time given (else keeps now's wall time), then reads
 * that wall clock in the zone. Undefined when the text is none of these.
 */
function fastRelative(text: string, zone: ZoneRules, now: Date): number | undefined {
  const match = RELATIVE_DAYS.exec(text);
  if (match === null) return undefined;
  const [, sign, count, unit, h, mi, s] = match;
  if (h !== undefined && (Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59)) return undefined;
  const at = now.getTime();
  const wall = new Date(at + offsetAt(zone, at) * MINUTE_MS);
  const year = wall.getUTCFullYear();
  if (year < FAST_MIN_YEAR || year > FAST_MAX_YEAR) return undefined;
  const days = Number(count) * (unit?.startsWith('week') ? 7 : 1) * (sign === '-' ? -1 : 1);
  const wallMs = Date.UTC(
    year,
    wall.getUTCMonth(),
    wall.getUTCDate() + days,
    h === undefined ? wall.getUTCHours() : Number(h),
    h === undefined ? wall.getUTCMinutes() : Number(mi),
    h === undefined ? wall.getUTCSeconds() : Number(s ?? 0),
  );
  return instantOfWallMs(wallMs, zone);
}

/**
 * The instant of a trimmed text in one of the common forms, read in the timezone (relative ones
 * counted from `now`); undefined for any other text. What strtotime would make of it.
 */
export function commonFormInstant(text: string, timezone: string, now: Date): Date | undefined {
  const ms = commonForm(text, zoneRules(timezone), now);
  return ms === undefined ? undefined : new Date(ms);
}

// ---------------------------------------------------------------------------------------------
// PHP strtotime
// ---------------------------------------------------------------------------------------------

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
const ORDINALS: Readonly<Record<string, number>> = {
  next: 1,
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eight: 8,
  eighth: 8,
  ninth: 9,
  tenth: 10,
  eleventh: 11,
  twelfth: 12,
};
const ORDINAL_WEEKDAY =
  /\b(next|first|second|third|fourth|fifth|sixth|seventh|eighth?|ninth|tenth|eleventh|twelfth)[ \t]+(sunday|monday|tuesday|wednesday|thursday|friday|saturday|sun|mon|tue|wed|thu|fri|sat)\b/gi;

/*
 * PHP reads "next wednesday" as the first Wednesday *after* today (a week ahead when today is a
 * Wednesday); locutus returns today. "The day before that weekday, then one more day" is PHP's
 * meaning in terms locutus gets right; the N-th weekday adds N-1 weeks, as in PHP.
 */
function rewriteOrdinalWeekdays(input: string): string {
  return input.replace(ORDINAL_WEEKDAY, (_match, ordinal: string, day: string) => {
    const index = WEEKDAYS.findIndex((name) => name.startsWith(day.toLowerCase().slice(0, 3)));
    const previous = WEEKDAYS[(index + 6) % 7] as string;
    const days = 1 + 7 * ((ORDINALS[ordinal.toLowerCase()] ?? 1) - 1);
    return `${previous} +${days} days`;
  });
}

/** A trimmed text read by strtotime in the zone, relative phrases counted from `now`; null when PHP rejects it. */
function strtotimeInstant(text: string, zone: ZoneRules, now: Date): Date | null {
  const read = phpStrtotime(rewriteOrdinalWeekdays(text), wallAsUtcMs(wallFieldsOf(now, zone)));
  if (read === null) return null;
  if (read.kind === 'instant') return new Date(read.ms);
  const wall = new Date(read.wallMs);
  return Number.isNaN(wall.getTime()) ? null : instantOfWall(utcFieldsOf(wall), zone);
}

/** strtotime's reading of a trimmed text, bypassing the common forms (for the test that they agree). */
export function strtotimeOnly(text: string, timezone: string, now: Date): Date | null {
  return strtotimeInstant(text, zoneRules(timezone), now);
}

// ---------------------------------------------------------------------------------------------
// parseDateInput
// ---------------------------------------------------------------------------------------------

function withinYears(instant: Date, zone: ZoneRules): boolean {
  const utc = instant.getUTCFullYear();
  // Offsets are less than a day, so only the first and last year need the (costly) local year.
  if (utc > MIN_YEAR && utc < MAX_YEAR) return true;
  const local = wallFieldsOf(instant, zone).year;
  return local >= MIN_YEAR && local <= MAX_YEAR && utc >= MIN_YEAR && utc <= MAX_YEAR;
}

/**
 * Reads a date the way the reference accepts it (`is_time`) and interprets it for writes:
 * - a number, or a PHP-numeric string (`"1700000000"`), is a Unix timestamp in seconds;
 * - any other string goes through PHP `strtotime` semantics (locutus): `2018-01-01`, `2018-01-01 16:00:00`,
 *   ISO 8601 (`2018-01-01T16:00:00+02:00`, `…Z`), `2018-01-01 4pm`, `tomorrow 9am`, `+5 days 11am`,
 *   `next wednesday 4pm`, `yesterday 23:59`, `+24 months`, `@1700000000`…;
 * - strings without an explicit zone are wall clocks in `options.timezone`, relative phrases counted
 *   from `now`'s wall clock in that zone; an explicit offset/`Z`/`UTC`/`GMT`/abbreviation or `@ts`
 *   makes the result an absolute instant;
 * - gaps and overlaps resolve as in `wallClockToInstant`.
 * Returns null for what PHP rejects (`foo`, `"before my birthday"`, empty strings) and for years
 * outside 1-9999. Throws on an invalid `options.timezone` (validate it first).
 */
export function parseDateInput(input: string | number, options: ParseDateOptions): Date | null {
  const zone = zoneRules(options.timezone);
  const now = options.now ?? new Date();
  if (typeof input === 'string') {
    // The common forms first: none is numeric, empty or over-long, so the checks below pass them,
    // and their years are within bounds.
    const common = commonForm(input.trim(), zone, now);
    if (common !== undefined) return new Date(common);
  }
  return parseOtherForms(input, zone, now);
}

/** A common form's instant (milliseconds), undefined for any other text or when `now` is invalid. */
function commonForm(text: string, zone: ZoneRules, now: Date): number | undefined {
  if (Number.isNaN(now.getTime())) return undefined;
  return fastAbsolute(text, zone) ?? fastRelative(text, zone, now);
}

function parseOtherForms(input: string | number, zone: ZoneRules, now: Date): Date | null {
  if (typeof input === 'string' && !PHP_NUMERIC.test(input)) {
    const text = input.trim();
    if (text === '' || text.length > MAX_INPUT_LENGTH || OVERLONG_DATE_PART.test(text)) return null;
    assertValidInstant(now);
    const read = strtotimeInstant(text, zone, now);
    if (read === null || Number.isNaN(read.getTime()) || !withinYears(read, zone)) return null;
    return read;
  }
  const seconds = Number(input);
  if (!Number.isFinite(seconds)) return null;
  const instant = new Date(Math.floor(seconds) * 1000);
  if (Number.isNaN(instant.getTime()) || !withinYears(instant, zone)) return null;
  return instant;
}
