/**
 * Whether a date parameter names an instant whatever the time of the request: a calendar date or
 * date and time (ISO 8601 or `Y-m-d H:i:s`, optionally with an offset) or `@<unix seconds>`.
 * Everything else (`now`, `tomorrow`, `+1 week`, …) is read relative to the clock.
 */
export function isAbsoluteDateInput(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  return /^\s*(?:\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?(?:\s?(?:Z|[+-]\d{2}(?::?\d{2})?))?|@-?\d+)\s*$/i.test(value);
}
