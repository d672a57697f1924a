/**
 * GET /events: every parameter validated and resolved to ids, the query compiled
 * (src/query/events.ts), one page read with its total, and the effective parameters echoed for
 * `rest_url` and the paging links.
 */
import { InvalidParamsError } from '../../errors.js';
import { compileEventList, type CompiledEventList, DATE_PARAMS, type EventListInput } from '../../query/events.js';
import { DEFAULT_RADIUS, reportDistance } from '../../query/geo.js';
import { boundedDistinct, boundedIds } from '../../query/id-lists.js';
import { hasModifiedBounds, type ModifiedParam, modifiedClauses, publicationRanges, resolveModified, scheduledWithin } from '../../query/modified.js';
import { resolveStatuses } from '../../query/status.js';
import { type ListInputValue } from '../../schemas/common.js';
import { type EventListQuery } from '../../schemas/events.js';
import { type EventRelations } from '../../serialize/events.js';
import { type Collection, type EventDoc, type Filter, type PostStatus, type Storage } from '../../storage/port.js';
import { asSeen, type Caller, eventUsableBy } from '../access.js';
import { ParamErrors, toBool, toId, toList } from '../input.js';
import { type OrganizersService } from '../organizers.js';
import { type TermsService } from '../terms.js';
import { type VenuesService } from '../venues.js';
import { distancePage, type EventGeo, type GeoFilter } from './geo.js';
import { type EventReads, readsInFull, unlocks } from './read.js';

export interface EventListDeps {
  storage: Pick<Storage, 'events' | 'series' | 'venues' | 'organizers'>;
  /** Anonymous callers may filter only by venues and organizers they can see. */
  venues: Pick<VenuesService, 'visibleTo'>;
  organizers: Pick<OrganizersService, 'visibleTo'>;
  /** Terms are named by id or slug; a category stands for its descendants too. */
  categories: Pick<TermsService, 'resolveList' | 'expandWithDescendants'>;
  tags: Pick<TermsService, 'resolveList'>;
  siteTimezone: string;
  perPageMax: number;
  /** GEOLOC_ENABLED: without it the geolocation parameters have no effect. */
  geolocEnabled: boolean;
  reads: Pick<EventReads, 'relationsOfMany'>;
  /** The geolocation parameters turned into filters. */
  geo: EventGeo;
  now: () => Date;
}

/** The list's parameters resolved: the compiler's input, and the values `rest_url` echoes. */
interface ResolvedList {
  input: EventListInput;
  statuses: PostStatus[];
  categoryIds: number[] | undefined;
  tagIds: number[] | undefined;
  venueIds: number[] | undefined;
  organizerIds: number[] | undefined;
  include: number[] | undefined;
  geo: GeoFilter;
  /** modified_after / modified_before as echoed. */
  modified: Array<[ModifiedParam, string]>;
}

/** Every item a positive integer id (`include`, `venue`, `organizer`). */
function idList(value: ListInputValue, param: string, errors: ParamErrors): number[] | undefined {
  const items = toList(value, param);
  const ids = items.map(toId);
  if (items.length === 0 || ids.some((id) => id === null)) {
    errors.add(param, `${param} must be a list of positive integer ids.`);
    return undefined;
  }
  return [...new Set(ids as number[])];
}

/**
 * Filters on fields a protected event hides (its text, terms, venue, organizers, flags) skip
 * protected events for every caller who could not read them in full — anyone but an editor asking
 * `context=edit`, unless they hold the event's password — otherwise matching would reveal what the
 * redaction hides (docs/differences.md, "Filters cannot reveal what redaction hides").
 */
function protectedClauses(query: EventListQuery, caller: Caller | null, geolocEnabled: boolean): Filter[] {
  if (readsInFull(query, caller)) return [];
  // Disabled, the geolocation parameters filter nothing, so they must not skip anything either.
  const geo = geolocEnabled ? [query.geoloc, query.geoloc_lat, query.geoloc_lng] : [];
  const hidden = [query.search, query.categories, query.tags, query.venue, query.organizer, query.featured, query.ticketed, ...geo];
  if (hidden.every((value) => value === undefined)) return [];
  return [query.password === undefined ? { password: null } : { $or: [{ password: null }, { password: query.password }] }];
}

/** The effective values, in the reference's order, for rest_url and the paging links. */
function listArgs(query: EventListQuery, resolved: ResolvedList, compiled: CompiledEventList, geolocEnabled: boolean): Array<[string, string]> {
  const { input, geo } = resolved;
  const args: Array<[string, string]> = [['status', resolved.statuses.join(',')]];
  for (const param of DATE_PARAMS) {
    const value = compiled.effectiveDates[param];
    if (value !== undefined) args.push([param, value]);
  }
  args.push(...resolved.modified);
  const echo = (name: string, value: string | number | boolean | readonly (string | number)[] | undefined) => {
    if (value !== undefined) args.push([name, Array.isArray(value) ? value.join(',') : String(value)]);
  };
  echo('strict_dates', query.strict_dates);
  echo('search', query.search);
  echo('categories', resolved.categoryIds);
  echo('tags', resolved.tagIds);
  echo('venue', resolved.venueIds);
  echo('organizer', resolved.organizerIds);
  echo('featured', input.featured === undefined ? undefined : Number(input.featured));
  echo('include', resolved.include);
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
  return args;
}

/** The page and the total: by the compiled query, or by distance (then with each event's distance). */
async function readPage(events: Collection<EventDoc>, query: EventListQuery, { input, geo }: ResolvedList, compiled: CompiledEventList) {
  const near = query.orderby === 'distance' ? geo.near : undefined;
  if (near === undefined) {
    const { items, total } = await events.findPage(compiled.query);
    return { items, total, distances: undefined };
  }
  const page = await distancePage(events, compiled.query.filter, geo.clauses[0]!, near.hits, compiled.paging, input.order ?? 1);
  return { items: page.items.map((i) => i.doc), total: page.total, distances: page.items.map((i) => reportDistance(i.distance, near.unit)) };
}

/**
 * The modification window (src/query/modified.ts). An event embeds its venue and organizers, so
 * the scheduled publication of one of them changes the event too.
 */
async function modifiedFilter(
  { storage, siteTimezone, now }: Pick<EventListDeps, 'storage' | 'siteTimezone' | 'now'>,
  query: EventListQuery,
  errors: ParamErrors,
) {
  const at = now();
  const { bounds, invalid, echo } = resolveModified(query, { now: at, siteTimezone });
  for (const param of invalid) errors.add(param, `${param} is not a valid date.`);
  if (!hasModifiedBounds(bounds)) return { clauses: [], echo, given: invalid.length > 0 };
  // By id, and only when there are any: the common window (no scheduled publication in it) is then
  // one range on the modification index, read in its order.
  const late = async (range: [Date, Date] | undefined, param: ModifiedParam): Promise<Filter[] | undefined> => {
    if (range === undefined) return undefined;
    const scheduled = scheduledWithin(range);
    const ids = (collection: 'events' | 'venues' | 'organizers') => boundedDistinct(() => storage[collection].distinct('_id', scheduled), param, 'records');
    const [eventIds, venueIds, organizerIds] = await Promise.all([ids('events'), ids('venues'), ids('organizers')]);
    const clauses: Filter[] = [];
    if (eventIds.length > 0) clauses.push({ _id: { $in: eventIds } });
    if (venueIds.length > 0) clauses.push({ venueId: { $in: venueIds } });
    if (organizerIds.length > 0) clauses.push({ organizerIds: { $in: organizerIds } });
    return clauses;
  };
  const ranges = publicationRanges(bounds, at);
  const [after, before] = await Promise.all([late(ranges.after, 'modified_after'), late(ranges.before, 'modified_before')]);
  return { clauses: modifiedClauses(bounds, { after, before }), echo, given: true };
}

/** `post_parent`'s record: an event, or a series (whose occurrences name it as their parent). */
async function parentOf(storage: Pick<Storage, 'events' | 'series'>, id: number) {
  return (await storage.events.findById(id)) ?? (await storage.series.findById(id));
}

export function createEventList(deps: EventListDeps) {
  const { storage, venues, organizers, categories, tags, siteTimezone, perPageMax, geolocEnabled, reads, geo: geolocation, now } = deps;

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

  /** The parameters validated and resolved to ids; problems go to `errors` (a missing coordinate throws). */
  async function resolveList(query: EventListQuery, caller: Caller | null, extra: Filter[], errors: ParamErrors): Promise<ResolvedList> {
    let statuses: PostStatus[] = [];
    try {
      statuses = resolveStatuses(query.status, caller);
    } catch (err) {
      if (!(err instanceof InvalidParamsError)) throw err;
      Object.assign(errors.params, (err.data as { params: Record<string, string> }).params);
    }
    const [categoryIds, tagIds, venueIds, organizerIds, parent, modified] = await Promise.all([
      query.categories === undefined ? undefined : categories.resolveList(query.categories, 'categories', errors, caller),
      query.tags === undefined ? undefined : tags.resolveList(query.tags, 'tags', errors, caller),
      query.venue === undefined ? undefined : existingIds('venues', query.venue, 'venue', errors, caller),
      query.organizer === undefined ? undefined : existingIds('organizers', query.organizer, 'organizer', errors, caller),
      query.post_parent === undefined ? undefined : parentOf(storage, query.post_parent),
      modifiedFilter(deps, query, errors),
    ]);
    if (query.post_parent !== undefined && !eventUsableBy(parent ?? null, caller, now())) {
      errors.add('post_parent', 'post_parent must be the id of an existing event or series.');
    }
    const include = query.include === undefined ? undefined : idList(query.include, 'include', errors);
    const input: EventListInput = {
      dates: Object.fromEntries(DATE_PARAMS.filter((p) => query[p] !== undefined).map((p) => [p, query[p] as string])),
      statuses,
    };
    if (query.page !== undefined) input.page = query.page;
    if (query.per_page !== undefined) input.perPage = query.per_page;
    if (query.strict_dates !== undefined) input.strictDates = query.strict_dates;
    if (modified.given) input.modifiedWindow = true;
    if (query.search !== undefined) input.search = query.search;
    if (categoryIds !== undefined) input.categoryIds = boundedIds(await categories.expandWithDescendants(categoryIds), 'categories', 'categories');
    if (tagIds !== undefined) input.tagIds = tagIds;
    if (venueIds !== undefined) input.venueIds = venueIds;
    if (organizerIds !== undefined) input.organizerIds = organizerIds;
    if (query.featured !== undefined) input.featured = toBool(query.featured);
    if (query.ticketed !== undefined) input.ticketed = toBool(query.ticketed);
    if (include !== undefined) input.include = include;
    if (parent) input.postParent = parent._id;
    const geo = await geolocation.resolveGeo(query, caller, errors);
    input.extra = [...extra, ...modified.clauses, ...geo.clauses, ...protectedClauses(query, caller, geolocEnabled)];
    if (query.orderby !== undefined && query.orderby !== 'distance') input.orderBy = query.orderby;
    if (query.order !== undefined) input.order = query.order.toLowerCase() === 'desc' ? -1 : 1;
    return { input, statuses, categoryIds, tagIds, venueIds, organizerIds, include, geo, modified: modified.echo };
  }

  /** GET /events: validates and resolves every parameter, then one page query. */
  async function list(query: EventListQuery, caller: Caller | null, extra: Filter[] = []) {
    const errors = new ParamErrors();
    const resolved = await resolveList(query, caller, extra, errors);
    const compiled = compileEventList(resolved.input, { now: now(), siteTimezone, perPageMax });
    for (const param of compiled.invalidDates) errors.add(param, `${param} is not a valid date.`);
    if (!errors.empty) throw new InvalidParamsError(errors.params);

    const { items, total, distances } = await readPage(storage.events, query, resolved, compiled);
    const relations = await reads.relationsOfMany(items, caller);
    const at = now();
    const args = listArgs(query, resolved, compiled, geolocEnabled);
    return {
      items: items.map((doc: EventDoc, i) => ({
        doc: asSeen(doc, at),
        locked: doc.password !== null && !unlocks(doc.password, query, caller),
        relations: relations[i] as EventRelations,
        ...(distances ? { distance: distances[i] } : {}),
      })),
      total,
      paging: compiled.paging,
      args,
      /** The statuses listed, as readers see them (the feed tells which occurrences of a series the caller sees). */
      statuses: resolved.statuses,
    };
  }

  return { list };
}
