/**
 * The RRULE of an iCalendar VEVENT. A stored UNTIL names the last local date; a calendar app
 * compares it with each occurrence's DTSTART, so it is written in DTSTART's form: a DATE for
 * all-day events, else a date-time: that date at the series' start time, local like DTSTART's
 * wall clock, or, given the zone, the end of that date as the UTC instant RFC 5545 asks for beside
 * a DTSTART with a TZID.
 */
import { wallClockToInstant } from '../dates/index.js';
import { compactDate, RecurrenceError } from './dates.js';
import { checkDate, type RecurrenceRule } from './expand.js';
import { parseRule, ruleText } from './rule.js';

const TIME = /^([01]\d|2[0-3]):([0-5]\d):([0-5]\d)$/;

/** `YYYYMMDDTHHMMSSZ` of an instant. */
const utcText = (at: Date): string =>
  at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/**
 * The RRULE value (no `RRULE:` prefix) for a VEVENT whose DTSTART is `startDate` at `startTime`
 * (`HH:MM:SS`, local): UNTIL as a DATE when `allDay`, else as a date-time — in UTC when
 * `timezone` (the IANA zone of a DTSTART written with its TZID) is given, local otherwise.
 */
export function icsRrule(rule: RecurrenceRule, startDate: string, startTime: string, allDay: boolean, timezone?: string): string {
  checkDate(startDate, 'start date');
  if (!TIME.test(startTime)) throw new RecurrenceError(`recurrence: the start time ${JSON.stringify(startTime)} is not HH:MM:SS.`);
  const parts = parseRule(rule.rrule);
  if (parts.until === null) return ruleText(parts);
  const { date } = parts.until;
  if (allDay) return ruleText(parts, compactDate(date));
  if (timezone === undefined) return ruleText(parts, `${compactDate(date)}T${startTime.replaceAll(':', '')}`);
  // The end of the last local date, not its start time: a start time in a DST overlap or gap has
  // two or no instants, and readers may pick another than the service; the day's end has one.
  return ruleText(parts, utcText(wallClockToInstant(`${date} 23:59:59`, timezone)));
}
