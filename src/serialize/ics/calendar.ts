/**
 * Events as an iCalendar (RFC 5545) object, for subscription: `GET /events.ics` and the feeds of
 * one event. A pure function of the documents the list and the reads give; ical-generator writes
 * the calendar's properties and the events, timezones-ical-library the VTIMEZONE components
 * (vtimezone.ts), and this module writes ORGANIZER (below), puts them together and folds the lines
 * (fold.ts). docs/api.md describes the properties.
 *
 * The text depends on the stored data alone, never on the clock: DTSTAMP is the event's last
 * modification, as LAST-MODIFIED, so an unchanged feed is the same bytes, and its ETag, its 304
 * and the response cache hold. SEQUENCE, which a client compares to take a newer copy of an event,
 * is the whole seconds from 2020-01-01 to the last modification: no revision counter is stored,
 * and every update moves the modification time on.
 */
import { escape, ICalCalendar, ICalCalendarMethod, ICalEvent, ICalEventClass, type ICalEventData, ICalEventStatus } from 'ical-generator';
import { formatMessage, type Language } from '../../i18n/index.js';
import { htmlToText } from '../../lib/html.js';
import { type EventDoc, type OrganizerDoc, type PostStatus, type VenueDoc } from '../../storage/port.js';
import { type SerializeContext, permalink } from '../context.js';
import { type EventRelations } from '../events.js';
import { foldContentLines } from './fold.js';
import { eventTimes } from './times.js';
import { type ZoneDefinition } from './vtimezone.js';

export const CALENDAR_CONTENT_TYPE = 'text/calendar; charset=utf-8';

const PRODUCT_ID = '//calendar-service//Calendar feeds//EN';
/** How often a subscriber should fetch the feed again, in seconds (REFRESH-INTERVAL, X-PUBLISHED-TTL). */
const REFRESH_SECONDS = 3600;
const SEQUENCE_EPOCH_MS = Date.UTC(2020, 0, 1);

/** An event of a feed: what the list and the single reads give. `locked`: shown as the list redacts it. */
export interface FeedEvent {
  doc: EventDoc;
  relations: EventRelations;
  locked: boolean;
}

const STATUSES: Record<PostStatus, ICalEventStatus> = {
  publish: ICalEventStatus.CONFIRMED,
  private: ICalEventStatus.CONFIRMED,
  future: ICalEventStatus.TENTATIVE,
  draft: ICalEventStatus.TENTATIVE,
  pending: ICalEventStatus.TENTATIVE,
  trash: ICalEventStatus.CANCELLED,
};

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

/** A venue on one line: its name and address, the parts it has. */
function locationOf(venue: VenueDoc): ICalEventData['location'] {
  const region = venue.stateprovince || venue.state || venue.province;
  const title = [venue.name, venue.address, venue.city, region, venue.zip, venue.country].filter((part) => part.trim() !== '').join(', ');
  if (venue.location === null) return title;
  const [lon, lat] = venue.location.coordinates;
  return { title, geo: { lat, lon } };
}

/** A parameter value in quotes (RFC 6868: `^` `"` and newlines as `^^` `^'` `^n`; other controls dropped). */
function quotedParameter(text: string): string {
  let out = '';
  for (const c of text) {
    if (c === '^') out += '^^';
    else if (c === '"') out += "^'";
    else if (c === '\n') out += '^n';
    else if (c >= ' ' && c !== '\u007f') out += c;
  }
  return `"${out}"`;
}

/**
 * ORGANIZER: the first organizer (iCalendar allows one), its name as CN, and its address as the
 * value: `mailto:` its e-mail, else its website, else its page. Written here: ical-generator
 * escapes CN with backslashes, which RFC 6868 does not know, and needs an e-mail address.
 */
function organizerLine(organizer: OrganizerDoc, ctx: SerializeContext): string {
  const email = organizer.email.trim();
  const website = organizer.website.trim();
  const address = email !== '' ? `mailto:${encodeURI(email)}` : /^https?:\/\/\S+$/i.test(website) ? website : permalink(ctx, 'organizer', organizer.slug);
  return `ORGANIZER;CN=${quotedParameter(organizer.name)}:${address}\r\n`;
}

function classOf(item: FeedEvent): ICalEventClass | null {
  if (item.locked) return ICalEventClass.CONFIDENTIAL;
  return item.doc.status === 'private' ? ICalEventClass.PRIVATE : null;
}

/**
 * A VEVENT, unfolded. A protected event shown without its password keeps what the list keeps of it
 * (identity, dates, title, status, link) and loses its description, place, organizers, categories
 * and whether it lasts all day; its CLASS is CONFIDENTIAL.
 */
function eventText(item: FeedEvent, calendar: ICalCalendar, ctx: SerializeContext, host: string): { text: string; zone: ZoneDefinition | null } {
  const { doc, relations, locked } = item;
  const times = eventTimes(doc, doc.allDay && !locked);
  const description = locked ? '' : htmlToText(doc.description) || htmlToText(doc.excerpt);
  const event = new ICalEvent(
    {
      id: `${doc._id}@${host}`,
      sequence: Math.max(0, Math.floor((doc.modifiedUtc.getTime() - SEQUENCE_EPOCH_MS) / 1000)),
      stamp: doc.modifiedUtc,
      lastModified: doc.modifiedUtc,
      start: times.start,
      end: times.end,
      timezone: times.timezone,
      allDay: times.allDay,
      summary: doc.title,
      description: description === '' ? null : description,
      location: locked || relations.venue === null ? null : locationOf(relations.venue),
      categories: locked ? [] : relations.categories.map((category) => ({ name: category.doc.name })),
      url: permalink(ctx, 'event', doc.slug),
      status: STATUSES[doc.status],
      class: classOf(item),
    },
    calendar,
  );
  let text = event.toString();
  const [organizer] = relations.organizers;
  if (!locked && organizer !== undefined) {
    const end = text.lastIndexOf('END:VEVENT\r\n');
    text = `${text.slice(0, end)}${organizerLine(organizer, ctx)}${text.slice(end)}`;
  }
  return { text, zone: times.zone };
}

/**
 * The calendar: its properties, a VTIMEZONE for every TZID its events use, and the events in the
 * order given.
 */
export function serializeCalendar(items: Iterable<FeedEvent>, ctx: SerializeContext, name: string): string {
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
    const { text, zone } = eventText(item, calendar, ctx, host);
    events.push(text);
    if (zone !== null) zones.set(zone.tzid, zone);
  }
  // ical-generator folds its own few lines; its text ends with END:VCALENDAR and no line break.
  const head = calendar.toString().replace(/END:VCALENDAR$/, '');
  const body = [...zones.values()].map((zone) => zone.component).join('') + events.join('');
  return `${head}${foldContentLines(body)}END:VCALENDAR\r\n`;
}
