/**
 * What a change made through one occurrence does to its series (scopes `all` and `following`):
 * the fields every non-exception occurrence takes, and the series' new timing. A change of the
 * occurrence's start or end moves the series by the same wall-clock shift and sets its duration;
 * a shift across midnight moves every date by the same whole days, which the rule must then give
 * (or the write sends the rule for the new days). Pure: the clock's reading is a parameter.
 */
import { allDayBounds, formatWallClock, wallClockToInstant } from '../../lib/dates/index.js';
import { occurrenceDates } from '../../lib/recurrence/index.js';
import { type EventDoc, type SeriesDoc, type StoredRecurrence } from '../../storage/port.js';
import { type EventInput } from '../events/fields.js';
import { type ParamErrors } from '../input.js';
import { addDays, daysBetween, occurrenceBounds, wallMs, wallOf } from './schedule.js';

/** The change to a series that a write of one of its occurrences makes. */
export interface SeriesChange {
  /** Fields the template and every non-exception occurrence take (not the dates: those follow the timing). */
  common: Partial<EventDoc>;
  timezone: string;
  allDay: boolean;
  /** The wall-clock shift of the start. */
  shiftMs: number;
  /** The whole days the shift moves every date by. */
  days: number;
  /** The new wall-clock duration; null keeps the series'. */
  durationMs: number | null;
}

const TIMING_INPUTS = ['start_date', 'end_date', 'timezone', 'all_day'] as const;

/**
 * The change a write makes, from its resolved fields (`set`, resolved against `occurrence`). The
 * shift is measured from where the series puts the occurrence (an exception may have moved).
 */
export function changeOf(series: SeriesDoc, occurrence: EventDoc, input: EventInput, set: Partial<EventDoc>): SeriesChange {
  const { startUtc: _start, endUtc: _end, slug: _slug, ...common } = set;
  const timezone = set.timezone ?? series.timezone;
  const allDay = set.allDay ?? series.allDay;
  if (!TIMING_INPUTS.some((name) => input[name] !== undefined)) return { common, timezone, allDay, shiftMs: 0, days: 0, durationMs: null };
  const date = occurrence.occurrenceDate as string;
  const planned = formatWallClock(occurrenceBounds(series, date).startUtc, series.timezone);
  const start = formatWallClock(set.startUtc ?? occurrence.startUtc, timezone);
  const end = formatWallClock(set.endUtc ?? occurrence.endUtc, timezone);
  return {
    common,
    timezone,
    allDay,
    shiftMs: wallMs(start) - wallMs(planned),
    days: daysBetween(date, start.slice(0, 10)),
    durationMs: Math.max(0, wallMs(end) - wallMs(start)),
  };
}

/** The series' template dates after the change (its first occurrence's). */
export function changedTiming(series: SeriesDoc, change: SeriesChange): Pick<EventDoc, 'startUtc' | 'endUtc' | 'timezone' | 'allDay'> {
  const start = formatWallClock(series.startUtc, series.timezone);
  const duration = change.durationMs ?? wallMs(formatWallClock(series.endUtc, series.timezone)) - wallMs(start);
  const startWall = wallOf(wallMs(start) + change.shiftMs);
  const startUtc = wallClockToInstant(startWall, change.timezone);
  const endUtc = wallClockToInstant(wallOf(wallMs(startWall) + duration), change.timezone);
  const bounds = change.allDay ? allDayBounds(startUtc, endUtc, change.timezone) : { start: startUtc, end: endUtc };
  return { startUtc: bounds.start, endUtc: bounds.end, timezone: change.timezone, allDay: change.allDay };
}

/**
 * The rule moved by whole days along with its dates (exdates and rdates too): undefined, with a
 * problem under `start_date`, when the rule would give other days from the new start (a rule that
 * names its days must be sent anew for the new ones).
 */
export function shiftedRule(rule: StoredRecurrence, startDate: string, days: number, errors: ParamErrors): StoredRecurrence | undefined {
  if (days === 0) return rule;
  const shift = (dates: readonly string[]) => dates.map((date) => addDays(date, days));
  const moved = { rrule: rule.rrule, exdates: shift(rule.exdates), rdates: shift(rule.rdates) };
  const wanted = shift(occurrenceDates(rule, startDate));
  const got = occurrenceDates(moved, addDays(startDate, days));
  if (got.length === wanted.length && got.every((date, i) => date === wanted[i])) return moved;
  errors.add('start_date', 'start_date moves the series to days its rule does not give: send the rule for the new days in recurrence.');
  return undefined;
}
