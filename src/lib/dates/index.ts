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
export { isAbsoluteDateInput } from './absolute.js';
