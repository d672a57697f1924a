/**
 * Events as an iCalendar (RFC 5545) object, for subscription: `GET /events.ics` and the feeds of
 * one event. A pure function of the documents the list and the reads give: vevent.ts writes each
 * event, series.ts each recurring series (a master VEVENT and its occurrences with RECURRENCE-ID),
 * timezones-ical-library the VTIMEZONE components (vtimezone.ts), and this module puts them
 * together under the calendar's properties and folds the lines (fold.ts). docs/api.md describes
 * the properties.
 *
 * The text depends on the stored data alone, never on the clock (vevent.ts): an unchanged feed is
 * the same bytes, and its ETag, its 304 and the response cache hold.
 */
import { escape, ICalCalendar, ICalCalendarMethod } from 'ical-generator';
import { formatMessage, type Language } from '../../i18n/index.js';
import { type SerializeContext } from '../context.js';
import { foldContentLines } from './fold.js';
import { type FeedSeries, seriesTexts } from './series.js';
import { eventText, type FeedEvent } from './vevent.js';
import { type ZoneDefinition } from './vtimezone.js';

export { type FeedEvent } from './vevent.js';
export { type FeedSeries } from './series.js';

/** An item of a feed: an event, or a recurring series (told apart by `series`). */
export type FeedItem = FeedEvent | FeedSeries;

export const CALENDAR_CONTENT_TYPE = 'text/calendar; charset=utf-8';

const PRODUCT_ID = '//calendar-service//Calendar feeds//EN';
/** How often a subscriber should fetch the feed again, in seconds (REFRESH-INTERVAL, X-PUBLISHED-TTL). */
const REFRESH_SECONDS = 3600;

/** The host of the site's links: the right-hand side of every UID, and the calendar's name. */
export function siteHost(ctx: SerializeContext): string {
  return new URL(ctx.siteUrl).hostname;
}

/** X-WR-CALNAME: the names of the filters, or the site's events. */
export function feedName(language: Language, site: string, filters: readonly string[]): string {
  return filters.length === 0
    ? formatMessage(language, 'feed.name', { site })
    : formatMessage(language, 'feed.nameFiltered', { site, filters: filters.join(', ') });
}

/**
 * The calendar: its properties, a VTIMEZONE for every TZID its events use, and the events and
 * series in the order given.
 */
export function serializeCalendar(items: Iterable<FeedItem>, ctx: SerializeContext, name: string): string {
  const calendar = new ICalCalendar({
    prodId: PRODUCT_ID,
    method: ICalCalendarMethod.PUBLISH,
    scale: 'GREGORIAN',
    // ical-generator writes the name as given: escaped here as TEXT.
    name: escape(name, false),
    ttl: REFRESH_SECONDS,
  });
  const host = siteHost(ctx);
  const zones = new Map<string, ZoneDefinition>();
  const events: string[] = [];
  for (const item of items) {
    for (const { text, zone } of 'series' in item ? seriesTexts(item, calendar, ctx, host) : [eventText(item, calendar, ctx, host)]) {
      events.push(text);
      if (zone !== null) zones.set(zone.tzid, zone);
    }
  }
  // ical-generator folds its own few lines; its text ends with END:VCALENDAR and no line break.
  const head = calendar.toString().replace(/END:VCALENDAR$/, '');
  const body = [...zones.values()].map((zone) => zone.component).join('') + events.join('');
  return `${head}${foldContentLines(body)}END:VCALENDAR\r\n`;
}
