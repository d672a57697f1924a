/**
 * A recurring series in a feed, as calendar apps show a series: one master VEVENT — the series'
 * template with its DTSTART and DTEND (the first occurrence's), RRULE, EXDATE and RDATE — and a
 * VEVENT with RECURRENCE-ID (the same UID) for each occurrence the rule does not describe by
 * itself: the exceptions, and the occurrences whose times a client would not derive exactly from
 * the master. docs/recurrence.md ("iCalendar feeds") describes the rules.
 *
 * A client derives an occurrence's start from its date at the master's local start time, and its
 * end by adding the master's duration — in elapsed time (RFC 5545) or on the wall clock (some
 * clients): both give the stored end only when the duration is the master's and the zone's offset
 * does not change during the occurrence. An occurrence whose stored times differ (a night across
 * a daylight-saving change, a local time the VTIMEZONE reads otherwise) is written with its own.
 *
 * The rule's dates are local dates, so the master's DTSTART is a DATE (all-day), a local time
 * with its TZID, or a UTC time only in a zone of fixed offset where the start keeps its local
 * date (a rule's days are then the same in UTC). A series that fits none of these (a zone without
 * a VTIMEZONE, a start in the hour a VTIMEZONE reads twice) is written as the feed's occurrences of
 * it, one by one, each as an event of its own.
 */
import { type ICalCalendar } from 'ical-generator';
import { utcOffsetMinutes, wallFieldsOf, zoneRules } from '../../lib/dates/index.js';
import { icsRrule } from '../../lib/recurrence/index.js';
import { type SeriesDoc } from '../../storage/port.js';
import { type SerializeContext } from '../context.js';
import { type EventRelations } from '../events.js';
import { type EventTimes } from './times.js';
import { eventText, type FeedEvent, feedTimes } from './vevent.js';
import { offsetAt, readsBack, type ZoneDefinition } from './vtimezone.js';

const MINUTE_MS = 60_000;

/** A series of a feed, with what the caller may see of its occurrences. */
export interface FeedSeries {
  series: SeriesDoc;
  /** The template's linked records, as the caller sees them. */
  relations: EventRelations;
  /** Shown as the list redacts it. */
  locked: boolean;
  /** The latest modification of the series or any of its occurrences: the master's DTSTAMP, LAST-MODIFIED and SEQUENCE. */
  modifiedUtc: Date;
  /** Dates of occurrences the caller does not see (trashed, unpublished, hidden from listings): EXDATE, beside the rule's. */
  hiddenDates: readonly string[];
  /** The occurrences the caller sees that follow the template (not exceptions). */
  occurrences: readonly FeedEvent[];
  /** The exceptions the caller sees. */
  exceptions: readonly FeedEvent[];
  /** The series' occurrences in the list, in its order: written one by one when the series cannot be one master. */
  listed: readonly FeedEvent[];
}

/** The UID of a series' VEVENTs: `series-<id>@<host>`, apart from an event's `<id>@<host>`. */
export function seriesUid(id: number, host: string): string {
  return `series-${id}@${host}`;
}

type Form = { kind: 'date' } | { kind: 'zoned'; zone: ZoneDefinition } | { kind: 'utc'; offset: number };

interface Master {
  form: Form;
  times: EventTimes;
  /** DTSTART's local date and time, `YYYY-MM-DD` and `HH:MM:SS`. */
  startDate: string;
  startTime: string;
  /** Milliseconds from local midnight to the start. */
  timeOfDay: number;
  /** DTEND − DTSTART in milliseconds (whole days for dates). */
  duration: number;
}

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');
/** 00:00 UTC of a `YYYY-MM-DD` date, in milliseconds. */
const dayMs = (date: string): number => Date.parse(`${date}T00:00:00Z`);
const compactDate = (date: string): string => date.replaceAll('-', '');
/** `YYYYMMDDTHHMMSSZ` of an instant. */
const utcText = (ms: number): string =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/** The master's form, or null when no form describes the series' dates (then its occurrences are written one by one). */
function masterOf(item: FeedSeries): Master | null {
  const { series } = item;
  const times = feedTimes({ doc: series, relations: item.relations, locked: item.locked });
  const wall = wallFieldsOf(series.startUtc, zoneRules(series.timezone));
  const startDate = `${pad(wall.year, 4)}-${pad(wall.month)}-${pad(wall.day)}`;
  const startTime = `${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}`;
  const timeOfDay = ((wall.hour * 60 + wall.minute) * 60 + wall.second) * 1000;
  const base = { times, startDate, startTime, timeOfDay, duration: series.endUtc.getTime() - series.startUtc.getTime() };
  if (times.allDay) return { ...base, form: { kind: 'date' }, duration: (times.end as Date).getTime() - (times.start as Date).getTime() };
  if (times.zone !== null) return { ...base, form: { kind: 'zoned', zone: times.zone } };
  const offset = series.timezone === 'UTC' ? 0 : utcOffsetMinutes(series.timezone);
  if (offset === null || series.startUtc.toISOString().slice(0, 10) !== startDate) return null;
  return { ...base, form: { kind: 'utc', offset } };
}

/** Whether a client derives exactly the occurrence's times from the master (see the module's comment). */
function derivable(master: Master, occurrence: FeedEvent, date: string): boolean {
  const { doc, locked } = occurrence;
  if (doc.allDay && !locked) {
    if (master.form.kind !== 'date') return false;
    const times = feedTimes(occurrence);
    const start = (times.start as Date).getTime();
    return start === dayMs(date) && (times.end as Date).getTime() - start === master.duration;
  }
  if (master.form.kind === 'date') return false;
  const start = doc.startUtc.getTime();
  const end = doc.endUtc.getTime();
  if (end - start !== master.duration) return false;
  const wall = dayMs(date) + master.timeOfDay;
  if (master.form.kind === 'utc') return start === wall - master.form.offset * MINUTE_MS;
  const { zone } = master.form;
  return readsBack(zone, wall, start) && offsetAt(zone, start) === offsetAt(zone, end);
}

/** How the series' instances are named (RECURRENCE-ID, EXDATE, RDATE): DTSTART's form, on a given date. */
function instanceForm(master: Master): { params: string; value: (date: string) => string } {
  const { form } = master;
  if (form.kind === 'date') return { params: ';VALUE=DATE', value: compactDate };
  if (form.kind === 'zoned') {
    const time = master.startTime.replaceAll(':', '');
    return { params: `;TZID=${form.zone.tzid}`, value: (date) => `${compactDate(date)}T${time}` };
  }
  return { params: '', value: (date) => utcText(dayMs(date) + master.timeOfDay - form.offset * MINUTE_MS) };
}

/** RRULE, EXDATE and RDATE of the master, each line ending in CRLF. */
function ruleLines(item: FeedSeries, master: Master): string {
  const { recurrence, timezone } = item.series;
  const allDay = master.form.kind === 'date';
  const rrule = icsRrule(recurrence, master.startDate, master.startTime, allDay, allDay ? undefined : timezone);
  const { params, value } = instanceForm(master);
  const list = (name: string, dates: readonly string[]) => (dates.length === 0 ? '' : `${name}${params}:${dates.map(value).join(',')}\r\n`);
  const exdates = [...new Set([...recurrence.exdates, ...item.hiddenDates])].sort();
  return `RRULE:${rrule}\r\n${list('EXDATE', exdates)}${list('RDATE', recurrence.rdates)}`;
}

/**
 * The VEVENTs of a series, unfolded, with the zone each uses: the master, then the occurrences
 * written with RECURRENCE-ID in date order; or the listed occurrences one by one.
 */
export function seriesTexts(
  item: FeedSeries,
  calendar: ICalCalendar,
  ctx: SerializeContext,
  host: string,
): Array<{ text: string; zone: ZoneDefinition | null }> {
  const master = masterOf(item);
  if (master === null) return item.listed.map((occurrence) => eventText(occurrence, calendar, ctx, host));
  const uid = seriesUid(item.series._id, host);
  const { params, value } = instanceForm(master);
  const own = [...item.exceptions, ...item.occurrences.filter((o) => !derivable(master, o, o.doc.occurrenceDate as string))];
  own.sort((a, b) => ((a.doc.occurrenceDate as string) < (b.doc.occurrenceDate as string) ? -1 : 1));
  return [
    eventText({ doc: item.series, relations: item.relations, locked: item.locked }, calendar, ctx, host, {
      uid,
      modified: item.modifiedUtc,
      times: master.times,
      lines: ruleLines(item, master),
    }),
    ...own.map((o) => eventText(o, calendar, ctx, host, { uid, lines: `RECURRENCE-ID${params}:${value(o.doc.occurrenceDate as string)}\r\n` })),
  ];
}
