/**
 * One VEVENT of a feed, unfolded: ical-generator writes the event's properties, this module
 * ORGANIZER (below) and the lines a caller adds (a series' RRULE, EXDATE, RDATE, an occurrence's
 * RECURRENCE-ID). docs/api.md describes the properties.
 *
 * DTSTAMP is the modification it states, as LAST-MODIFIED, never the clock: an unchanged feed is
 * the same bytes, and its ETag, its 304 and the response cache hold. SEQUENCE, which a client
 * compares to take a newer copy of an event, is the whole seconds from 2020-01-01 to that
 * modification: no revision counter is stored, and every update moves the modification time on.
 */
import { ICalCalendar, ICalEvent, ICalEventClass, type ICalEventData, ICalEventStatus } from 'ical-generator';
import { htmlToText } from '../../lib/html.js';
import { type EventDoc, type OrganizerDoc, type PostStatus, type VenueDoc } from '../../storage/port.js';
import { type SerializeContext, permalink } from '../context.js';
import { type EventRelations } from '../events.js';
import { type EventTimes, eventTimes } from './times.js';
import { type ZoneDefinition } from './vtimezone.js';

const SEQUENCE_EPOCH_MS = Date.UTC(2020, 0, 1);

/** An event of a feed: what the list and the single reads give. `locked`: shown as the list redacts it. */
export interface FeedEvent {
  doc: EventDoc;
  relations: EventRelations;
  locked: boolean;
}

/** What a VEVENT states other than its event's own: left out, the event's. */
export interface VeventOptions {
  /** UID; the event's is `<id>@<host>`. */
  uid?: string;
  /** URL; the event's page. */
  url?: string;
  /** The modification stated (DTSTAMP, LAST-MODIFIED, SEQUENCE); the event's own. */
  modified?: Date;
  /** The times, when the caller has worked them out already. */
  times?: EventTimes;
  /** Content lines, each ending in CRLF, added before END:VEVENT. */
  lines?: string;
}

const STATUSES: Record<PostStatus, ICalEventStatus> = {
  publish: ICalEventStatus.CONFIRMED,
  private: ICalEventStatus.CONFIRMED,
  future: ICalEventStatus.TENTATIVE,
  draft: ICalEventStatus.TENTATIVE,
  pending: ICalEventStatus.TENTATIVE,
  trash: ICalEventStatus.CANCELLED,
};

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

/** The times the feed writes for an event: a protected event shown without its password hides whether it is all-day. */
export function feedTimes(item: FeedEvent): EventTimes {
  return eventTimes(item.doc, item.doc.allDay && !item.locked);
}

/**
 * A VEVENT, unfolded. A protected event shown without its password keeps what the list keeps of it
 * (identity, dates, title, status, link) and loses its description, place, organizers, categories
 * and whether it lasts all day; its CLASS is CONFIDENTIAL.
 */
export function eventText(
  item: FeedEvent,
  calendar: ICalCalendar,
  ctx: SerializeContext,
  host: string,
  options: VeventOptions = {},
): { text: string; zone: ZoneDefinition | null } {
  const { doc, relations, locked } = item;
  const times = options.times ?? feedTimes(item);
  const modified = options.modified ?? doc.modifiedUtc;
  const description = locked ? '' : htmlToText(doc.description) || htmlToText(doc.excerpt);
  const event = new ICalEvent(
    {
      id: options.uid ?? `${doc._id}@${host}`,
      sequence: Math.max(0, Math.floor((modified.getTime() - SEQUENCE_EPOCH_MS) / 1000)),
      stamp: modified,
      lastModified: modified,
      start: times.start,
      end: times.end,
      timezone: times.timezone,
      allDay: times.allDay,
      summary: doc.title,
      description: description === '' ? null : description,
      location: locked || relations.venue === null ? null : locationOf(relations.venue),
      categories: locked ? [] : relations.categories.map((category) => ({ name: category.doc.name })),
      url: options.url ?? permalink(ctx, 'event', doc.slug),
      status: STATUSES[doc.status],
      class: classOf(item),
    },
    calendar,
  );
  let text = event.toString();
  const [organizer] = relations.organizers;
  const added = `${!locked && organizer !== undefined ? organizerLine(organizer, ctx) : ''}${options.lines ?? ''}`;
  if (added !== '') {
    const end = text.lastIndexOf('END:VEVENT\r\n');
    text = `${text.slice(0, end)}${added}${text.slice(end)}`;
  }
  return { text, zone: times.zone };
}
