/**
 * An event write's own values (references aside): each field checked and turned into what is
 * stored, dates read in the event's time zone, and a new event's document over the defaults.
 * Pure: the clock's reading and the site's time zone are parameters. Module-level functions rather
 * than closures: a bulk load resolves every record through them.
 */
import { parseCost } from '../../lib/cost.js';
import { allDayBounds, formatWallClock, isValidTimezone, parseDateInput, wallClockToInstant } from '../../lib/dates/index.js';
import { slugFrom } from '../../lib/slug.js';
import { searchTermsOf } from '../../lib/text.js';
import { InvalidParamsError } from '../../errors.js';
import { type EventCreate, type EventPatchById } from '../../schemas/events.js';
import { type EventDoc } from '../../storage/port.js';
import { type Caller, scheduleIfFuture } from '../access.js';
import { type ParamErrors, resolveImage, resolveWebsite, toBool, toId } from '../input.js';

/** Input of a write: a create body, or a patch (which may carry a password on id routes). */
export type EventInput = Partial<EventCreate> & Pick<EventPatchById, 'password'>;

/**
 * A date field of a write read in `zone`; null when absent or invalid (then noted in `errors`
 * under `name`). The caller reads the value: `input[name]` over four names would be a generic keyed
 * look-up on every write.
 */
function dateField(
  raw: EventInput['start_date'],
  name: 'start_date' | 'end_date' | 'date' | 'date_utc',
  zone: string,
  at: Date,
  errors: ParamErrors,
): Date | null {
  if (raw === undefined) return null;
  const parsed = parseDateInput(raw, { timezone: zone, now: at });
  if (parsed === null) errors.add(name, `${name} is not a valid date.`);
  return parsed;
}

/** A stored instant carried into a new time zone: the same wall clock there (unchanged when the zone is). */
function carried(instant: Date, from: string, to: string): Date {
  return from === to ? instant : wallClockToInstant(formatWallClock(instant, from), to);
}

/**
 * The stored fields of a write's own values (references aside), each checked; problems go to
 * `errors`. `at`: the write's instant; `siteTimezone`: the zone of an event that names none.
 */
export function resolveFields(input: EventInput, current: EventDoc | null, errors: ParamErrors, at: Date, siteTimezone: string): Partial<EventDoc> {
  const set: Partial<EventDoc> = {};

  if (input.title !== undefined) {
    if (input.title.trim() === '') errors.add('title', 'title must not be empty.');
    else set.title = input.title.trim();
  }
  if (input.description !== undefined) set.description = input.description;
  if (input.excerpt !== undefined) set.excerpt = input.excerpt;

  // Time zone first: dates are read in it.
  let timezone = current?.timezone ?? siteTimezone;
  if (input.timezone !== undefined) {
    const tz = input.timezone.trim();
    if (tz === '') timezone = siteTimezone;
    else if (isValidTimezone(tz)) timezone = tz;
    else errors.add('timezone', 'timezone must be an IANA time zone (e.g. Europe/Berlin), UTC or UTC±N.');
  }

  // Without a new value, a time-zone change keeps the wall clock.
  const start = dateField(input.start_date, 'start_date', timezone, at, errors) ?? (current ? carried(current.startUtc, current.timezone, timezone) : null);
  const end = dateField(input.end_date, 'end_date', timezone, at, errors) ?? (current ? carried(current.endUtc, current.timezone, timezone) : null);
  const allDay = input.all_day !== undefined ? toBool(input.all_day) : (current?.allDay ?? false);
  if (start && end) {
    const bounds = allDay ? allDayBounds(start, end, timezone) : { start, end };
    if (bounds.end.getTime() < bounds.start.getTime()) errors.add('end_date', 'end_date must not be before start_date.');
    set.startUtc = bounds.start;
    set.endUtc = bounds.end;
  }
  if (current === null || input.timezone !== undefined) set.timezone = timezone;
  if (current === null || input.all_day !== undefined) set.allDay = allDay;

  const dateUtc = dateField(input.date_utc, 'date_utc', 'UTC', at, errors);
  const date = dateField(input.date, 'date', timezone, at, errors);
  if (dateUtc ?? date) set.dateUtc = (dateUtc ?? date) as Date;

  if (input.author !== undefined) set.authorId = toId(input.author) ?? 0;
  if (input.status !== undefined) set.status = input.status;

  if (input.image !== undefined) {
    const image = resolveImage(input.image, errors);
    if (image !== undefined) set.image = image;
  }
  if (input.cost !== undefined) {
    const cost = parseCost(input.cost);
    if (cost === null) errors.add('cost', 'cost must be a string, a number or a list of them.');
    else Object.assign(set, cost);
  }
  if (input.website !== undefined) {
    const website = resolveWebsite(input.website, errors);
    if (website !== undefined) set.website = website;
  }
  if (input.show_map !== undefined) set.showMap = toBool(input.show_map);
  if (input.show_map_link !== undefined) set.showMapLink = toBool(input.show_map_link);
  if (input.hide_from_listings !== undefined) set.hideFromListings = toBool(input.hide_from_listings);
  if (input.sticky !== undefined) set.sticky = toBool(input.sticky);
  if (input.featured !== undefined) set.featured = toBool(input.featured);
  if (input.ticketed !== undefined) set.ticketed = toBool(input.ticketed);
  if (input.password !== undefined) set.password = input.password === '' ? null : input.password;
  return set;
}

/** After the references: throws one 400 naming every problem, else completes `set`. */
export function completeResolved(
  input: EventInput,
  current: EventDoc | null,
  caller: Caller,
  set: Partial<EventDoc>,
  postParent: number | null | undefined,
  errors: ParamErrors,
  at: Date,
): void {
  if (postParent !== undefined) set.postParent = postParent;

  if (!errors.empty) throw new InvalidParamsError(errors.params);

  scheduleIfFuture(set, current, at);

  if (input.title !== undefined || input.description !== undefined || input.excerpt !== undefined) {
    set.searchTerms = searchTermsOf(set.title ?? current?.title, set.description ?? current?.description, set.excerpt ?? current?.excerpt);
  }
  set.modifiedUtc = at;
  if (current === null && set.authorId === undefined) set.authorId = caller.authorId;
}

/**
 * A new event's document: the checked fields over the defaults (`at`: the instant of the defaults
 * that are dates). Written field by field rather than as the defaults followed by `...set`: the
 * spread copies each field through a generic property definition and builds five placeholder
 * arrays per event only to replace them. `??` keeps a default only where `set` has no value; no
 * field of `set` is ever null where its default is not. The key order is the stored and logged order.
 */
export function newEventDoc(id: number, input: EventCreate, set: Partial<EventDoc>, at: Date, siteTimezone: string): EventDoc {
  return {
    _id: id,
    slug: set.slug ?? slugFrom(input.slug ?? input.title, `event-${id}`),
    status: set.status ?? 'publish',
    authorId: set.authorId ?? 0,
    dateUtc: set.dateUtc ?? at,
    modifiedUtc: set.modifiedUtc ?? at,
    title: set.title ?? '',
    description: set.description ?? '',
    excerpt: set.excerpt ?? '',
    image: set.image ?? null,
    searchTerms: set.searchTerms ?? [],
    startUtc: set.startUtc ?? at,
    endUtc: set.endUtc ?? at,
    timezone: set.timezone ?? siteTimezone,
    allDay: set.allDay ?? false,
    cost: set.cost ?? [],
    currencySymbol: set.currencySymbol ?? '',
    currencyPosition: set.currencyPosition ?? '',
    website: set.website ?? null,
    showMap: set.showMap ?? false,
    showMapLink: set.showMapLink ?? false,
    hideFromListings: set.hideFromListings ?? false,
    sticky: set.sticky ?? false,
    featured: set.featured ?? false,
    ticketed: set.ticketed ?? false,
    postParent: set.postParent ?? null,
    venueId: set.venueId ?? null,
    organizerIds: set.organizerIds ?? [],
    categoryIds: set.categoryIds ?? [],
    tagIds: set.tagIds ?? [],
    password: set.password ?? null,
  };
}
