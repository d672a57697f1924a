/**
 * Recurring series (RFC 5545 RRULE, EXDATE, RDATE) as pure functions over local dates.
 *
 * The rules of the model:
 * - A series starts on a local date `YYYY-MM-DD` in its own zone, and its occurrences are whole
 *   local dates: the caller puts the series' wall-clock start time on each and converts it to UTC.
 *   Rules are expanded "floating" (local dates as UTC midnights; rrule.js's `tzid` is never used).
 * - At most one occurrence per date: FREQ=SECONDLY/MINUTELY/HOURLY and BYHOUR/BYMINUTE/BYSECOND
 *   are refused, and so are DTSTART and TZID inside the rule (the event gives both).
 * - Every rule ends, by COUNT or UNTIL, within 100 years of its start: every occurrence is
 *   listed, so a series must be bounded. UNTIL's date counts, inclusive, whatever time it carries.
 * - The start date is always the first occurrence and counts toward COUNT, even when the rule
 *   does not match it (RFC 5545 §3.8.5.3).
 * - rdates add dates, exdates remove dates (from the rule's and the rdates); both are stored as
 *   sorted, unique local dates, at most 1,000 each, and no rdate precedes the start.
 * - The whole set holds between 1 and `maxOccurrences` dates.
 * Refusals are RecurrenceErrors whose message is an English sentence starting with `recurrence:`.
 */
export { RecurrenceError } from './dates.js';
export { HORIZON_YEARS, MAX_DATE_LIST, occurrenceDates, parseRecurrence, type RecurrenceInput, type RecurrenceRule } from './expand.js';
export { ruleFrom, ruleUntilBefore, withExdate } from './split.js';
export { type DescribeLanguage, describeRecurrence } from './describe.js';
export { icsRrule } from './ics.js';
