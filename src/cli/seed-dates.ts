/**
 * Dates of seed records. The loader resolves every event date itself and hands the services a Unix
 * timestamp, which they read as exactly that instant — so relative phrases are counted from the
 * anchor the loader chooses (see seed-loader.ts), not from whenever the service runs.
 *
 * The common absolute forms (`2026-05-01`, `2026-05-01 19:30[:00]`, `2026-05-01T19:30:00`, with or
 * without `Z`/`±HH:MM`) and whole days or weeks from the anchor (`+3 days 19:30`) are converted here
 * without PHP-style parsing, which costs ~0.2 ms a date and would dominate a large load; everything
 * else goes through the API's own `parseDateInput`.
 * test/cli/seed-dates.test.ts checks that both agree on every form this fast path takes, DST gaps and
 * overlaps included.
 */
import { IANAZone } from 'luxon';
import { isValidTimezone, parseDateInput } from '../lib/dates.js';

const ABSOLUTE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?(Z|[+-]\d{2}:?\d{2})?$/;
const UTC_OFFSET = /^UTC(?:[+-]|$)/;
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
// Outside these years the fast path steps aside (historic local mean time has odd-second offsets).
const FAST_MIN_YEAR = 1900;
const FAST_MAX_YEAR = 2200;

/**
 * A zone's UTC offset (minutes) at an instant, as luxon's `IANAZone.offset` computes it (the zone's
 * wall clock read back as UTC, less the instant to the second), from `Intl.DateTimeFormat.format`:
 * ~2 µs a call against luxon's ~11 µs through `formatToParts`. Null when the text is not the
 * `MM/DD/YYYY, HH:MM:SS` expected (another ICU), and luxon answers instead.
 */
export function formattedOffset(format: Intl.DateTimeFormat, ms: number): number | null {
  const text = format.format(ms);
  if (text.length !== 20 || text.charCodeAt(2) !== 47 || text.charCodeAt(5) !== 47 || text.charCodeAt(10) !== 44 || text.charCodeAt(14) !== 58 || text.charCodeAt(17) !== 58) {
    return null;
  }
  const month = digitsAt(text, 0, 2);
  const day = digitsAt(text, 3, 2);
  const year = digitsAt(text, 6, 4);
  const hour = digitsAt(text, 12, 2);
  const minute = digitsAt(text, 15, 2);
  const second = digitsAt(text, 18, 2);
  if (month < 0 || day < 0 || year < 0 || hour < 0 || minute < 0 || second < 0) return null;
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const over = ms % 1000;
  return (wall - (ms - (over >= 0 ? over : 1000 + over))) / MINUTE_MS;
}

/** The format `formattedOffset` reads a zone's wall clock with. */
export function offsetFormat(timezone: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

/**
 * A zone's UTC offset (minutes), from the offsets at the starts of days and, on the few days a zone
 * changes offset, of hours, which are remembered: a day (or hour) whose start and the next one's
 * start share an offset has it throughout (zones change offset at most once a day), so consecutive
 * days cost one look-up of the zone each; an hour with a change asks the zone each time.
 */
class OffsetCache {
  private readonly dayStarts = new Map<number, number>();
  private readonly hourStarts = new Map<number, number>();
  /** Per day: the offset throughout it and the days either side, NaN when they do not share one. */
  private readonly aroundDays = new Map<number, number>();
  private readonly format: Intl.DateTimeFormat;
  constructor(private readonly zone: IANAZone) {
    this.format = offsetFormat(zone.name);
  }

  private offset(ms: number): number {
    return formattedOffset(this.format, ms) ?? this.zone.offset(ms);
  }

  /**
   * The one offset of days `day - 1` to `day + 1`, or NaN: what `instantOfWall` asks for nearly every
   * date, one look-up instead of six. (Four day starts with one offset: each of the three days has it
   * throughout.)
   */
  around(day: number): number {
    let offset = this.aroundDays.get(day);
    if (offset === undefined) {
      offset = this.startOffset(this.dayStarts, day - 1, DAY_MS);
      for (let next = day; next <= day + 2 && !Number.isNaN(offset); next++) {
        if (this.startOffset(this.dayStarts, next, DAY_MS) !== offset) offset = Number.NaN;
      }
      if (this.aroundDays.size >= 100_000) this.aroundDays.clear();
      this.aroundDays.set(day, offset);
    }
    return offset;
  }

  private startOffset(starts: Map<number, number>, index: number, span: number): number {
    let offset = starts.get(index);
    if (offset === undefined) {
      offset = this.offset(index * span);
      // Bounded: centuries of days per zone would be a few MB; start over beyond that.
      if (starts.size >= 100_000) starts.clear();
      starts.set(index, offset);
    }
    return offset;
  }

  /** The offset throughout span `index`, or NaN when it changes within it. */
  private uniform(starts: Map<number, number>, index: number, span: number): number {
    const first = this.startOffset(starts, index, span);
    return first === this.startOffset(starts, index + 1, span) ? first : Number.NaN;
  }

  at(ms: number): number {
    const day = this.uniform(this.dayStarts, Math.floor(ms / DAY_MS), DAY_MS);
    if (!Number.isNaN(day)) return day;
    const hour = this.uniform(this.hourStarts, Math.floor(ms / HOUR_MS), HOUR_MS);
    return Number.isNaN(hour) ? this.offset(ms) : hour;
  }
}

const caches = new Map<string, OffsetCache | null>();

/** The offset cache of an IANA zone; null for `UTC`/`UTC±N` and invalid names (left to parseDateInput). */
function cacheFor(timezone: string): OffsetCache | null {
  let cache = caches.get(timezone);
  if (cache === undefined) {
    cache = UTC_OFFSET.test(timezone) || !isValidTimezone(timezone) ? null : new OffsetCache(IANAZone.create(timezone));
    if (caches.size >= 1000) caches.clear();
    caches.set(timezone, cache);
  }
  return cache;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysInMonth = (year: number, month: number): number =>
  month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : MONTH_DAYS[month - 1]!;

/**
 * The instant of a wall clock in a zone, by the rule of src/lib/dates.ts: the zone's offsets a day
 * either side are the candidates; one whose instant shows this wall clock is right (two: the earlier,
 * an overlap); none (a gap): the offset in force before the gap.
 */
function instantOfWall(wallMs: number, offsets: OffsetCache): number {
  // The three days around the wall clock share one offset (nearly every date): each at() below
  // would return it, so this is what the rule returns.
  const around = offsets.around(Math.floor(wallMs / DAY_MS));
  if (!Number.isNaN(around)) return wallMs - around * MINUTE_MS;
  const before = offsets.at(wallMs - DAY_MS);
  const candidates = [...new Set([before, offsets.at(wallMs), offsets.at(wallMs + DAY_MS)])]
    .map((offset) => wallMs - offset * MINUTE_MS)
    .filter((ms) => ms + offsets.at(ms) * MINUTE_MS === wallMs)
    .sort((a, b) => a - b);
  return candidates[0] ?? wallMs - before * MINUTE_MS;
}

/** An absolute date's parts; `zone` is the `Z` or `±HH:MM` it ends with, if any. */
type AbsoluteParts = [year: number, month: number, day: number, hour: number, minute: number, second: number, zone?: string];

/** The number written by the digits at text[from, from + count); -1 if any is not a digit. */
function digitsAt(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * The parts of `YYYY-MM-DD`, `YYYY-MM-DD HH:MM` or `YYYY-MM-DD HH:MM:SS` (`T` or a space between),
 * read without a regular expression (a load reads two a record); undefined for any other text.
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

/** The fast path: an absolute date in one of the common forms, or undefined when it does not apply. */
function fastAbsolute(text: string, timezone: string): Date | undefined {
  const parts = absoluteParts(text);
  if (parts === undefined) return undefined;
  const [year, month, day, hour, minute, second, zone] = parts;
  // Out-of-range parts roll over in PHP (`2026-02-30` is 2 March): left to the full parser.
  if (year < FAST_MIN_YEAR || year > FAST_MAX_YEAR || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const wallMs = Date.UTC(year, month - 1, day, hour, minute, second);
  if (zone !== undefined) {
    if (zone === 'Z') return new Date(wallMs);
    const digits = zone.replace(':', '');
    const offset = (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5))) * (digits[0] === '-' ? -1 : 1);
    if (Number(digits.slice(3, 5)) > 59 || Math.abs(offset) > 14 * 60) return undefined;
    return new Date(wallMs - offset * MINUTE_MS);
  }
  if (timezone === 'UTC') return new Date(wallMs);
  const offsets = cacheFor(timezone);
  return offsets === null ? undefined : new Date(instantOfWall(wallMs, offsets));
}

const RELATIVE_DAYS = /^([+-])(\d{1,4}) (days?|weeks?)(?: (\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;

/**
 * The fast path for whole days and weeks from the anchor (`+3 days 19:30`, `-2 weeks 18:00`,
 * `+12 days`): PHP moves the wall-clock date and sets the time given (else keeps the anchor's wall
 * time), then reads that wall clock in the zone. Undefined when it does not apply.
 */
function fastRelative(text: string, timezone: string, anchor: Date): Date | undefined {
  const match = RELATIVE_DAYS.exec(text);
  if (match === null) return undefined;
  const [, sign, count, unit, h, mi, s] = match;
  if (h !== undefined && (Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59)) return undefined;
  const offsets = timezone === 'UTC' ? null : cacheFor(timezone);
  if (offsets === null && timezone !== 'UTC') return undefined;
  const at = anchor.getTime();
  const wall = new Date(at + (offsets === null ? 0 : offsets.at(at) * MINUTE_MS));
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
  return new Date(offsets === null ? wallMs : instantOfWall(wallMs, offsets));
}

/**
 * A seed date as an instant: read in `timezone`, relative phrases counted from `anchor`. Null when
 * the API would refuse it (the same cases as `parseDateInput`).
 */
export function resolveSeedDate(raw: string | number, timezone: string, anchor: Date): Date | null {
  if (typeof raw === 'string') {
    const text = raw.trim();
    const fast = fastAbsolute(text, timezone) ?? fastRelative(text, timezone, anchor);
    if (fast !== undefined) return fast;
  }
  return parseDateInput(raw, { timezone, now: anchor });
}

/** Whether a date's meaning depends on when it is read (`+3 days`, `tomorrow`, `next monday 9am`). */
export function isRelativeDate(raw: string | number, timezone: string): boolean {
  if (typeof raw === 'number' || fastAbsolute(raw.trim(), timezone) !== undefined) return false;
  const a = parseDateInput(raw, { timezone, now: new Date(Date.UTC(2001, 0, 1, 12)) });
  const b = parseDateInput(raw, { timezone, now: new Date(Date.UTC(2002, 6, 3, 7, 11, 13)) });
  return a === null || b === null || a.getTime() !== b.getTime();
}

/** Unix seconds: what the services are given (they read a number as this exact instant). */
export const toTimestamp = (instant: Date): number => Math.floor(instant.getTime() / 1000);
