/**
 * Dates as the reference writes them: wall clocks, ISO 8601 with the zone's
 * offset, the split date details, and the zone abbreviations PHP prints.
 */
import { FixedOffsetZone } from 'luxon';
import {
  assertValidInstant,
  offsetAt,
  stableSpan,
  utcOffsetMinutes,
  wallClockParts,
  type WallFields,
  wallFieldsOf,
  type ZoneRules,
  zoneRules,
} from './zones.js';

export interface DateDetails {
  year: string;
  month: string;
  day: string;
  hour: string;
  minutes: string;
  seconds: string;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

function wallString(f: WallFields): string {
  return `${pad(f.year, 4)}-${pad(f.month, 2)}-${pad(f.day, 2)} ${pad(f.hour, 2)}:${pad(f.minute, 2)}:${pad(f.second, 2)}`;
}

/** `YYYY-MM-DD HH:MM:SS` of the instant in the zone (the reference's response format). */
export function formatWallClock(instant: Date, timezone: string): string {
  assertValidInstant(instant);
  return wallString(wallFieldsOf(instant, zoneRules(timezone)));
}

/** `{year, month, day, hour, minutes, seconds}` as zero-padded strings, split from a wall clock (no zone math). */
export function dateDetails(wall: string): DateDetails {
  const [year, month, day, hour, minutes, seconds] = wallClockParts(wall);
  return { year, month, day, hour, minutes, seconds };
}

/** ISO 8601 with the zone's offset at that instant, e.g. `2017-01-05T14:23:36-05:00` (json_ld; `+00:00`, never `Z`). */
export function isoWithOffset(instant: Date, timezone: string): string {
  assertValidInstant(instant);
  const rules = zoneRules(timezone);
  const offset = offsetAt(rules, instant.getTime());
  // luxon's `ZZ`: hours and minutes of the offset, each truncated (LMT offsets have seconds).
  const hours = Math.trunc(Math.abs(offset / 60));
  const minutes = Math.trunc(Math.abs(offset % 60));
  return `${wallString(wallFieldsOf(instant, rules)).replace(' ', 'T')}${offset >= 0 ? '+' : '-'}${pad(hours, 2)}:${pad(minutes, 2)}`;
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
  return zoneNameFormatter(locale, timeZone)
    .formatToParts(at)
    .find((part) => part.type === 'timeZoneName')?.value;
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

/** Abbreviations per zone and span of one offset (see `stableSpan`); bounded like the spans. */
const spanAbbrs = new Map<string, string>();
const MAX_REMEMBERED_ABBRS = 500_000;

/**
 * The zone's abbreviation at an instant, as PHP's `T` format prints it: `EST`/`EDT`, `CET`/`CEST`,
 * `AEDT`/`AEST`, `HKT`, `UTC`, `+04` for zones tzdata gives no letters (Asia/Dubai), and the zone
 * string itself for `UTC±N` zones.
 */
export function timezoneAbbr(timezone: string, at: Date): string {
  assertValidInstant(at);
  if (utcOffsetMinutes(timezone) !== null) return timezone;
  const rules = zoneRules(timezone);
  if (rules.zone instanceof FixedOffsetZone) return 'UTC';
  // Within a span of one offset the abbreviation cannot change either: remembered like the offset.
  const span = stableSpan(rules, at.getTime());
  const memoKey = `${timezone}|${span}`;
  if (span !== null) {
    const known = spanAbbrs.get(memoKey);
    if (known !== undefined) return known;
  }
  const abbr = abbrOf(timezone, rules, at);
  if (span !== null) {
    if (spanAbbrs.size >= MAX_REMEMBERED_ABBRS) spanAbbrs.clear();
    spanAbbrs.set(memoKey, abbr);
  }
  return abbr;
}

function abbrOf(timezone: string, rules: ZoneRules, at: Date): string {
  const name = canonicalZoneName(timezone);
  const offset = offsetAt(rules, at.getTime());
  const known = TZDATA_ABBR[name];
  if (known !== undefined) return known[offset] ?? numericAbbr(offset);
  const locales = ['en-US', ...(ABBR_LOCALES.find(([pattern]) => pattern.test(name))?.[1] ?? [])];
  for (const locale of locales) {
    const abbr = shortZoneName(locale, name, at);
    if (abbr !== undefined && LETTER_ABBR.test(abbr)) return abbr;
  }
  return numericAbbr(offset);
}
