/**
 * Single-event use cases: create, read, update (truly partial), trash.
 * Every write validates the whole body and every reference before anything is written.
 */
import { parseCost } from '../lib/cost.js';
import {
  allDayBounds,
  formatWallClock,
  isValidTimezone,
  parseDateInput,
  wallClockToInstant,
} from '../lib/dates/index.js';
import { slugFrom } from '../lib/slug.js';
import { searchTermsOf } from '../lib/text.js';
import {
  AccessDeniedError,
  type ApiError,
  ConflictError,
  DuplicateKeyError,
  GoneError,
  InvalidParamsError,
  isClientError,
  MissingParamsError,
  NotFoundError,
} from '../errors.js';
import { compileEventList, DATE_PARAMS, type EventListInput } from '../query/events.js';
import { boundedDistinct, boundedIds } from '../query/id-lists.js';
import { DEFAULT_RADIUS, type DistanceUnit, reportDistance, toRadians } from '../query/geo.js';
import { NON_TRASH_STATUSES, resolveStatuses, statusFilter } from '../query/status.js';
import { type ListInputValue } from '../schemas/common.js';
import { type EventCreate, type EventListQuery, type EventPatchById } from '../schemas/events.js';
import { type EventRelations } from '../serialize/events.js';
import {
  type EventDoc,
  type Filter,
  type NearHit,
  type OrganizerDoc,
  type PostStatus,
  type Storage,
  type TermDoc,
} from '../storage/port.js';
import { asSeen, type Caller, effectiveStatus, eventUsableBy, passwordMatches } from './access.js';
import { type OrganizersService } from './organizers.js';
import { type TermRef, type TermsService } from './terms.js';
import { type VenuesService } from './venues.js';
import { changedFields } from './changes.js';
import { insertWithUniqueSlug as insertUnique } from './unique-slug.js';
import { KeyedLock } from '../lib/keyed-lock.js';
import { ParamErrors, resolveImage, resolveWebsite, termItems, toBool, toId, toList } from './input.js';

export type EventKey = { id: number } | { slug: string };

export interface ReadOptions {
  caller: Caller | null;
  password?: string | undefined;
  context?: string | undefined;
}

export interface EventsServiceDeps {
  storage: Pick<Storage, 'events' | 'venues' | 'organizers' | 'categories' | 'tags' | 'nextId'>;
  siteTimezone: string;
  perPageMax: number;
  /** GEOLOC_ENABLED: without it the geolocation parameters have no effect. */
  geolocEnabled?: boolean;
  /** Linked venues and organizers can be created inside an event write. */
  venues: VenuesService;
  organizers: OrganizersService;
  /** Terms are named by id, slug or name; unknown names are created. */
  categories: TermsService;
  tags: TermsService;
  now?: () => Date;
}

/** A linked record named in an event write: an existing id, or one to create once all is valid. */
type LinkRef = { id: number } | { create: Record<string, unknown>; description: string | undefined };

/** The linked records of a write, resolved (undefined: the write leaves that link alone). */
interface EventLinks {
  venue: LinkRef | null | undefined;
  organizers: LinkRef[] | undefined;
  categories: TermRef[] | undefined;
  tags: TermRef[] | undefined;
}

/** A write's references as resolveLinks reads them; `postParent` null unlinks. */
interface ResolvedLinks {
  links: EventLinks;
  postParent: number | null | undefined;
}

/** Ids of linked records known to exist, read for a batch of creates (createDocs). */
type KnownIds = Record<'venues' | 'organizers' | 'categories' | 'tags' | 'events', Set<number>>;

/** Input of a write: a create body, or a patch (which may carry a password on id routes). */
type EventInput = Partial<EventCreate> & Pick<EventPatchById, 'password'>;

const SLUG_INDEX = 'events_slug_unique';

export function createEventsService({ storage, siteTimezone, perPageMax, geolocEnabled = true, venues, organizers, categories, tags, now = () => new Date() }: EventsServiceDeps) {
  /** Updates and trashing of one event, one at a time (see `update`). */
  const writes = new KeyedLock<number>();

  async function findEvent(key: EventKey): Promise<EventDoc> {
    const doc = 'id' in key ? await storage.events.findById(key.id) : await storage.events.findOne({ slug: key.slug });
    if (!doc) throw 'id' in key ? new NotFoundError('event', key.id) : new NotFoundError('event', key.slug, 'slug');
    return doc;
  }

  /** Reads follow trash is gone for everyone, unpublished needs a token. */
  function assertReadable(doc: EventDoc, options: ReadOptions): void {
    if (doc.status === 'trash') {
      throw new AccessDeniedError('event-no-longer-available', 'errorMessage.event-no-longer-available');
    }
    if (effectiveStatus(doc, now()) !== 'publish' && options.caller === null) {
      throw new AccessDeniedError('event-not-accessible', 'errorMessage.event-not-accessible');
    }
    if (doc.password !== null) {
      const editContext = options.context === 'edit' && options.caller?.role === 'editor';
      if (!editContext && !passwordMatches(doc.password, options.password)) {
        throw new AccessDeniedError('event-password-protected', 'errorMessage.event-password-protected');
      }
    }
  }

  /**
   * The linked records of a page of events, loaded with one query per collection. Embedded venues
   * and organizers follow their own visibility: drafts are not shown to anonymous callers.
   */
  async function relationsOfMany(docs: EventDoc[], caller: Caller | null): Promise<EventRelations[]> {
    const unique = (ids: number[]) => [...new Set(ids)];
    const venueIds = unique(docs.flatMap((d) => (d.venueId === null ? [] : [d.venueId])));
    const organizerIds = unique(docs.flatMap((d) => d.organizerIds));
    const categoryIds = unique(docs.flatMap((d) => d.categoryIds));
    const tagIds = unique(docs.flatMap((d) => d.tagIds));
    const byIds = <T extends { _id: number }>(ids: number[], load: () => Promise<T[]>) => (ids.length === 0 ? Promise.resolve([]) : load());
    const [venueDocs, organizerDocs, categoryDocs, tagDocs, categoryCounts, tagCounts] = await Promise.all([
      byIds(venueIds, () => storage.venues.find({ filter: { _id: { $in: venueIds } } })),
      byIds(organizerIds, () => storage.organizers.find({ filter: { _id: { $in: organizerIds } } })),
      byIds(categoryIds, () => storage.categories.find({ filter: { _id: { $in: categoryIds } } })),
      byIds(tagIds, () => storage.tags.find({ filter: { _id: { $in: tagIds } } })),
      categoryIds.length === 0 ? new Map<number, number>() : categories.counts(),
      tagIds.length === 0 ? new Map<number, number>() : tags.counts(),
    ]);
    // Embedded like the standalone reads: a scheduled record whose date has passed is published.
    const at = now();
    const venueById = new Map(venueDocs.filter((v) => venues.visibleTo(v, caller)).map((v) => [v._id, asSeen(v, at)]));
    const organizerById = new Map(organizerDocs.filter((o) => organizers.visibleTo(o, caller)).map((o) => [o._id, asSeen(o, at)]));
    const termsOf = (ids: number[], all: TermDoc[], counts: Map<number, number>) =>
      all.filter((t) => ids.includes(t._id)).map((doc) => ({ doc, count: counts.get(doc._id) ?? 0 }));
    return docs.map((doc) => ({
      venue: doc.venueId === null ? null : (venueById.get(doc.venueId) ?? null),
      // Keep the order the organizers were linked in.
      organizers: doc.organizerIds.map((id) => organizerById.get(id)).filter((o): o is OrganizerDoc => o !== undefined),
      categories: termsOf(doc.categoryIds, categoryDocs, categoryCounts),
      tags: termsOf(doc.tagIds, tagDocs, tagCounts),
    }));
  }

  async function relationsOf(doc: EventDoc, caller: Caller | null): Promise<EventRelations> {
    return (await relationsOfMany([doc], caller))[0] as EventRelations;
  }

  /** Term counts include this event from now on. */
  function termsChanged(): void {
    categories.invalidate();
    tags.invalidate();
  }

  /** Turns the body into stored fields, checking every value and reference; throws one 400 naming all. */
  async function resolve(input: EventInput, current: EventDoc | null, caller: Caller) {
    const errors = new ParamErrors();
    const at = now();
    const set = resolveFields(input, current, errors, at);
    const { links, postParent } = await resolveLinks(input, current, errors);
    completeResolved(input, current, caller, set, postParent, errors, at);
    return { set, links };
  }

  // resolveFields' helpers live out here: a closure made on every write costs, more so under tsx
  // (its keepNames wraps every function it creates).

  /**
   * A date field of a write read in `zone`; null when absent or invalid (then noted in `errors`
   * under `name`). The caller reads the value: `input[name]` with four names was a generic keyed
   * look-up on every write.
   */
  function dateField(raw: EventInput['start_date'], name: 'start_date' | 'end_date' | 'date' | 'date_utc', zone: string, at: Date, errors: ParamErrors): Date | null {
    if (raw === undefined) return null;
    const parsed = parseDateInput(raw, { timezone: zone, now: at });
    if (parsed === null) errors.add(name, `${name} is not a valid date.`);
    return parsed;
  }

  /** A stored instant carried into a new time zone: the same wall clock there (unchanged when the zone is). */
  function carried(instant: Date, from: string, to: string): Date {
    return from === to ? instant : wallClockToInstant(formatWallClock(instant, from), to);
  }

  /** The stored fields of a write's own values (references aside), each checked; problems go to `errors`. */
  function resolveFields(input: EventInput, current: EventDoc | null, errors: ParamErrors, at: Date): Partial<EventDoc> {
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

  /** References: every id must exist; problems go to `errors`. */
  async function resolveLinks(input: EventInput, current: EventDoc | null, errors: ParamErrors): Promise<ResolvedLinks> {
    const [venue, organizerRefs, categoryRefs, tagRefs, postParent] = await Promise.all([
      input.venue === undefined ? undefined : resolveVenue(input.venue, errors),
      input.organizer === undefined ? undefined : resolveOrganizers(input.organizer, errors),
      input.categories === undefined ? undefined : categories.resolveForEvent(input.categories, errors),
      input.tags === undefined ? undefined : tags.resolveForEvent(input.tags, errors),
      input.post_parent === undefined ? undefined : resolveParent(input.post_parent, current, errors),
    ]);
    return { links: { venue, organizers: organizerRefs, categories: categoryRefs, tags: tagRefs }, postParent };
  }

  /**
   * Links a create whose references all name ids of `known` (records read for the whole batch):
   * sets what resolveLinks and commitLinks would set, without a storage call or a promise each (a
   * bulk load links a thousand events a batch). Sets nothing and returns undefined when any
   * reference needs storage (a slug, a name, a nested record, an id not in `known`): resolveLinks
   * decides those, errors included.
   */
  function linkKnown(input: EventCreate, known: KnownIds, set: Partial<EventDoc>): { postParent: number | null | undefined } | undefined {
    let venueId: number | null | undefined;
    if (input.venue !== undefined) {
      const single = venueItem(input.venue);
      if (single === undefined || isEmptyLink(single)) venueId = null;
      else {
        const id = toId(single);
        if (id === null || !known.venues.has(id)) return undefined;
        venueId = id;
      }
    }
    const organizerIds = input.organizer === undefined ? undefined : knownDistinctIds(organizerItems(input.organizer), known.organizers, isEmptyLink);
    const categoryIds = input.categories === undefined ? undefined : knownDistinctIds(termItems(input.categories), known.categories);
    const tagIds = input.tags === undefined ? undefined : knownDistinctIds(termItems(input.tags), known.tags);
    if (organizerIds === null || categoryIds === null || tagIds === null) return undefined;
    let postParent: number | null | undefined;
    if (input.post_parent !== undefined) {
      if (isNoParent(input.post_parent)) postParent = null;
      else {
        const id = toId(input.post_parent);
        if (id === null || !known.events.has(id)) return undefined;
        postParent = id;
      }
    }
    if (venueId !== undefined) set.venueId = venueId;
    if (organizerIds !== undefined) set.organizerIds = organizerIds;
    if (categoryIds !== undefined) set.categoryIds = categoryIds;
    if (tagIds !== undefined) set.tagIds = tagIds;
    return { postParent };
  }

  /** Ids of the records a batch of creates names by id that exist: one query per collection. */
  async function knownIdsOf(inputs: readonly EventCreate[]): Promise<KnownIds> {
    const named: Record<keyof KnownIds, Set<number>> = { venues: new Set(), organizers: new Set(), categories: new Set(), tags: new Set(), events: new Set() };
    const note = (collection: keyof KnownIds, item: unknown) => {
      const id = toId(item);
      if (id !== null) named[collection].add(id);
    };
    const noteAll = (collection: keyof KnownIds, items: readonly unknown[]) => {
      for (let i = 0; i < items.length; i++) note(collection, items[i]);
    };
    for (const input of inputs) {
      if (input.venue !== undefined) note('venues', venueItem(input.venue));
      if (input.organizer !== undefined) noteAll('organizers', organizerItems(input.organizer));
      if (input.categories !== undefined) noteAll('categories', termItems(input.categories));
      if (input.tags !== undefined) noteAll('tags', termItems(input.tags));
      if (input.post_parent !== undefined) note('events', input.post_parent);
    }
    const existing = async (collection: keyof KnownIds): Promise<Set<number>> => {
      const ids = [...named[collection]];
      if (ids.length === 0) return new Set();
      const docs: Array<{ _id: number }> = await storage[collection].find({ filter: { _id: { $in: ids } } });
      return new Set(docs.map((doc) => doc._id));
    };
    const [venueIds, organizerIds, categoryIds, tagIds, eventIds] = await Promise.all(
      (['venues', 'organizers', 'categories', 'tags', 'events'] as const).map(existing),
    );
    return { venues: venueIds!, organizers: organizerIds!, categories: categoryIds!, tags: tagIds!, events: eventIds! };
  }

  /** After the references: throws one 400 naming every problem, else completes `set`. */
  function completeResolved(
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

    // A publication date in the future schedules the post, as WordPress does.
    const status = set.status ?? current?.status ?? 'publish';
    const when = set.dateUtc ?? current?.dateUtc ?? at;
    if (status === 'publish' && when.getTime() > at.getTime()) set.status = 'future';

    if (input.title !== undefined || input.description !== undefined || input.excerpt !== undefined) {
      set.searchTerms = searchTermsOf(
        set.title ?? current?.title,
        set.description ?? current?.description,
        set.excerpt ?? current?.excerpt,
      );
    }
    set.modifiedUtc = at;
    if (current === null && set.authorId === undefined) set.authorId = caller.authorId;
  }

  /**
   * Creates the nested venues and organizers of a write that has passed every check (a
   * rejected write leaves no new record behind), and links them.
   */
  async function commitLinks(set: Partial<EventDoc>, links: EventLinks, caller: Caller) {
    if (linkExisting(set, links)) return;
    if (links.categories !== undefined) set.categoryIds = await categories.commitRefs(links.categories);
    if (links.tags !== undefined) set.tagIds = await tags.commitRefs(links.tags);
    if (links.venue !== undefined) set.venueId = links.venue === null ? null : await commitLink(venues, links.venue, caller);
    if (links.organizers !== undefined) {
      const ids: number[] = [];
      for (const ref of links.organizers) {
        const id = await commitLink(organizers, ref, caller);
        if (!ids.includes(id)) ids.push(id);
      }
      set.organizerIds = ids;
    }
  }

  /** Links a write whose every reference names an existing record (nothing to create); false otherwise, nothing set. */
  function linkExisting(set: Partial<EventDoc>, links: EventLinks): boolean {
    const all = [links.venue ?? null, ...(links.organizers ?? []), ...(links.categories ?? []), ...(links.tags ?? [])];
    if (!all.every((ref) => ref === null || 'id' in ref)) return false;
    const ids = (refs: ReadonlyArray<{ id: number }>) => [...new Set(refs.map((ref) => ref.id))];
    if (links.categories !== undefined) set.categoryIds = ids(links.categories as Array<{ id: number }>);
    if (links.tags !== undefined) set.tagIds = ids(links.tags as Array<{ id: number }>);
    if (links.venue !== undefined) set.venueId = links.venue === null ? null : (links.venue as { id: number }).id;
    if (links.organizers !== undefined) set.organizerIds = ids(links.organizers as Array<{ id: number }>);
    return true;
  }

  async function commitLink(service: VenuesService | OrganizersService, ref: LinkRef, caller: Caller): Promise<number> {
    if ('id' in ref) return ref.id;
    const { doc } = await service.commitCreate(ref.create as never, caller, ref.description);
    return doc._id;
  }

  /** One linked entry: an id, `{ id, … }`, or a new record's fields (validated now, created later). */
  async function linkRef(
    service: VenuesService | OrganizersService,
    item: unknown,
    param: 'venue' | 'organizer',
    errors: ParamErrors,
  ): Promise<LinkRef | undefined> {
    if (typeof item === 'object' && item !== null && !('id' in item)) {
      const fields = item as Record<string, unknown>;
      const create = service.prepare(fields as never, null, errors, param) as Record<string, unknown>;
      const description = typeof fields.description === 'string' ? fields.description : undefined;
      return { create, description };
    }
    const id = toId(typeof item === 'object' && item !== null ? (item as { id: unknown }).id : item);
    const found = id === null ? null : await storage[service.definition.collection].findById(id);
    if (!found) {
      errors.add(param, `${param} must reference an existing ${param} (by id) or describe a new one.`);
      return undefined;
    }
    return { id: found._id };
  }

  const isEmptyLink = (value: unknown) => value === 0 || value === '' || value === '0' || (Array.isArray(value) && value.length === 0);

  /** A write names one venue; a list gives it first. */
  const venueItem = (value: unknown): unknown => (Array.isArray(value) ? value[0] : value);
  /** A write names organizers as a list, one nested record, or ids in a string. */
  const organizerItems = (value: unknown): readonly unknown[] =>
    Array.isArray(value) ? value : typeof value === 'object' && value !== null ? [value] : toList(value as string | number);
  /**
   * The distinct ids `items` name, in order, when every item (but those `skip` passes over) is an id
   * of `known`; null otherwise. Sized to fit: `[]` grown by push holds room for 17 (a bulk load
   * makes three such lists a record).
   */
  function knownDistinctIds(items: readonly unknown[], known: ReadonlySet<number>, skip?: (item: unknown) => boolean): number[] | null {
    const ids = new Array<number>(items.length);
    let count = 0;
    next: for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (skip?.(item)) continue;
      const id = toId(item);
      if (id === null || !known.has(id)) return null;
      for (let j = 0; j < count; j++) if (ids[j] === id) continue next;
      ids[count++] = id;
    }
    ids.length = count;
    return ids;
  }
  /** `post_parent` 0, '' or zeros unlinks the parent. */
  const isNoParent = (value: number | string): boolean => value === 0 || value === '' || /^0+$/.test(String(value));

  async function resolveVenue(value: unknown, errors: ParamErrors): Promise<LinkRef | null | undefined> {
    const single = venueItem(value);
    if (single === undefined || isEmptyLink(single)) return null;
    return linkRef(venues, single, 'venue', errors);
  }

  async function resolveOrganizers(value: unknown, errors: ParamErrors): Promise<LinkRef[] | undefined> {
    const refs: LinkRef[] = [];
    for (const item of organizerItems(value)) {
      if (isEmptyLink(item)) continue;
      const ref = await linkRef(organizers, item, 'organizer', errors);
      if (ref === undefined) return undefined;
      refs.push(ref);
    }
    return refs;
  }

  async function resolveParent(value: number | string, current: EventDoc | null, errors: ParamErrors) {
    if (isNoParent(value)) return null;
    const id = toId(value);
    const parent = id === null ? null : await storage.events.findById(id);
    if (!parent || (current !== null && parent._id === current._id)) {
      errors.add('post_parent', 'post_parent must be the id of another existing event.');
      return undefined;
    }
    return parent._id;
  }

  /** Inserts under the doc's slug made unique (`firstAttempt` 2: the slug itself is known to be taken). */
  function insertWithUniqueSlug(doc: EventDoc, firstAttempt = 1): Promise<EventDoc> {
    return insertUnique({
      base: doc.slug,
      id: doc._id,
      slugIndex: SLUG_INDEX,
      firstAttempt,
      insert: async (slug) => {
        const candidate = { ...doc, slug };
        await storage.events.insertOne(candidate);
        return candidate;
      },
    });
  }

  /** Every item a positive integer id (`include`, `venue`, `organizer`). */
  function idList(value: ListInputValue, param: string, errors: ParamErrors): number[] | undefined {
    const items = toList(value);
    const ids = items.map(toId);
    if (items.length === 0 || ids.some((id) => id === null)) {
      errors.add(param, `${param} must be a list of positive integer ids.`);
      return undefined;
    }
    return [...new Set(ids as number[])];
  }

  /**
   * Every id must be an existing record of the collection (any status for token holders). Anonymous
   * callers may name only records they can see: filtering by a hidden venue or organizer would tell
   * which events it is linked to, a link their representations hide.
   */
  async function existingIds(collection: 'venues' | 'organizers', value: ListInputValue, param: string, errors: ParamErrors, caller: Caller | null) {
    const ids = idList(value, param, errors);
    if (ids === undefined) return undefined;
    const filter = { _id: { $in: ids } };
    const found =
      collection === 'venues'
        ? (await storage.venues.find({ filter })).filter((d) => venues.visibleTo(d, caller))
        : (await storage.organizers.find({ filter })).filter((d) => organizers.visibleTo(d, caller));
    if (found.length !== ids.length) {
      const missing = ids.filter((id) => !found.some((d) => d._id === id));
      errors.add(param, `${param} lists ids that do not exist: ${missing.join(', ')}.`);
      return undefined;
    }
    return ids;
  }

  /**
   * The geolocation parameters: a point (both coordinates or neither) restricts
   * events to venues within the radius, served by the venues' 2dsphere index; `geoloc` alone
   * selects events whose venue has (or has no) coordinates. Disabled, the documents leave them out
   * and the filters are accepted without effect (the route's schema still checks their values).
   * orderby=distance is refused instead: orderby is a parameter the server has, and any other
   * order would answer another question than the one asked.
   */
  async function resolveGeo(query: EventListQuery, caller: Caller | null, errors: ParamErrors) {
    const off = { clauses: [] as Filter[], near: undefined };
    if (!geolocEnabled) {
      if (query.orderby === 'distance') errors.add('orderby', 'orderby=distance needs geolocation, which is turned off on this server.');
      return off;
    }
    if (query.orderby === 'distance' && (query.geoloc_lat === undefined || query.geoloc_lng === undefined)) {
      errors.add('orderby', 'orderby=distance needs geoloc_lat and geoloc_lng.');
    }
    const lat = query.geoloc_lat;
    const lng = query.geoloc_lng;
    if ((lat === undefined) !== (lng === undefined)) {
      throw new MissingParamsError([lat === undefined ? 'geoloc_lat' : 'geoloc_lng']);
    }
    if (lat !== undefined && (lat < -90 || lat > 90)) errors.add('geoloc_lat', 'geoloc_lat must be from -90 to 90.');
    if (lng !== undefined && (lng < -180 || lng > 180)) errors.add('geoloc_lng', 'geoloc_lng must be from -180 to 180.');
    if (!errors.empty) return off;
    const visible = statusFilter(caller ? NON_TRASH_STATUSES : ['publish'], now());
    if (lat !== undefined && lng !== undefined) {
      const unit: DistanceUnit = query.geoloc_unit ?? 'mi';
      const radius = query.geoloc_radius ?? DEFAULT_RADIUS;
      const point: [number, number] = [lng, lat];
      const hits = await storage.venues.near('location', { point, maxDistance: toRadians(radius, unit), filter: visible });
      boundedIds(hits, 'geoloc_radius', 'venues');
      return { clauses: [{ venueId: { $in: hits.map((h) => h._id) } }], near: { hits, unit } };
    }
    if (query.geoloc !== undefined) {
      const located = await boundedDistinct(() => storage.venues.distinct('_id', { $and: [visible, { location: { $ne: null } }] }), 'geoloc', 'venues');
      const clause: Filter = toBool(query.geoloc)
        ? { venueId: { $in: located } }
        : { $or: [{ venueId: null }, { venueId: { $nin: located } }] };
      return { clauses: [clause], near: undefined };
    }
    return off;
  }

  /**
   * Events ordered by their venue's distance, then start, then id, without loading every match:
   * one facet count per venue, then only the events of the venues that cover the requested page
   * are read, in one query. `nearClause` is the filter's `venueId $in <every venue in the circle>`:
   * it selects the events to count, but the page read names its own venues, so it is left out there
   * (hundreds of index runs per read otherwise).
   */
  async function distancePage(filter: Filter, nearClause: Filter, hits: NearHit[], paging: { skip: number; perPage: number }, direction: 1 | -1) {
    const counts = new Map((await storage.events.countValues('venueId', filter)).map((r) => [r.value as number, r.count]));
    // Venues at exactly the same distance form one group, so their events interleave by start date.
    const groups: Array<{ ids: number[]; distance: number; count: number }> = [];
    for (const hit of hits) {
      const count = counts.get(hit._id) ?? 0;
      if (count === 0) continue;
      const last = groups[groups.length - 1];
      if (last && last.distance === hit.distance) {
        last.ids.push(hit._id);
        last.count += count;
      } else groups.push({ ids: [hit._id], distance: hit.distance, count });
    }
    if (direction === -1) groups.reverse();
    const total = groups.reduce((sum, g) => sum + g.count, 0);
    // The groups the page covers, and how many of the first one's events come before the page.
    const covering: typeof groups = [];
    let skipInFirst = 0;
    let offset = 0;
    for (const group of groups) {
      if (offset >= paging.skip + paging.perPage) break;
      if (offset + group.count > paging.skip) {
        if (covering.length === 0) skipInFirst = paging.skip - offset;
        covering.push(group);
      }
      offset += group.count;
    }
    if (covering.length === 0) return { items: [], total };
    // Their events in one read (a page of events a few hundred metres apart spans many venues with
    // an event or two each), then ordered group by group by start date as the index would.
    // Appended to the top-level $and, not nested: with `search`, the $text clause must stay
    // directly inside the top-level $and (the embedded engine refuses it any deeper).
    const topLevel = (filter.$and !== undefined && Object.keys(filter).length === 1 ? filter.$and : [filter]).filter((clause) => clause !== nearClause);
    const docs = await storage.events.find({ filter: { $and: [...topLevel, { venueId: { $in: covering.flatMap((g) => g.ids) } }] } });
    const byVenue = new Map<number | null, EventDoc[]>();
    for (const doc of docs) {
      const list = byVenue.get(doc.venueId);
      if (list === undefined) byVenue.set(doc.venueId, [doc]);
      else list.push(doc);
    }
    const byStart = (a: EventDoc, b: EventDoc) => direction * (a.startUtc.getTime() - b.startUtc.getTime() || a._id - b._id);
    const items: Array<{ doc: EventDoc; distance: number }> = [];
    covering.forEach((group, k) => {
      const ordered = group.ids.flatMap((id) => byVenue.get(id) ?? []).sort(byStart);
      for (const doc of k === 0 ? ordered.slice(skipInFirst) : ordered) {
        if (items.length < paging.perPage) items.push({ doc, distance: group.distance });
      }
    });
    return { items, total };
  }

  /** A protected event is shown in full with its password, or to an editor asking `context=edit`. */
  function unlocks(password: string, query: { password?: string | undefined; context?: string | undefined }, caller: Caller | null): boolean {
    return (query.context === 'edit' && caller?.role === 'editor') || passwordMatches(password, query.password);
  }

  /**
   * Filters on fields a protected event hides (its text, terms, venue, organizers, flags) skip
   * protected events for anonymous callers, unless they hold its password — otherwise matching
   * would reveal what the redaction hides.
   */
  function protectedClauses(query: EventListQuery, caller: Caller | null): Filter[] {
    if (caller !== null) return [];
    // Disabled, the geolocation parameters filter nothing, so they must not skip anything either.
    const geo = geolocEnabled ? [query.geoloc, query.geoloc_lat, query.geoloc_lng] : [];
    const hidden = [query.search, query.categories, query.tags, query.venue, query.organizer, query.featured, query.ticketed, ...geo];
    if (hidden.every((value) => value === undefined)) return [];
    return [query.password === undefined ? { password: null } : { $or: [{ password: null }, { password: query.password }] }];
  }

  // --- Writes without reading the relations back: the API methods below add them; the seed CLI
  // (src/cli) calls these directly, so a bulk load does not recount terms after every record.

  /** A new event's document, every value and reference checked and nested records created; not stored yet. */
  async function prepareCreate(input: EventCreate, caller: Caller, reservedId?: number): Promise<EventDoc> {
    const { set, links } = await resolve(input, null, caller);
    await commitLinks(set, links, caller);
    return newEventDoc(reservedId ?? (await storage.nextId('posts')), input, set);
  }

  /**
   * A new event's document: the checked fields over the defaults. Written field by field rather
   * than as the defaults followed by `...set`: the spread copied each field through a generic
   * property definition and built five placeholder arrays per event only to replace them. `??`
   * keeps a default only where `set` has no value; no field of `set` is ever null where its
   * default is not. The key order (the stored and logged order) is the same as before.
   */
  function newEventDoc(id: number, input: EventCreate, set: Partial<EventDoc>): EventDoc {
    const at = now();
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

  /**
   * `reservedId` (an Idempotency-Key's create, src/services/idempotency.ts): the id to store the
   * event under, reserved before the first attempt. An event already stored under it was stored by
   * an earlier attempt of the same request, so it is the answer, not a reason to create another
   * (nested venues, organizers and terms an attempt created are found again by name).
   */
  async function createDoc(input: EventCreate, caller: Caller, reservedId?: number): Promise<EventDoc> {
    let stored = reservedId === undefined ? null : await storage.events.findById(reservedId);
    try {
      stored ??= await insertWithUniqueSlug(await prepareCreate(input, caller, reservedId));
    } catch (err) {
      // The earlier attempt's insert landed after the look-up above.
      stored = reservedId !== undefined && err instanceof DuplicateKeyError && err.index === '_id_' ? await storage.events.findById(reservedId) : null;
      if (stored === null) throw err;
    }
    // Also after an earlier attempt's insert: that attempt may have ended before telling the terms.
    termsChanged();
    return stored;
  }

  /**
   * Creates many events (the seed CLI's bulk path): each is checked as `createDoc` checks it, then
   * the valid ones are stored with one insertMany. A refused record (4xx) gets its error in its
   * place. A slug already taken — by a stored event or an earlier one of the list — is retried
   * alone with the next free suffix, as `createDoc` would have given it.
   */
  async function createDocs(inputs: readonly EventCreate[], caller: Caller): Promise<Array<EventDoc | ApiError>> {
    const results = new Array<EventDoc | ApiError>(inputs.length);
    // The linked records named by id are read once for the batch, and the ids reserved in one call:
    // a record whose references are all known is checked without a storage round trip.
    const known = await knownIdsOf(inputs);
    const prepared: Array<Partial<EventDoc>> = [];
    const positions: number[] = [];
    for (let position = 0; position < inputs.length; position++) {
      const input = inputs[position]!;
      try {
        const errors = new ParamErrors();
        const at = now();
        const set = resolveFields(input, null, errors, at);
        const linked = linkKnown(input, known, set);
        if (linked !== undefined) completeResolved(input, null, caller, set, linked.postParent, errors, at);
        else {
          const { links, postParent } = await resolveLinks(input, null, errors);
          completeResolved(input, null, caller, set, postParent, errors, at);
          await commitLinks(set, links, caller);
        }
        prepared.push(set);
        positions.push(position);
      } catch (error) {
        if (!isClientError(error)) throw error;
        results[position] = error;
      }
    }
    const firstId = prepared.length === 0 ? 0 : await storage.nextId('posts', prepared.length);
    const docs = prepared.map((set, k) => newEventDoc(firstId + k, inputs[positions[k]!]!, set));
    const failed = new Map((await storage.events.insertMany(docs)).map((failure) => [failure.index, failure.error]));
    for (let k = 0; k < docs.length; k++) {
      const doc = docs[k]!;
      const error = failed.get(k);
      if (error !== undefined && error.index !== SLUG_INDEX) throw error;
      results[positions[k]!] = error === undefined ? doc : await insertWithUniqueSlug(doc, 2);
    }
    if (docs.length > 0) termsChanged();
    return results;
  }

  async function updateDoc(current: EventDoc, input: EventInput, caller: Caller): Promise<EventDoc> {
    const { set, links } = await resolve(input, current, caller);
    if (input.slug !== undefined) {
      const slug = slugFrom(input.slug, current.slug);
      if (slug !== current.slug) {
        const owner = await storage.events.findOne({ slug });
        if (owner && owner._id !== current._id) {
          throw new ConflictError('rest_slug_conflict', { key: 'errorMessage.rest_slug_conflict.eventId', values: { slug, id: owner._id } }, { params: { slug: 'slug is already in use.' } });
        }
        set.slug = slug;
      }
    }
    await commitLinks(set, links, caller);
    let updated: EventDoc | null;
    try {
      updated = await storage.events.updateById(current._id, { $set: set });
    } catch (err) {
      // Lost a race for the slug between the check and the write.
      if (err instanceof DuplicateKeyError && err.index === SLUG_INDEX) {
        throw new ConflictError('rest_slug_conflict', { key: 'errorMessage.rest_slug_conflict.event', values: { slug: String(set.slug) } }, { params: { slug: 'slug is already in use.' } });
      }
      throw err;
    }
    if (!updated) throw new NotFoundError('event', current._id);
    termsChanged();
    return updated;
  }

  async function trashDoc(current: EventDoc): Promise<EventDoc> {
    if (current.status === 'trash') throw new GoneError('event');
    const updated = await storage.events.updateById(current._id, { $set: { status: 'trash', modifiedUtc: now() } });
    if (!updated) throw new NotFoundError('event', current._id);
    termsChanged();
    return updated;
  }

  /**
   * The stored fields an update of `current` with `input` would change, resolved exactly as
   * `update` resolves them (empty: nothing would change). Writes nothing. Linked records must be
   * named by id (a nested venue, organizer or new term name cannot be compared).
   */
  async function changes(current: EventDoc, input: EventInput, caller: Caller): Promise<Partial<EventDoc>> {
    const { set, links } = await resolve(input, current, caller);
    if (input.slug !== undefined) set.slug = slugFrom(input.slug, current.slug);
    const idOf = (ref: LinkRef | TermRef): number => {
      if (!('id' in ref)) throw new Error('changes() needs linked records named by id');
      return ref.id;
    };
    if (links.venue !== undefined) set.venueId = links.venue === null ? null : idOf(links.venue);
    if (links.organizers !== undefined) set.organizerIds = [...new Set(links.organizers.map(idOf))];
    if (links.categories !== undefined) set.categoryIds = [...new Set(links.categories.map(idOf))];
    if (links.tags !== undefined) set.tagIds = [...new Set(links.tags.map(idOf))];
    return changedFields(current, set, ['modifiedUtc']);
  }
  // --- End of the writes without relations.

  return {
    /** GET /events: validates and resolves every parameter, then one page query. */
    async list(query: EventListQuery, caller: Caller | null, extra: Filter[] = []) {
      const errors = new ParamErrors();
      let statuses: PostStatus[] = [];
      try {
        statuses = resolveStatuses(query.status, caller);
      } catch (err) {
        if (!(err instanceof InvalidParamsError)) throw err;
        Object.assign(errors.params, (err.data as { params: Record<string, string> }).params);
      }
      const [categoryIds, tagIds, venueIds, organizerIds, parent] = await Promise.all([
        query.categories === undefined ? undefined : categories.resolveList(query.categories, 'categories', errors),
        query.tags === undefined ? undefined : tags.resolveList(query.tags, 'tags', errors),
        query.venue === undefined ? undefined : existingIds('venues', query.venue, 'venue', errors, caller),
        query.organizer === undefined ? undefined : existingIds('organizers', query.organizer, 'organizer', errors, caller),
        query.post_parent === undefined ? undefined : storage.events.findById(query.post_parent),
      ]);
      if (query.post_parent !== undefined && !eventUsableBy(parent ?? null, caller, now())) {
        errors.add('post_parent', 'post_parent must be the id of an existing event.');
      }
      const include = query.include === undefined ? undefined : idList(query.include, 'include', errors);
      const input: EventListInput = {
        dates: Object.fromEntries(DATE_PARAMS.filter((p) => query[p] !== undefined).map((p) => [p, query[p] as string])),
        statuses,
      };
      if (query.page !== undefined) input.page = query.page;
      if (query.per_page !== undefined) input.perPage = query.per_page;
      if (query.strict_dates !== undefined) input.strictDates = query.strict_dates;
      if (query.search !== undefined) input.search = query.search;
      if (categoryIds !== undefined) input.categoryIds = boundedIds(await categories.expandWithDescendants(categoryIds), 'categories', 'categories');
      if (tagIds !== undefined) input.tagIds = tagIds;
      if (venueIds !== undefined) input.venueIds = venueIds;
      if (organizerIds !== undefined) input.organizerIds = organizerIds;
      if (query.featured !== undefined) input.featured = toBool(query.featured);
      if (query.ticketed !== undefined) input.ticketed = toBool(query.ticketed);
      if (include !== undefined) input.include = include;
      if (parent) input.postParent = parent._id;
      const geo = await resolveGeo(query, caller, errors);
      input.extra = [...extra, ...geo.clauses, ...protectedClauses(query, caller)];
      if (query.orderby !== undefined && query.orderby !== 'distance') input.orderBy = query.orderby;
      if (query.order !== undefined) input.order = query.order.toLowerCase() === 'desc' ? -1 : 1;

      const compiled = compileEventList(input, { now: now(), siteTimezone, perPageMax });
      for (const param of compiled.invalidDates) errors.add(param, `${param} is not a valid date.`);
      if (!errors.empty) throw new InvalidParamsError(errors.params);

      const byDistance = query.orderby === 'distance' && geo.near !== undefined;
      let items: EventDoc[];
      let total: number;
      let distances: number[] | undefined;
      if (byDistance && geo.near) {
        const page = await distancePage(compiled.query.filter, geo.clauses[0]!, geo.near.hits, compiled.paging, input.order ?? 1);
        items = page.items.map((i) => i.doc);
        distances = page.items.map((i) => reportDistance(i.distance, geo.near!.unit));
        total = page.total;
      } else {
        ({ items, total } = await storage.events.findPage(compiled.query));
      }
      const relations = await relationsOfMany(items, caller);
      const at = now();
      // Effective values, in the reference's order, for rest_url and the paging links.
      const args: Array<[string, string]> = [['status', statuses.join(',')]];
      for (const param of DATE_PARAMS) {
        const value = compiled.effectiveDates[param];
        if (value !== undefined) args.push([param, value]);
      }
      const echo = (name: string, value: unknown) => {
        if (value !== undefined) args.push([name, Array.isArray(value) ? value.join(',') : String(value)]);
      };
      echo('strict_dates', query.strict_dates);
      echo('search', query.search);
      echo('categories', categoryIds);
      echo('tags', tagIds);
      echo('venue', venueIds);
      echo('organizer', organizerIds);
      echo('featured', input.featured === undefined ? undefined : Number(input.featured));
      echo('include', include);
      echo('post_parent', input.postParent);
      echo('ticketed', input.ticketed === undefined ? undefined : Number(input.ticketed));
      if (geolocEnabled) {
        echo('geoloc', query.geoloc === undefined ? undefined : Number(toBool(query.geoloc)));
        echo('geoloc_lat', query.geoloc_lat);
        echo('geoloc_lng', query.geoloc_lng);
        if (geo.near) {
          echo('geoloc_radius', query.geoloc_radius ?? DEFAULT_RADIUS);
          echo('geoloc_unit', geo.near.unit);
        }
      }
      echo('orderby', query.orderby);
      echo('order', query.order?.toLowerCase());
      return {
        items: items.map((doc, i) => ({
          doc: asSeen(doc, at),
          locked: doc.password !== null && !unlocks(doc.password, query, caller),
          relations: relations[i] as EventRelations,
          ...(distances ? { distance: distances[i] as number } : {}),
        })),
        total,
        paging: compiled.paging,
        args,
      };
    },

    async get(key: EventKey, options: ReadOptions) {
      const doc = await findEvent(key);
      assertReadable(doc, options);
      return { doc: asSeen(doc, now()), relations: await relationsOf(doc, options.caller) };
    },

    /** `reservedId`: see createDoc. */
    async create(input: EventCreate, caller: Caller, reservedId?: number) {
      const stored = await createDoc(input, caller, reservedId);
      return { doc: stored, relations: await relationsOf(stored, caller) };
    },

    /**
     * Per-field last writer wins: an update writes only the fields it changes, read-modify-write
     * under the event's lock (KeyedLock) so derived fields follow the latest version.
     */
    async update(key: EventKey, input: EventInput, caller: Caller) {
      const { _id } = await findEvent(key);
      const updated = await writes.run(_id, async () => updateDoc(await findEvent({ id: _id }), input, caller));
      return { doc: updated, relations: await relationsOf(updated, caller) };
    },

    /** Moves the event to the trash; a second delete is 410. */
    async trash(key: EventKey, caller: Caller) {
      const { _id } = await findEvent(key);
      const updated = await writes.run(_id, async () => trashDoc(await findEvent({ id: _id })));
      return { doc: updated, relations: await relationsOf(updated, caller) };
    },

    /** Bulk loading (src/cli/seed-loader.ts): the writes above without the relations, and change detection. */
    createDoc,
    createDocs,
    updateDoc,
    trashDoc,
    changes,
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
