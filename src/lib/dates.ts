/**
 * Date and time-zone handling of the reference (TEC REST v1 §5.0 `is_time`, §5.2, §9), as pure functions.
 *
 * Vocabulary: an *instant* is a `Date`; a *wall clock* is a `YYYY-MM-DD HH:MM:SS` string read in some
 * time zone; a *timezone* is what events store: an IANA name, `UTC`, or a WordPress-style `UTC±N` offset.
 *
 * Wall clocks that do not exist or exist twice (DST transitions) resolve by one rule everywhere in this
 * module (see {@link wallClockToInstant}): a wall clock inside a gap moves forward by the gap's length
 * (02:30 on the spring-forward night → 03:30 daylight time), a wall clock inside an overlap is its
 * first occurrence (the earlier instant, still daylight time).
 */
import { FixedOffsetZone, IANAZone, type Zone } from 'luxon';
import { strtotime } from 'locutus/php/datetime/strtotime';

export interface ParseDateOptions {
  /** Zone in which strings without an explicit offset are read (and relative phrases evaluated). */
  timezone: string;
  /** The moment relative phrases (`tomorrow 9am`, `+5 days`) count from; defaults to the current time. */
  now?: Date;
}

export interface DateDetails {
  year: string;
  month: string;
  day: string;
  hour: string;
  minutes: string;
  seconds: string;
}

export interface InstantRange {
  start: Date;
  end: Date;
}

// Captured before parseDateInput ever swaps the global (see shiftedDateClass).
const NativeDate = globalThis.Date;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const MIN_YEAR = 1;
const MAX_YEAR = 9999;
// Longer inputs are not dates anyone types; the bound keeps the parser's regex scan cheap.
const MAX_INPUT_LENGTH = 256;

const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/;
// WordPress stores manual offsets as `UTC+5`, `UTC-3.5`, `UTC+5.75`; `UTC+5:30` is accepted as well.
const UTC_OFFSET = /^UTC([+-])(\d{1,2})(?:\.(\d{1,4})|:(\d{2}))?$/;
const MAX_OFFSET_MINUTES = 14 * 60;
// PHP's is_numeric(): such strings are Unix timestamps, never strtotime() input.
const PHP_NUMERIC = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;
// A 5+ digit number joined to a date separator is a year past 9999, which the parser would otherwise
// split into a 4-digit year and leftovers (`10000-01-01` → some time in 2000). `@<timestamp>` is exempt.
const OVERLONG_DATE_PART = /(?:^|[^@\d])\d{5,}[-/]|[-/]\d{5,}/;

// ---------------------------------------------------------------------------------------------
// Zones
// ---------------------------------------------------------------------------------------------

function utcOffsetMinutes(tz: string): number | null {
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
 * luxon's `IANAZone.isValidZone` builds an `Intl.DateTimeFormat` on every call (tens of µs, several
 * times per event write); a zone's validity does not change while the process runs, so it is
 * remembered. Bounded: only a few hundred zone names exist, and the memo is cleared if junk fills it.
 */
const validZones = new Map<string, boolean>();
const MAX_REMEMBERED_ZONES = 1000;
function isValidIanaZone(tz: string): boolean {
  let valid = validZones.get(tz);
  if (valid === undefined) {
    valid = IANAZone.isValidZone(tz);
    if (validZones.size >= MAX_REMEMBERED_ZONES) validZones.clear();
    validZones.set(tz, valid);
  }
  return valid;
}

/** The reference's `is_timezone_or_empty` without the empty case: IANA names, `UTC`, `UTC±N` offsets. */
export function isValidTimezone(tz: string): boolean {
  return utcOffsetMinutes(tz) !== null || isValidIanaZone(tz);
}

/** The luxon zone of a timezone string; `UTC±N` becomes a fixed offset. Throws on an invalid zone. */
export function zoneFor(tz: string): Zone {
  if (tz === 'UTC') return FixedOffsetZone.utcInstance;
  const offset = utcOffsetMinutes(tz);
  if (offset !== null) return FixedOffsetZone.instance(offset);
  if (isValidIanaZone(tz)) return IANAZone.create(tz);
  throw new RangeError(`Invalid timezone: ${JSON.stringify(tz)}`);
}

// ---------------------------------------------------------------------------------------------
// Wall clocks
// ---------------------------------------------------------------------------------------------

interface WallFields {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

function wallString(f: WallFields): string {
  return `${pad(f.year, 4)}-${pad(f.month, 2)}-${pad(f.day, 2)} ${pad(f.hour, 2)}:${pad(f.minute, 2)}:${pad(f.second, 2)}`;
}

function assertValidInstant(instant: Date): void {
  if (Number.isNaN(instant.getTime())) throw new RangeError('Invalid instant');
}

/*
 * A zone's offset is asked for a dozen times per serialized event, and luxon answers each question
 * for an IANA zone with an `Intl.DateTimeFormat#formatToParts` call (~10 µs). Offsets change only at
 * transitions, months apart in every zone of tzdata, so the offset of each 6-hour span is worked out
 * once: equal offsets at the span's first and last millisecond mean no transition lies inside (no
 * zone has two within 6 hours). Spans holding a transition are marked NaN and asked exactly.
 * Bounded: the memo starts over if it ever holds more spans than a busy calendar needs.
 */
const SPAN_MS = 6 * 3_600_000;
const MAX_REMEMBERED_SPANS = 500_000;
const spanOffsets = new Map<string, Map<number, number>>();
let rememberedSpans = 0;

/** The span number of an instant when the zone keeps one offset through that whole span, else null. */
function stableSpan(zone: Zone, ms: number): number | null {
  let spans = spanOffsets.get(zone.name);
  if (spans === undefined) {
    spans = new Map();
    spanOffsets.set(zone.name, spans);
  }
  const span = Math.floor(ms / SPAN_MS);
  let offset = spans.get(span);
  if (offset === undefined) {
    if (rememberedSpans >= MAX_REMEMBERED_SPANS) {
      for (const memo of spanOffsets.values()) memo.clear();
      rememberedSpans = 0;
    }
    const first = zone.offset(span * SPAN_MS);
    offset = first === zone.offset(span * SPAN_MS + SPAN_MS - 1) ? first : Number.NaN;
    spans.set(span, offset);
    rememberedSpans += 1;
  }
  return Number.isNaN(offset) ? null : span;
}

/** The zone's offset from UTC in minutes at an instant (luxon's `Zone#offset`, memoised per span). */
function offsetAt(zone: Zone, ms: number): number {
  if (zone.isUniversal) return zone.offset(ms);
  const span = stableSpan(zone, ms);
  return span === null ? zone.offset(ms) : spanOffsets.get(zone.name)!.get(span)!;
}

/** The wall-clock fields of an instant in a zone: the instant shifted by the offset, read as UTC (luxon's own method). */
function wallFieldsOf(instant: Date, zone: Zone): WallFields {
  const ms = instant.getTime();
  return utcFieldsOf(new NativeDate(ms + offsetAt(zone, ms) * MINUTE_MS));
}

/** The fields of a Date read as UTC. */
function utcFieldsOf(date: Date): WallFields {
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
  };
}

/** Milliseconds of the wall clock as if it were UTC; the proleptic Gregorian calendar, no zone rules. */
function wallAsUtcMs(f: WallFields): number {
  const d = new NativeDate(0);
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0-99 to 1900-1999.
  d.setUTCFullYear(f.year, f.month - 1, f.day);
  d.setUTCHours(f.hour, f.minute, f.second, 0);
  return d.getTime();
}

/**
 * The instant of a wall clock in a zone. A zone changes offset at most once within a day, so the
 * offsets a day either side are the only candidates; a candidate is right when the zone has that
 * offset at the resulting instant. Two right candidates = overlap → the earlier instant; none = gap →
 * the offset in force before the gap, which lands the gap's length later on the wall (ECMAScript's
 * and PHP's rule for non-existent local times).
 */
function instantOfWall(f: WallFields, zone: Zone): Date {
  const wallMs = wallAsUtcMs(f);
  const before = zone.offset(wallMs - DAY_MS);
  const after = zone.offset(wallMs + DAY_MS);
  const candidates = [...new Set([before, zone.offset(wallMs), after])]
    .map((offset) => wallMs - offset * MINUTE_MS)
    .filter((ms) => wallAsUtcMs(wallFieldsOf(new NativeDate(ms), zone)) === wallMs)
    .sort((a, b) => a - b);
  return new NativeDate(candidates[0] ?? wallMs - before * MINUTE_MS);
}

function parseWall(wall: string): WallFields {
  const match = WALL_CLOCK.exec(wall);
  if (match === null) throw new RangeError(`Invalid wall clock (expected YYYY-MM-DD HH:MM:SS): ${JSON.stringify(wall)}`);
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) {
    throw new RangeError(`Invalid wall clock: ${JSON.stringify(wall)}`);
  }
  return { year, month, day, hour, minute, second };
}

/** `YYYY-MM-DD HH:MM:SS` of the instant in the zone (the reference's response format). */
export function formatWallClock(instant: Date, timezone: string): string {
  assertValidInstant(instant);
  return wallString(wallFieldsOf(instant, zoneFor(timezone)));
}

/**
 * The instant a `YYYY-MM-DD HH:MM:SS` wall clock (a `T` separator is accepted) denotes in the zone.
 * DST gap → moved forward by the gap (NY 2026-03-08 02:30 → 03:30 EDT); DST overlap → the first
 * occurrence (NY 2026-11-01 01:30 → 01:30 EDT). Throws on a malformed wall clock or zone.
 */
export function wallClockToInstant(wall: string, timezone: string): Date {
  return instantOfWall(parseWall(wall), zoneFor(timezone));
}

/** `{year, month, day, hour, minutes, seconds}` as zero-padded strings, split from a wall clock (no zone math). */
export function dateDetails(wall: string): DateDetails {
  const match = WALL_CLOCK.exec(wall);
  if (match === null) throw new RangeError(`Invalid wall clock (expected YYYY-MM-DD HH:MM:SS): ${JSON.stringify(wall)}`);
  const [year, month, day, hour, minutes, seconds] = match.slice(1) as [string, string, string, string, string, string];
  return { year, month, day, hour, minutes, seconds };
}

function atLocalTime(instant: Date, timezone: string, hour: number, minute: number, second: number): Date {
  assertValidInstant(instant);
  const zone = zoneFor(timezone);
  const date = wallFieldsOf(instant, zone);
  return instantOfWall({ ...date, hour, minute, second }, zone);
}

/** 00:00:00 of the instant's local date (a midnight DST gap moves it to the first existing minute). */
export function startOfLocalDay(instant: Date, timezone: string): Date {
  return atLocalTime(instant, timezone, 0, 0, 0);
}

/** 23:59:59 of the instant's local date (the reference's inclusive end-of-day bound). */
export function endOfLocalDay(instant: Date, timezone: string): Date {
  return atLocalTime(instant, timezone, 23, 59, 59);
}

/** All-day events (reference §9): 00:00:00 of the start's local date to 23:59:59 of the end's local date. */
export function allDayBounds(startInstant: Date, endInstant: Date, timezone: string): InstantRange {
  return { start: startOfLocalDay(startInstant, timezone), end: endOfLocalDay(endInstant, timezone) };
}

/** ISO 8601 with the zone's offset at that instant, e.g. `2017-01-05T14:23:36-05:00` (json_ld; `+00:00`, never `Z`). */
export function isoWithOffset(instant: Date, timezone: string): string {
  assertValidInstant(instant);
  const zone = zoneFor(timezone);
  const offset = offsetAt(zone, instant.getTime());
  // luxon's `ZZ`: hours and minutes of the offset, each truncated (LMT offsets have seconds).
  const hours = Math.trunc(Math.abs(offset / 60));
  const minutes = Math.trunc(Math.abs(offset % 60));
  return `${wallString(wallFieldsOf(instant, zone)).replace(' ', 'T')}${offset >= 0 ? '+' : '-'}${pad(hours, 2)}:${pad(minutes, 2)}`;
}

// ---------------------------------------------------------------------------------------------
// Abbreviations
// ---------------------------------------------------------------------------------------------

/*
 * PHP prints tzdata's abbreviations. Intl knows them only through CLDR, and per locale: en-US names US
 * zones, en-GB European ones, en-AU Australian ones… Asking every locale would be wrong as often as
 * right (en-GB calls Asia/Dubai "GST" where tzdata says "+04"), so each region asks the locales
 * whose names agree with tzdata, after en-US.
 */
const ABBR_LOCALES: ReadonlyArray<readonly [RegExp, readonly string[]]> = [
  [/^(Europe\/Dublin|Eire)$/, ['en-IE']],
  [/^(Europe|Atlantic)\/|^(Asia\/(Nicosia|Famagusta)|GB|Portugal)$/, ['en-GB']],
  [/^Africa\//, ['en-ZA', 'en-GB']],
  [/^Australia\/|^Antarctica\/Macquarie$/, ['en-AU']],
  [/^(Pacific\/Auckland|Antarctica\/McMurdo|NZ)$/, ['en-NZ']],
  [/^Asia\/(Kolkata|Calcutta)$/, ['en-IN']],
  [/^(Asia\/Hong_Kong|Hongkong)$/, ['en-HK']],
  [/^(Asia\/Tokyo|Japan)$/, ['ja-JP']],
  [/^Asia\/(Jakarta|Pontianak|Makassar|Jayapura)$/, ['id-ID']],
];

/*
 * tzdata abbreviations CLDR lacks or names differently, keyed by UTC offset in minutes so a future
 * rule change falls back to the numeric form instead of a stale name. An empty map forces the
 * numeric form where CLDR invents a name tzdata does not have.
 */
const TZDATA_ABBR: Readonly<Record<string, Readonly<Record<number, string>>>> = {
  'Europe/Moscow': { 180: 'MSK' },
  'Europe/Simferopol': { 180: 'MSK' },
  'Asia/Shanghai': { 480: 'CST' },
  'Asia/Taipei': { 480: 'CST' },
  'Asia/Macau': { 480: 'CST' },
  'Asia/Seoul': { 540: 'KST' },
  'Asia/Pyongyang': { 540: 'KST' },
  'Asia/Karachi': { 300: 'PKT' },
  'Asia/Jerusalem': { 120: 'IST', 180: 'IDT' },
  'Asia/Tel_Aviv': { 120: 'IST', 180: 'IDT' },
  'America/Adak': { [-600]: 'HST', [-540]: 'HDT' },
  'Australia/Lord_Howe': {},
  'Australia/Eucla': {},
  'Pacific/Chatham': {},
};

const LETTER_ABBR = /^[A-Z]{2,5}$/;
const formatters = new Map<string, Intl.DateTimeFormat>();

function zoneNameFormatter(locale: string, timeZone: string): Intl.DateTimeFormat {
  const key = `${locale}|${timeZone}`;
  let formatter = formatters.get(key);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: 'short' });
    formatters.set(key, formatter);
  }
  return formatter;
}

function shortZoneName(locale: string, timeZone: string, at: Date): string | undefined {
  return zoneNameFormatter(locale, timeZone).formatToParts(at).find((part) => part.type === 'timeZoneName')?.value;
}

/**
 * Intl canonicalises case and links (`us/eastern` → `America/New_York`), which the tables above key
 * on. Formatters are cached for canonical names only, so arbitrary spellings cannot grow the cache.
 */
function canonicalZoneName(timezone: string): string {
  if (formatters.has(`en-US|${timezone}`)) return timezone;
  return new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
}

/** PHP's form for zones without a letter abbreviation: `+04`, `+0530`, `-03`. */
function numericAbbr(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const minutes = abs % 60;
  return `${sign}${pad(Math.floor(abs / 60), 2)}${minutes === 0 ? '' : pad(minutes, 2)}`;
}

/**
 * The zone's abbreviation at an instant, as PHP's `T` format prints it: `EST`/`EDT`, `CET`/`CEST`,
 * `AEDT`/`AEST`, `HKT`, `UTC`, `+04` for zones tzdata gives no letters (Asia/Dubai), and the zone
 * string itself for `UTC±N` zones (reference §9).
 */
export function timezoneAbbr(timezone: string, at: Date): string {
  assertValidInstant(at);
  if (utcOffsetMinutes(timezone) !== null) return timezone;
  const zone = zoneFor(timezone);
  if (zone instanceof FixedOffsetZone) return 'UTC';
  // Within a span of one offset the abbreviation cannot change either: remembered like the offset.
  const span = stableSpan(zone, at.getTime());
  const memoKey = `${timezone}|${span}`;
  if (span !== null) {
    const known = spanAbbrs.get(memoKey);
    if (known !== undefined) return known;
  }
  const abbr = abbrOf(timezone, zone, at);
  if (span !== null) {
    if (spanAbbrs.size >= MAX_REMEMBERED_SPANS) spanAbbrs.clear();
    spanAbbrs.set(memoKey, abbr);
  }
  return abbr;
}

const spanAbbrs = new Map<string, string>();

function abbrOf(timezone: string, zone: Zone, at: Date): string {
  const name = canonicalZoneName(timezone);
  const offset = offsetAt(zone, at.getTime());
  const known = TZDATA_ABBR[name];
  if (known !== undefined) return known[offset] ?? numericAbbr(offset);
  const locales = ['en-US', ...(ABBR_LOCALES.find(([pattern]) => pattern.test(name))?.[1] ?? [])];
  for (const locale of locales) {
    const abbr = shortZoneName(locale, name, at);
    if (abbr !== undefined && LETTER_ABBR.test(abbr)) return abbr;
  }
  return numericAbbr(offset);
}

// ---------------------------------------------------------------------------------------------
// Parsing (`is_time` and the write-side interpretation)
// ---------------------------------------------------------------------------------------------

/**
 * locutus' strtotime does all its calendar arithmetic through the process-local getters and setters
 * of `Date`, so its answers depend on the process's TZ, and a wall clock inside a local DST gap gets
 * silently shifted. While it runs, the global `Date` is swapped for this subclass whose "local" time
 * is UTC plus a fixed shift: a zone without DST, so the arithmetic is exact for every wall clock and
 * identical whatever TZ the process has. strtotime is synchronous, so nothing else can observe the
 * swap, and it is undone in a `finally`.
 */
function shiftedDateClass(shiftMs: number): DateConstructor {
  const wall = (d: Date): Date => new NativeDate(d.getTime() + shiftMs);
  class ShiftedDate extends NativeDate {
    constructor(...args: unknown[]) {
      if (args.length >= 2) {
        const [year, month, day = 1, hour = 0, minute = 0, second = 0, ms = 0] = args as number[];
        const d = new NativeDate(0);
        d.setUTCFullYear(year as number, month as number, day);
        d.setUTCHours(hour, minute, second, ms);
        super(d.getTime() - shiftMs);
      } else if (args.length === 1) {
        super(args[0] as number | string | Date);
      } else {
        super();
      }
    }
    override getTimezoneOffset(): number {
      return -shiftMs / MINUTE_MS;
    }
    override getFullYear(): number {
      return wall(this).getUTCFullYear();
    }
    override getMonth(): number {
      return wall(this).getUTCMonth();
    }
    override getDate(): number {
      return wall(this).getUTCDate();
    }
    override getDay(): number {
      return wall(this).getUTCDay();
    }
    override getHours(): number {
      return wall(this).getUTCHours();
    }
    override getMinutes(): number {
      return wall(this).getUTCMinutes();
    }
    override getSeconds(): number {
      return wall(this).getUTCSeconds();
    }
    override getMilliseconds(): number {
      return wall(this).getUTCMilliseconds();
    }
    override setFullYear(...args: [number, number?, number?]): number {
      return this.setWall((w) => NativeDate.prototype.setUTCFullYear.apply(w, args as [number]));
    }
    override setMonth(...args: [number, number?]): number {
      return this.setWall((w) => NativeDate.prototype.setUTCMonth.apply(w, args as [number]));
    }
    override setDate(date: number): number {
      return this.setWall((w) => w.setUTCDate(date));
    }
    override setHours(...args: [number, number?, number?, number?]): number {
      return this.setWall((w) => NativeDate.prototype.setUTCHours.apply(w, args as [number]));
    }
    override setMinutes(...args: [number, number?, number?]): number {
      return this.setWall((w) => NativeDate.prototype.setUTCMinutes.apply(w, args as [number]));
    }
    override setSeconds(...args: [number, number?]): number {
      return this.setWall((w) => NativeDate.prototype.setUTCSeconds.apply(w, args as [number]));
    }
    override setMilliseconds(ms: number): number {
      return this.setWall((w) => w.setUTCMilliseconds(ms));
    }
    private setWall(mutate: (w: Date) => void): number {
      const w = wall(this);
      mutate(w);
      return this.setTime(w.getTime() - shiftMs);
    }
  }
  return ShiftedDate as unknown as DateConstructor;
}

// Two runs with different local offsets tell wall-clock results (they move with the offset) from
// absolute ones (an explicit offset, `Z`, `UTC`, `@ts`). 7 minutes: no real zone offset, so locutus'
// "is the string's zone already the local one" shortcut never fires on the shifted run.
const SHIFT_MS = 7 * MINUTE_MS;
const LOCAL_IS_UTC = shiftedDateClass(0);
const LOCAL_IS_UTC_PLUS_SHIFT = shiftedDateClass(SHIFT_MS);

function strtotimeWithLocalDate(input: string, nowWall: WallFields, LocalDate: DateConstructor, shiftMs: number): number | null {
  const nowSeconds = Math.floor((wallAsUtcMs(nowWall) - shiftMs) / 1000);
  const globals = globalThis as { Date: DateConstructor };
  globals.Date = LocalDate;
  try {
    const result = strtotime(input, nowSeconds);
    return typeof result === 'number' && Number.isFinite(result) ? result : null;
  } catch {
    return null;
  } finally {
    globals.Date = NativeDate;
  }
}

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
const ORDINALS: Readonly<Record<string, number>> = {
  next: 1, first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6,
  seventh: 7, eight: 8, eighth: 8, ninth: 9, tenth: 10, eleventh: 11, twelfth: 12,
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

function withinYears(instant: Date, zone: Zone): boolean {
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
 * - gaps and overlaps resolve as in {@link wallClockToInstant}.
 * Returns null for what PHP rejects (`foo`, `"before my birthday"`, empty strings) and for years
 * outside 1-9999. Throws on an invalid `options.timezone` (validate it first).
 */
export function parseDateInput(input: string | number, options: ParseDateOptions): Date | null {
  const zone = zoneFor(options.timezone);
  let instant: Date;
  if (typeof input === 'number' || PHP_NUMERIC.test(input)) {
    const seconds = Number(input);
    if (!Number.isFinite(seconds)) return null;
    instant = new Date(Math.floor(seconds) * 1000);
  } else {
    const text = input.trim();
    if (text === '' || text.length > MAX_INPUT_LENGTH || OVERLONG_DATE_PART.test(text)) return null;
    const now = options.now ?? new Date();
    assertValidInstant(now);
    const nowWall = wallFieldsOf(now, zone);
    const source = rewriteOrdinalWeekdays(text);
    const plain = strtotimeWithLocalDate(source, nowWall, LOCAL_IS_UTC, 0);
    const shifted = strtotimeWithLocalDate(source, nowWall, LOCAL_IS_UTC_PLUS_SHIFT, SHIFT_MS);
    if (plain === null || shifted === null) return null;
    const delta = (plain - shifted) * 1000;
    if (delta === 0) {
      instant = new Date(plain * 1000);
    } else if (delta === SHIFT_MS) {
      // With a zero shift the "local" clock is UTC, so the result read as UTC is the wall clock.
      const wall = new Date(plain * 1000);
      if (Number.isNaN(wall.getTime())) return null;
      instant = instantOfWall(utcFieldsOf(wall), zone);
    } else {
      return null;
    }
  }
  if (Number.isNaN(instant.getTime()) || !withinYears(instant, zone)) return null;
  return instant;
}
