/**
 * Date and time-zone handling of the reference, as pure
 * functions, for the API and the seed CLI alike:
 * - zones.ts: which zones exist, their offsets (the one offset cache), instants ↔ wall clocks;
 * - parse.ts: dates as the API reads them (the common forms directly, the rest as PHP's strtotime);
 * - format.ts: dates as the API writes them.
 */
export {
  allDayBounds,
  endOfLocalDay,
  type InstantRange,
  isValidTimezone,
  startOfLocalDay,
  utcOffsetMinutes,
  wallAsUtcMs,
  wallClockToInstant,
  type WallFields,
  wallFieldsOf,
  zoneFor,
  zoneRules,
} from './zones.js';
export { parseDateInput, type ParseDateOptions } from './parse.js';
export { dateDetails, type DateDetails, formatWallClock, isoWithOffset, timezoneAbbr } from './format.js';

/**
 * Whether a date parameter names an instant whatever the time of the request: a calendar date or
 * date and time (ISO 8601 or `Y-m-d H:i:s`, optionally with an offset) or `@<unix seconds>`.
 * Everything else (`now`, `tomorrow`, `+1 week`, …) is read relative to the clock.
 */
export function isAbsoluteDateInput(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  return /^\s*(?:\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?(?:\s?(?:Z|[+-]\d{2}(?::?\d{2})?))?|@-?\d+)\s*$/i.test(value);
}
