/**
 * The VTIMEZONE components of an iCalendar feed, from timezones-ical-library, and what a calendar
 * client reading one makes of a local time.
 *
 * The library describes each zone by its current rules only: at most a standard and a daylight
 * observance from 1970 on, each changing every year on the nth weekday of a month. A local time
 * read with such a component is the instant the service stores only where those rules were (or
 * will be) in force: not before a zone last changed its rules (New York before 2007), and in no
 * zone during the repeated hour when clocks go back, which has two readings. `readsBack` tells
 * whether a local time has exactly one reading and that it is the stored instant; the feed writes
 * such times with their TZID and every other time in UTC, so every instant reads back exactly.
 */
import { tzlib_get_ical_block, tzlib_get_timezones } from 'timezones-ical-library';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** One STANDARD or DAYLIGHT observance: its offsets (minutes) and when it begins. */
interface Observance {
  from: number;
  to: number;
  /** DTSTART, a local time (milliseconds read as UTC) in the `from` offset. */
  start: number;
  /** The yearly onset, or null for one onset at `start`. */
  yearly: { month: number; nth: number; weekday: number; timeOfDay: number } | null;
}

export interface ZoneDefinition {
  /** The TZID the component names: the canonical zone (`Asia/Kolkata` for `Asia/Calcutta`). */
  tzid: string;
  /** The VTIMEZONE component, each line ending in CRLF. */
  component: string;
  observances: readonly Observance[];
  /** Every offset the component uses, in minutes. */
  offsets: readonly number[];
}

const WEEKDAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];

/** `+0530` → 330; null for anything else. */
function offsetMinutes(text: string): number | null {
  const match = /^([+-])(\d{2})(\d{2})$/.exec(text);
  if (match === null) return null;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

/** `19700329T020000` as milliseconds read as UTC; null for anything else. */
function localTime(text: string): number | null {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})$/.exec(text);
  if (match === null) return null;
  const [y = 0, mo = 1, d = 1, h = 0, mi = 0, s = 0] = match.slice(1).map(Number);
  return Date.UTC(y, mo - 1, d, h, mi, s);
}

/** `FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU`; null for any other rule (the library writes no other). */
function yearlyRule(rule: string, start: number): Observance['yearly'] | null {
  const match = /^FREQ=YEARLY;BYMONTH=(\d{1,2});BYDAY=(-1|[1-5])(SU|MO|TU|WE|TH|FR|SA)$/.exec(rule);
  if (match === null) return null;
  const timeOfDay = ((start % DAY_MS) + DAY_MS) % DAY_MS;
  return { month: Number(match[1]), nth: Number(match[2]), weekday: WEEKDAYS.indexOf(match[3]!), timeOfDay };
}

/** The component's observances; null when it holds anything this reading does not know. */
function observancesOf(lines: readonly string[]): Observance[] | null {
  const observances: Observance[] = [];
  let current: Partial<Record<'from' | 'to' | 'start', number | null>> & { rule?: string } = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1);
    if (line === 'BEGIN:STANDARD' || line === 'BEGIN:DAYLIGHT') current = {};
    else if (name === 'TZOFFSETFROM') current.from = offsetMinutes(value);
    else if (name === 'TZOFFSETTO') current.to = offsetMinutes(value);
    else if (name === 'DTSTART') current.start = localTime(value);
    else if (name === 'RRULE') current.rule = value;
    else if (name === 'RDATE' || name === 'EXDATE') return null;
    else if (line === 'END:STANDARD' || line === 'END:DAYLIGHT') {
      const { from, to, start, rule } = current;
      if (from == null || to == null || start == null) return null;
      const yearly = rule === undefined ? null : yearlyRule(rule, start);
      if (rule !== undefined && yearly === null) return null;
      observances.push({ from, to, start, yearly });
    }
  }
  return observances.length > 0 ? observances : null;
}

let known: ReadonlySet<string> | undefined;
/** Definitions by zone name; bounded by the library's list of zones (about 600). */
const definitions = new Map<string, ZoneDefinition | null>();

/** The VTIMEZONE of an IANA zone; null when the library has none (or one this module cannot read). */
export function zoneDefinition(zone: string): ZoneDefinition | null {
  const remembered = definitions.get(zone);
  if (remembered !== undefined) return remembered;
  // The library logs an error for a zone it does not know: ask only about those it lists.
  known ??= new Set(tzlib_get_timezones() as string[]);
  let definition: ZoneDefinition | null = null;
  const block = known.has(zone) ? tzlib_get_ical_block(zone) : '';
  if (Array.isArray(block) && typeof block[0] === 'string' && typeof block[1] === 'string' && block[1].startsWith('TZID=')) {
    const lines = block[0].split(/\r?\n/).filter((line) => line !== '');
    const observances = observancesOf(lines);
    if (observances !== null) {
      const offsets = [...new Set(observances.flatMap((o) => [o.from, o.to]))];
      definition = { tzid: block[1].slice('TZID='.length), component: `${lines.join('\r\n')}\r\n`, observances, offsets };
    }
  }
  definitions.set(zone, definition);
  return definition;
}

/** The day of the month of the nth (from the end when negative) weekday of a month. */
function nthWeekday(year: number, month: number, nth: number, weekday: number): number {
  if (nth > 0) {
    const first = new Date(Date.UTC(year, month - 1, 1)).getUTCDay();
    return 1 + ((weekday - first + 7) % 7) + (nth - 1) * 7;
  }
  const lastDay = new Date(Date.UTC(year, month, 0));
  return lastDay.getUTCDate() - ((lastDay.getUTCDay() - weekday + 7) % 7) + (nth + 1) * 7;
}

/** The instant (ms) at which a yearly observance begins in a year; null before its DTSTART. */
function onsetIn(observance: Observance, year: number): number | null {
  const { yearly, start, from } = observance;
  if (yearly === null) return null;
  const local = Date.UTC(year, yearly.month - 1, nthWeekday(year, yearly.month, yearly.nth, yearly.weekday)) + yearly.timeOfDay;
  return local < start ? null : local - from * MINUTE_MS;
}

/**
 * Onsets (instant ms, offset after) of the years about a year, by definition: a feed asks about
 * the same few years again and again. At most MAX_YEARS years per zone, so stray dates cannot grow it.
 */
const MAX_YEARS = 256;
const onsetsByYear = new WeakMap<ZoneDefinition, Map<number, ReadonlyArray<readonly [onset: number, to: number]>>>();

/** The onsets that may be the latest before an instant of a UTC year: local onsets of the years either side may fall in it. */
function onsetsAbout(definition: ZoneDefinition, year: number): ReadonlyArray<readonly [number, number]> {
  let years = onsetsByYear.get(definition);
  if (years === undefined) {
    years = new Map<number, ReadonlyArray<readonly [number, number]>>();
    onsetsByYear.set(definition, years);
  }
  let onsets = years.get(year);
  if (onsets === undefined) {
    const found: Array<readonly [number, number]> = [];
    for (const observance of definition.observances) {
      const at = observance.yearly === null ? [observance.start - observance.from * MINUTE_MS] : [year - 1, year, year + 1].map((y) => onsetIn(observance, y));
      for (const onset of at) if (onset !== null) found.push([onset, observance.to]);
    }
    onsets = found;
    if (years.size >= MAX_YEARS) years.clear();
    years.set(year, onsets);
  }
  return onsets;
}

/** The UTC offset (minutes) the component gives at an instant: the latest onset's; null before the first. */
export function offsetAt(definition: ZoneDefinition, ms: number): number | null {
  let latest = -Infinity;
  let offset: number | null = null;
  for (const [onset, to] of onsetsAbout(definition, new Date(ms).getUTCFullYear())) {
    if (onset <= ms && onset > latest) {
      latest = onset;
      offset = to;
    }
  }
  return offset;
}

/**
 * Whether a client reading the local time `wallMs` (milliseconds read as UTC) with this component
 * finds exactly one instant, and that it is `instantMs`.
 */
export function readsBack(definition: ZoneDefinition, wallMs: number, instantMs: number): boolean {
  const readings = definition.offsets.filter((offset) => offsetAt(definition, wallMs - offset * MINUTE_MS) === offset);
  return readings.length === 1 && wallMs - readings[0]! * MINUTE_MS === instantMs;
}
