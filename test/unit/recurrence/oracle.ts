/**
 * The independent expansion the properties compare with: ical.js reading a VEVENT with the
 * series' RRULE, EXDATE and RDATE, its DTSTART a DATE, a floating local date-time, or a local
 * date-time with a TZID (its VTIMEZONE from timezones-ical-library, in the calendar text, where
 * ical.js looks the TZID up).
 *
 * One adjustment: the model counts the start date as the first occurrence even when the rule does
 * not match it (RFC 5545 §3.8.5.3), and ical.js leaves such a DTSTART out for most frequencies.
 * When ical.js's own expansion of the rule does not begin with DTSTART, the VEVENT given to it
 * says the same thing in terms it reads alike: DTSTART as an RDATE, and COUNT one less.
 */
import ICAL from 'ical.js';
import { tzlib_get_ical_block } from 'timezones-ical-library';

export type Start = { kind: 'date' } | { kind: 'floating'; time: string } | { kind: 'zoned'; time: string; zone: string };

export interface OracleInput {
  /** RRULE value as the VEVENT carries it. */
  rrule: string;
  startDate: string;
  start: Start;
  exdates: readonly string[];
  rdates: readonly string[];
}

const compact = (date: string): string => date.replaceAll('-', '');

function vtimezone(zone: string): string {
  const block: unknown = tzlib_get_ical_block(zone);
  if (!Array.isArray(block) || typeof block[0] !== 'string') throw new Error(`no VTIMEZONE for ${zone}`);
  return block[0];
}

/** A DATE or DATE-TIME property of the VEVENT for local dates in the start's form. */
function dateProperty(name: string, dates: readonly string[], start: Start): string {
  if (start.kind === 'date') return `${name};VALUE=DATE:${dates.map(compact).join(',')}`;
  const values = dates.map((date) => `${compact(date)}T${start.time.replaceAll(':', '')}`).join(',');
  return start.kind === 'floating' ? `${name}:${values}` : `${name};TZID=${start.zone}:${values}`;
}

function calendar(input: OracleInput, rrule: string | null, withLists: boolean, extraRdates: readonly string[] = []): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//recurrence//EN'];
  if (input.start.kind === 'zoned') lines.push(...vtimezone(input.start.zone).split(/\r?\n/));
  lines.push('BEGIN:VEVENT', 'UID:series@test', 'DTSTAMP:20250101T000000Z', dateProperty('DTSTART', [input.startDate], input.start));
  if (rrule !== null) lines.push(`RRULE:${rrule}`);
  if (withLists && input.exdates.length > 0) lines.push(dateProperty('EXDATE', input.exdates, input.start));
  const rdates = withLists ? [...input.rdates, ...extraRdates] : extraRdates;
  if (rdates.length > 0) lines.push(dateProperty('RDATE', rdates, input.start));
  lines.push('END:VEVENT', 'END:VCALENDAR');
  return lines.join('\r\n');
}

/** The local dates of ical.js's occurrences of a calendar's first VEVENT (at most `limit`). */
function expand(text: string, limit: number): string[] {
  const root = new ICAL.Component(ICAL.parse(text) as unknown[]);
  const event = new ICAL.Event(root.getFirstSubcomponent('vevent') ?? undefined);
  const iterator = event.iterator();
  const dates: string[] = [];
  for (let next = iterator.next(); next !== undefined && next !== null && dates.length < limit; next = iterator.next()) {
    dates.push(next.toString().slice(0, 10));
  }
  return dates;
}

/** ical.js's occurrence dates of the series, sorted. */
export function icalDates(input: OracleInput, limit = 5000): string[] {
  const ruleOnly = expand(calendar(input, input.rrule, false), 1);
  let rrule: string | null = input.rrule;
  const extra: string[] = [];
  if (ruleOnly[0] !== input.startDate) {
    extra.push(input.startDate);
    const count = /COUNT=(\d+)/.exec(rrule);
    if (count !== null) {
      const less = Number(count[1]) - 1;
      rrule = less === 0 ? null : rrule.replace(/COUNT=\d+/, `COUNT=${less}`);
    }
  }
  // ical.js applies an EXDATE to one instance of a date: an rdate the rule also yields stays. And
  // it stops applying EXDATE after one that matches no instance (once the rule is done, an rdate
  // after such an exdate stays). Neither kind changes the set: only the others are given to it.
  const ruleInstances = new Set(expand(calendar({ ...input, exdates: [], rdates: [] }, rrule, true, extra), limit));
  const rdates = input.rdates.filter((date) => !ruleInstances.has(date));
  const instances = new Set([...ruleInstances, ...rdates]);
  const exdates = input.exdates.filter((date) => instances.has(date));
  return [...new Set(expand(calendar({ ...input, exdates, rdates }, rrule, true, extra), limit))].sort();
}
