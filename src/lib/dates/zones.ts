/**
 * Zones and wall clocks: which time zones exist, each zone's UTC offset at an instant (the one
 * offset cache of the project), and the conversions between instants and wall clocks in a zone.
 *
 * Vocabulary: an *instant* is a `Date` (or its milliseconds); a *wall clock* is a
 * `YYYY-MM-DD HH:MM:SS` read in some time zone; a *timezone* is what events store: an IANA name,
 * `UTC`, or a WordPress-style `UTC±N` offset.
 *
 * Wall clocks that do not exist or exist twice (DST transitions) resolve by one rule everywhere
 * (see {@link instantOfWall}): a wall clock inside a gap moves forward by the gap's length (02:30 on
 * the spring-forward night → 03:30 daylight time), a wall clock inside an overlap is its first
 * occurrence (the earlier instant, still daylight time).
 */
import { FixedOffsetZone, IANAZone, type Zone } from 'luxon';

export const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** Fields of a wall clock (month 1-12). */
export interface WallFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export interface InstantRange {
  start: Date;
  end: Date;
}

// ---------------------------------------------------------------------------------------------
// Zone names
// ---------------------------------------------------------------------------------------------

// WordPress stores manual offsets as `UTC+5`, `UTC-3.5`, `UTC+5.75`; `UTC+5:30` is accepted as well.
const UTC_OFFSET = /^UTC([+-])(\d{1,2})(?:\.(\d{1,4})|:(\d{2}))?$/;
const MAX_OFFSET_MINUTES = 14 * 60;

/** The offset of a `UTC±N` zone in minutes; null for any other string. */
export function utcOffsetMinutes(tz: string): number | null {
  const match = UTC_OFFSET.exec(tz);
  if (match === null) return null;
  const [, sign, hours, fraction, minutes] = match;
  let total = Number(hours) * 60;
  if (fraction !== undefined) {
    const fromFraction = Number(`0.${fraction}`) * 60;
    if (!Number.isInteger(fromFraction)) return null;
    total += fromFraction;
  } else if (minutes !== undefined) {
    if (Number(minutes) > 59) return null;
    total += Number(minutes);
  }
  if (total > MAX_OFFSET_MINUTES) return null;
  return sign === '-' ? -total : total;
}

/**
 * A timezone string resolved: its luxon zone, and either the cache of an IANA zone's offsets or the
 * offset of a fixed one (`UTC`, `UTC±N`).
 */
export interface ZoneRules {
  readonly zone: Zone;
  readonly offsets: ZoneOffsets | null;
  /** The fixed offset in minutes; NaN for an IANA zone. */
  readonly fixed: number;
}

/*
 * Timezone strings resolved once: luxon's `IANAZone.isValidZone` builds an `Intl.DateTimeFormat` on
 * every call, and a zone's validity does not change while the process runs. Invalid names are
 * remembered as null. Bounded: only a few hundred zone names exist, and the memo (offsets included)
 * starts over if junk from requests fills it.
 */
const resolved = new Map<string, ZoneRules | null>();
const MAX_REMEMBERED_ZONES = 1000;

/** UTC: the default site zone and the zone of every `*_utc` field, so asked most. */
const UTC_RULES: ZoneRules = { zone: FixedOffsetZone.utcInstance, offsets: null, fixed: 0 };

function resolve(tz: string): ZoneRules | null {
  if (tz === 'UTC') return UTC_RULES;
  const entry = resolved.get(tz);
  return entry !== undefined ? entry : remember(tz);
}

function remember(tz: string): ZoneRules | null {
  const offset = utcOffsetMinutes(tz);
  let entry: ZoneRules | null = null;
  if (offset !== null) {
    entry = { zone: FixedOffsetZone.instance(offset), offsets: null, fixed: offset };
  } else if (IANAZone.isValidZone(tz)) {
    const zone = IANAZone.create(tz);
    entry = { zone, offsets: new ZoneOffsets(zone), fixed: Number.NaN };
  }
  if (resolved.size >= MAX_REMEMBERED_ZONES) {
    resolved.clear();
    rememberedSpans = 0;
  }
  resolved.set(tz, entry);
  return entry;
}

/** The rules of a timezone string. Throws on an invalid zone. */
export function zoneRules(tz: string): ZoneRules {
  const entry = resolve(tz);
  if (entry === null) throw new RangeError(`Invalid timezone: ${JSON.stringify(tz)}`);
  return entry;
}

/** The reference's `is_timezone_or_empty` without the empty case: IANA names, `UTC`, `UTC±N` offsets. */
export function isValidTimezone(tz: string): boolean {
  return resolve(tz) !== null;
}

/** The luxon zone of a timezone string; `UTC±N` becomes a fixed offset. Throws on an invalid zone. */
export function zoneFor(tz: string): Zone {
  return zoneRules(tz).zone;
}

// ---------------------------------------------------------------------------------------------
// Offsets
// ---------------------------------------------------------------------------------------------

/**
 * A zone's UTC offset (minutes) at an instant, as luxon's `IANAZone#offset` computes it (the zone's
 * wall clock read back as UTC, less the instant to the second), from `Intl.DateTimeFormat#format`,
 * which costs a fraction of luxon's `formatToParts`. Null when the text is not the
 * `MM/DD/YYYY, HH:MM:SS` expected (another ICU, a year of other than four digits): luxon answers then.
 */
export function formattedOffset(format: Intl.DateTimeFormat, ms: number): number | null {
  const text = format.format(ms);
  if (
    text.length !== 20 ||
    text.charCodeAt(2) !== 47 ||
    text.charCodeAt(5) !== 47 ||
    text.charCodeAt(10) !== 44 ||
    text.charCodeAt(14) !== 58 ||
    text.charCodeAt(17) !== 58
  ) {
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

/** The number written by the digits at text[from, from + count); -1 if any is not a digit. */
export function digitsAt(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/*
 * Offsets change only at transitions, months apart in every zone of tzdata, so the offset of each
 * 6-hour span is worked out once: equal offsets at the span's first and last millisecond mean no
 * transition lies inside (no zone has two within 6 hours). Spans holding a transition are marked
 * NaN and asked exactly. Bounded: every zone's memo starts over if they together hold more spans
 * than a busy calendar needs.
 */
const SPAN_MS = 6 * 3_600_000;
const SPANS_PER_DAY = DAY_MS / SPAN_MS;
const MAX_REMEMBERED_SPANS = 500_000;
let rememberedSpans = 0;
/** Where `formattedOffset` was checked against luxon in every zone (1900-2200); luxon answers elsewhere. */
const FORMATTED_FROM_MS = Date.UTC(1900, 0, 1);
const FORMATTED_UNTIL_MS = Date.UTC(2200, 0, 1);

/** The offsets of one IANA zone, remembered per 6-hour span. */
class ZoneOffsets {
  /** Per span: its one offset, or NaN when a transition lies inside. */
  private readonly spans = new Map<number, number>();
  /** Per day: the one offset of the day and the days either side of it, or NaN. */
  private readonly around = new Map<number, number>();
  private format: Intl.DateTimeFormat | null = null;

  constructor(private readonly zone: IANAZone) {}

  /** The offset at an instant, asked of the zone (not remembered). */
  exact(ms: number): number {
    if (ms >= FORMATTED_FROM_MS && ms < FORMATTED_UNTIL_MS) {
      this.format ??= offsetFormat(this.zone.name);
      const offset = formattedOffset(this.format, ms);
      if (offset !== null) return offset;
    }
    return this.zone.offset(ms);
  }

  /** The offset of span `span` throughout, or NaN when it changes within it. */
  spanOffset(span: number): number {
    let offset = this.spans.get(span);
    if (offset === undefined) {
      if (rememberedSpans >= MAX_REMEMBERED_SPANS) forgetAllSpans();
      const first = this.exact(span * SPAN_MS);
      offset = first === this.exact(span * SPAN_MS + SPAN_MS - 1) ? first : Number.NaN;
      this.spans.set(span, offset);
      rememberedSpans += 1;
    }
    return offset;
  }

  /** The offset at an instant. */
  at(ms: number): number {
    const offset = this.spanOffset(Math.floor(ms / SPAN_MS));
    return Number.isNaN(offset) ? this.exact(ms) : offset;
  }

  /**
   * The one offset from the start of the day before `day` (days since the epoch, UTC) to the end of
   * the day after it, or NaN: then every candidate `instantOfWall` weighs for a wall clock on `day`
   * is that offset, and it is the answer.
   */
  aroundDay(day: number): number {
    let offset = this.around.get(day);
    if (offset === undefined) {
      const first = (day - 1) * SPANS_PER_DAY;
      offset = this.spanOffset(first);
      for (let span = first + 1; span < first + 3 * SPANS_PER_DAY && !Number.isNaN(offset); span++) {
        if (this.spanOffset(span) !== offset) offset = Number.NaN;
      }
      this.around.set(day, offset);
    }
    return offset;
  }

  clear(): void {
    this.spans.clear();
    this.around.clear();
  }
}

function forgetAllSpans(): void {
  for (const entry of resolved.values()) entry?.offsets?.clear();
  rememberedSpans = 0;
}

/** The zone's offset from UTC in minutes at an instant (luxon's `Zone#offset`, remembered per span). */
export function offsetAt(rules: ZoneRules, ms: number): number {
  return rules.offsets === null ? rules.fixed : rules.offsets.at(ms);
}

/**
 * The span number of an instant when the zone keeps one offset through that whole span, else null:
 * what depends on the offset alone (an abbreviation) can be remembered per span.
 */
export function stableSpan(rules: ZoneRules, ms: number): number | null {
  if (rules.offsets === null) return null;
  const span = Math.floor(ms / SPAN_MS);
  return Number.isNaN(rules.offsets.spanOffset(span)) ? null : span;
}

// ---------------------------------------------------------------------------------------------
// Wall clocks
// ---------------------------------------------------------------------------------------------

export function assertValidInstant(instant: Date): void {
  if (Number.isNaN(instant.getTime())) throw new RangeError('Invalid instant');
}

/** The fields of a Date read as UTC. */
export function utcFieldsOf(date: Date): WallFields {
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
  };
}

/** The wall-clock fields of an instant in a zone: the instant shifted by the offset, read as UTC (luxon's own method). */
export function wallFieldsOf(instant: Date, rules: ZoneRules): WallFields {
  const ms = instant.getTime();
  return utcFieldsOf(new Date(ms + offsetAt(rules, ms) * MINUTE_MS));
}

/** Milliseconds of the wall clock as if it were UTC; the proleptic Gregorian calendar, no zone rules. */
export function wallAsUtcMs(f: WallFields): number {
  const d = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0-99 to 1900-1999.
  d.setUTCFullYear(f.year, f.month - 1, f.day);
  d.setUTCHours(f.hour, f.minute, f.second, 0);
  return d.getTime();
}

/**
 * The instant (milliseconds) of a wall clock given as milliseconds read as UTC, in a zone. A zone
 * changes offset at most once within a day, so the offsets a day either side are the only
 * candidates; a candidate is right when the zone has that offset at the resulting instant. Two
 * right candidates = overlap → the earlier instant; none = gap → the offset in force before the
 * gap, which lands the gap's length later on the wall (ECMAScript's and PHP's rule for
 * non-existent local times).
 */
export function instantOfWallMs(wallMs: number, rules: ZoneRules): number {
  // A fixed offset is the rule's only candidate.
  if (rules.offsets === null) return wallMs - rules.fixed * MINUTE_MS;
  // So is the offset of nearly every wall clock: one from a day before to a day after.
  const around = rules.offsets.aroundDay(Math.floor(wallMs / DAY_MS));
  if (!Number.isNaN(around)) return wallMs - around * MINUTE_MS;
  const before = offsetAt(rules, wallMs - DAY_MS);
  const candidates = [...new Set([before, offsetAt(rules, wallMs), offsetAt(rules, wallMs + DAY_MS)])]
    .map((offset) => wallMs - offset * MINUTE_MS)
    .filter((ms) => wallAsUtcMs(wallFieldsOf(new Date(ms), rules)) === wallMs)
    .sort((a, b) => a - b);
  return candidates[0] ?? wallMs - before * MINUTE_MS;
}

/** The instant of a wall clock in a zone, by the rule of {@link instantOfWallMs}. */
export function instantOfWall(f: WallFields, rules: ZoneRules): Date {
  return new Date(instantOfWallMs(wallAsUtcMs(f), rules));
}

const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/;

/** The six fields of a `YYYY-MM-DD HH:MM:SS` wall clock (a `T` separator is accepted), as written. */
export function wallClockParts(wall: string): [year: string, month: string, day: string, hour: string, minutes: string, seconds: string] {
  const match = WALL_CLOCK.exec(wall);
  if (match === null) throw new RangeError(`Invalid wall clock (expected YYYY-MM-DD HH:MM:SS): ${JSON.stringify(wall)}`);
  return match.slice(1) as [string, string, string, string, string, string];
}

function parseWall(wall: string): WallFields {
  const [year, month, day, hour, minute, second] = wallClockParts(wall).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) {
    throw new RangeError(`Invalid wall clock: ${JSON.stringify(wall)}`);
  }
  return { year, month, day, hour, minute, second };
}

/**
 * The instant a `YYYY-MM-DD HH:MM:SS` wall clock (a `T` separator is accepted) denotes in the zone.
 * DST gap → moved forward by the gap (NY 2026-03-08 02:30 → 03:30 EDT); DST overlap → the first
 * occurrence (NY 2026-11-01 01:30 → 01:30 EDT). Throws on a malformed wall clock or zone.
 */
export function wallClockToInstant(wall: string, timezone: string): Date {
  return instantOfWall(parseWall(wall), zoneRules(timezone));
}

function atLocalTime(instant: Date, timezone: string, hour: number, minute: number, second: number): Date {
  assertValidInstant(instant);
  const rules = zoneRules(timezone);
  const date = wallFieldsOf(instant, rules);
  return instantOfWall({ ...date, hour, minute, second }, rules);
}

/** 00:00:00 of the instant's local date (a midnight DST gap moves it to the first existing minute). */
export function startOfLocalDay(instant: Date, timezone: string): Date {
  return atLocalTime(instant, timezone, 0, 0, 0);
}

/** 23:59:59 of the instant's local date (the reference's inclusive end-of-day bound). */
export function endOfLocalDay(instant: Date, timezone: string): Date {
  return atLocalTime(instant, timezone, 23, 59, 59);
}

/** All-day events: 00:00:00 of the start's local date to 23:59:59 of the end's local date. */
export function allDayBounds(startInstant: Date, endInstant: Date, timezone: string): InstantRange {
  return { start: startOfLocalDay(startInstant, timezone), end: endOfLocalDay(endInstant, timezone) };
}
