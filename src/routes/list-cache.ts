import { isAbsoluteDateInput } from '../lib/dates/index.js';
import { DATE_PARAMS } from '../query/events.js';

/**
 * Whether the response cache (src/plugins/http-cache.ts) may keep an event list's answer, JSON or
 * iCalendar: unless a date parameter is read relative to the clock (`now`, `+1 week`).
 */
export const listMayBeKept = (request: { query: unknown }): boolean =>
  DATE_PARAMS.every((name) => {
    const value = (request.query as Record<string, unknown>)[name];
    return value === undefined || isAbsoluteDateInput(value);
  });
