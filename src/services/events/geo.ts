/**
 * The event list's geolocation: the parameters turned into filters on the events' venues (near a
 * point, or with or without coordinates), and the page of events ordered by their venue's distance.
 */
import { MissingParamsError } from '../../errors.js';
import { DEFAULT_RADIUS, type DistanceUnit, toRadians } from '../../query/geo.js';
import { boundedDistinct, boundedIds } from '../../query/id-lists.js';
import { NON_TRASH_STATUSES, statusFilter } from '../../query/status.js';
import { type EventListQuery } from '../../schemas/events.js';
import { type Collection, type EventDoc, type Filter, type NearHit, type Storage } from '../../storage/port.js';
import { type Caller } from '../access.js';
import { type ParamErrors, toBool } from '../input.js';

export interface EventGeoDeps {
  storage: Pick<Storage, 'venues'>;
  /** GEOLOC_ENABLED: without it the geolocation parameters have no effect. */
  geolocEnabled: boolean;
  now: () => Date;
}

/** The list's geolocation filters; `near`: the venues within the radius, nearest first, when a point is given. */
export interface GeoFilter {
  clauses: Filter[];
  near: { hits: NearHit[]; unit: DistanceUnit } | undefined;
}

/** A page of events ordered by distance, each with its venue's distance. */
export interface DistancePage {
  items: Array<{ doc: EventDoc; distance: number }>;
  total: number;
}

export function createEventGeo({ storage, geolocEnabled, now }: EventGeoDeps) {
  /**
   * The geolocation parameters: a point (both coordinates or neither) restricts
   * events to venues within the radius, served by the venues' 2dsphere index; `geoloc` alone
   * selects events whose venue has (or has no) coordinates. Disabled, the documents leave them out
   * and the filters are accepted without effect (the route's schema still checks their values).
   * orderby=distance is refused instead: orderby is a parameter the server has, and any other
   * order would answer another question than the one asked.
   */
  async function resolveGeo(query: EventListQuery, caller: Caller | null, errors: ParamErrors): Promise<GeoFilter> {
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
      const clause: Filter = toBool(query.geoloc) ? { venueId: { $in: located } } : { $or: [{ venueId: null }, { venueId: { $nin: located } }] };
      return { clauses: [clause], near: undefined };
    }
    return off;
  }

  return { resolveGeo };
}

export type EventGeo = ReturnType<typeof createEventGeo>;

/**
 * Events ordered by their venue's distance, then start, then id, without loading every match:
 * one facet count per venue, then only the events of the venues that cover the requested page
 * are read, in one query. `nearClause` is the filter's `venueId $in <every venue in the circle>`:
 * it selects the events to count, but the page read names its own venues, so it is left out there
 * (hundreds of index runs per read otherwise).
 */
export async function distancePage(
  events: Collection<EventDoc>,
  filter: Filter,
  nearClause: Filter,
  hits: NearHit[],
  paging: { skip: number; perPage: number },
  direction: 1 | -1,
): Promise<DistancePage> {
  const counts = new Map((await events.countValues('venueId', filter)).map((r) => [r.value as number, r.count]));
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
  const docs = await events.find({ filter: { $and: [...topLevel, { venueId: { $in: covering.flatMap((g) => g.ids) } }] } });
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
