import { isAbsoluteDateInput } from '../lib/dates/index.js';
import { DATE_PARAMS } from '../query/events.js';
import { MODIFIED_PARAMS } from '../query/modified.js';

/**
 * Whether the response cache (src/plugins/http-cache.ts) may keep an event list's answer, JSON or
 * iCalendar: unless a date parameter (`modified_after` and `modified_before` included) is read
 * relative to the clock (`now`, `+1 week`).
 */
export const listMayBeKept = (request: { query: unknown }): boolean =>
  [...DATE_PARAMS, ...MODIFIED_PARAMS].every((name) => {
    const value = (request.query as Record<string, unknown>)[name];
    return value === undefined || isAbsoluteDateInput(value);
  });
