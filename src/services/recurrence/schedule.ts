/**
 * Where a series' occurrences fall: each on its local date at the series' local start time in the
 * series' zone, lasting the series' wall-clock duration, so 19:00–21:00 stays 19:00–21:00 across a
 * DST change (an all-day series keeps the all-day bounds). Pure: dates are `YYYY-MM-DD`, local to
 * the series' zone.
 */
import { allDayBounds, formatWallClock, wallClockToInstant } from '../../lib/dates/index.js';
import { type EventDoc, type SeriesDoc } from '../../storage/port.js';

const DAY_MS = 86_400_000;

/** The local date (`YYYY-MM-DD`) of an instant in a zone. */
export const localDate = (instant: Date, timezone: string): string => formatWallClock(instant, timezone).slice(0, 10);

/** The date `days` after (before, when negative) a local date. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** A wall clock read as if it were UTC: wall-clock arithmetic without the zone's offsets. */
export const wallMs = (wall: string): number => Date.parse(`${wall.replace(' ', 'T')}Z`);
export const wallOf = (ms: number): string => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** Whole days from one local date to another. */
export const daysBetween = (from: string, to: string): number => Math.round((wallMs(`${to} 00:00:00`) - wallMs(`${from} 00:00:00`)) / DAY_MS);

/** What every occurrence of a series shares: the local start time and the wall-clock duration. */
export interface SeriesClock {
  /** The series' first local date (DTSTART's date). */
  startDate: string;
  /** `HH:MM:SS` in the series' zone. */
  startTime: string;
  durationMs: number;
}

export function seriesClock(series: Pick<EventDoc, 'startUtc' | 'endUtc' | 'timezone'>): SeriesClock {
  const start = formatWallClock(series.startUtc, series.timezone);
  const end = formatWallClock(series.endUtc, series.timezone);
  return { startDate: start.slice(0, 10), startTime: start.slice(11), durationMs: Math.max(0, wallMs(end) - wallMs(start)) };
}

/** The instants of the occurrence on `date`. */
export function occurrenceBounds(series: Pick<EventDoc, 'startUtc' | 'endUtc' | 'timezone' | 'allDay'>, date: string): { startUtc: Date; endUtc: Date } {
  const { startTime, durationMs } = seriesClock(series);
  const startWall = `${date} ${startTime}`;
  const start = wallClockToInstant(startWall, series.timezone);
  const end = wallClockToInstant(wallOf(wallMs(startWall) + durationMs), series.timezone);
  if (!series.allDay) return { startUtc: start, endUtc: end };
  const bounds = allDayBounds(start, end, series.timezone);
  return { startUtc: bounds.start, endUtc: bounds.end };
}

/** An occurrence's slug: the series' slug and the date (a clash falls back to a suffix). */
export const occurrenceSlug = (seriesSlug: string, date: string): string => `${seriesSlug}-${date}`;

/** The template's event fields: the series without its rule. */
export function templateOf(series: SeriesDoc): Omit<SeriesDoc, 'recurrence' | 'nextDate'> {
  const { recurrence: _rule, nextDate: _next, ...template } = series;
  return template;
}

/** The occurrence of `series` on `date`, stored under `id`: every template field, its own dates. */
export function occurrenceDoc(series: SeriesDoc, id: number, date: string): EventDoc {
  return {
    ...templateOf(series),
    _id: id,
    slug: occurrenceSlug(series.slug, date),
    ...occurrenceBounds(series, date),
    postParent: series._id,
    seriesId: series._id,
    occurrenceDate: date,
    isException: false,
  };
}

/** The last local date within the horizon: `days` after today in the zone. */
export const horizonDate = (now: Date, days: number, timezone: string): string => addDays(localDate(now, timezone), days);
