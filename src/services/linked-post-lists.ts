/**
 * The lists of venues and organizers: status, search, the filters by the events that use a record,
 * the modification window of an incremental sync (src/query/modified.ts), order and paging.
 */
import { InvalidParamsError } from '../errors.js';
import { searchWords, textSearchOf } from '../lib/text.js';
import { boundedDistinct } from '../query/id-lists.js';
import { hasModifiedBounds, modifiedClauses, publicationRanges, resolveModified, scheduledWithin } from '../query/modified.js';
import { type Paging, resolvePaging } from '../query/paging.js';
import { NON_TRASH_STATUSES, resolveStatuses, statusFilter } from '../query/status.js';
import { type CompiledQuery, type Filter, type PostStatus, type Sort } from '../storage/port.js';
import { asSeen, type Caller, eventUsableBy } from './access.js';
import { isTruthy, ParamErrors } from './input.js';
import { type LinkedPostContext, type LinkedPostDoc, type LinkedPostInput } from './linked-posts.js';

export interface LinkedPostListParams {
  page?: number;
  per_page?: number;
  search?: string;
  event?: number;
  has_events?: boolean | number | string;
  only_with_upcoming?: boolean | number | string;
  status?: string | string[];
  modified_after?: string;
  modified_before?: string;
  orderby?: 'name' | 'modified';
  order?: string;
}

/** Statuses of the events that make a venue or organizer "have events". */
const LIVE_EVENT_STATUSES: readonly PostStatus[] = ['publish', 'future', 'private'];

/** Password-protected events never tell anonymous callers anything about their venue or organizers. */
const unprotectedFor = (caller: Caller | null): Filter => (caller === null ? { password: null } : {});

/** By name (case-insensitively; the default) or by modification time, ties by id either way. */
function sortOf(params: LinkedPostListParams): Sort {
  const direction = params.order?.toLowerCase() === 'desc' ? -1 : 1;
  return [
    [params.orderby === 'modified' ? 'modifiedUtc' : 'nameKey', direction],
    ['_id', direction],
  ];
}

export function linkedPostLists<D extends LinkedPostDoc, I extends LinkedPostInput>(
  { def, storage, collection, siteTimezone, now }: LinkedPostContext<D, I>,
  perPageMax: number,
) {
  async function eventIdsFilter(params: LinkedPostListParams, caller: Caller | null, errors: ParamErrors): Promise<Filter[]> {
    const clauses: Filter[] = [];
    const at = now();
    if (params.event !== undefined) {
      const found = await storage.events.findById(params.event);
      const event = eventUsableBy(found, caller, at) ? found : null;
      if (!event) errors.add('event', 'event must be the id of an existing event.');
      else {
        const ids = def.eventField === 'venueId' ? (event.venueId === null ? [] : [event.venueId]) : event.organizerIds;
        clauses.push({ _id: { $in: ids } });
      }
    }
    if (params.has_events !== undefined) {
      // Anonymous callers count only events they could read: a private or scheduled event must not
      // reveal its venue or organizers through this filter.
      const live: Filter = caller === null ? { $and: [statusFilter(['publish'], at), unprotectedFor(caller)] } : { status: { $in: [...LIVE_EVENT_STATUSES] } };
      const ids = await boundedDistinct(() => storage.events.distinct(def.eventField, live), 'has_events', `${def.kind}s`);
      clauses.push({ _id: isTruthy(params.has_events) ? { $in: ids } : { $nin: ids } });
    }
    if (params.only_with_upcoming !== undefined && isTruthy(params.only_with_upcoming)) {
      const visible = statusFilter(caller ? NON_TRASH_STATUSES : ['publish'], at);
      const upcoming: Filter = { $and: [visible, { startUtc: { $gte: at } }, unprotectedFor(caller)] };
      const ids = await boundedDistinct(() => storage.events.distinct(def.eventField, upcoming), 'only_with_upcoming', `${def.kind}s`);
      clauses.push({ _id: { $in: ids } });
    }
    return clauses;
  }

  /**
   * The modification window: a venue's or organizer's representation holds nothing of other
   * records. Scheduled publications by id, and only when there are any (as for events).
   */
  async function modifiedFilter(params: LinkedPostListParams, errors: ParamErrors) {
    const at = now();
    const { bounds, invalid, echo } = resolveModified(params, { now: at, siteTimezone });
    for (const param of invalid) errors.add(param, `${param} is not a valid date.`);
    if (!hasModifiedBounds(bounds)) return { clauses: [], echo };
    const ranges = publicationRanges(bounds, at);
    const late = async (range: [Date, Date] | undefined, param: string): Promise<Filter[] | undefined> => {
      if (range === undefined) return undefined;
      const ids = await boundedDistinct(() => collection.distinct('_id', scheduledWithin(range)), param, `${def.kind}s`);
      return ids.length > 0 ? [{ _id: { $in: ids } }] : [];
    };
    const [after, before] = await Promise.all([late(ranges.after, 'modified_after'), late(ranges.before, 'modified_before')]);
    return { clauses: modifiedClauses(bounds, { after, before }), echo };
  }

  return {
    async list(params: LinkedPostListParams, caller: Caller | null): Promise<{ items: D[]; total: number; paging: Paging; args: Array<[string, string]> }> {
      const errors = new ParamErrors();
      let statuses: PostStatus[] = [];
      try {
        statuses = resolveStatuses(params.status, caller);
      } catch (err) {
        if (err instanceof InvalidParamsError) Object.assign(errors.params, (err.data as { params: Record<string, string> }).params);
        else throw err;
      }
      const clauses: Filter[] = [statusFilter(statuses, now())];
      clauses.push(...(await eventIdsFilter(params, caller, errors)));
      const modified = await modifiedFilter(params, errors);
      clauses.push(...modified.clauses);
      if (!errors.empty) throw new InvalidParamsError(errors.params);
      if (params.search !== undefined) {
        clauses.push({ $text: { $search: textSearchOf(params.search) }, searchTerms: { $all: searchWords(params.search) } });
      }
      const paging = resolvePaging(params.page, params.per_page, perPageMax);
      const query: CompiledQuery = { filter: { $and: clauses }, sort: sortOf(params), skip: paging.skip, limit: paging.perPage };
      const { items, total } = await collection.findPage(query);
      const args: Array<[string, string]> = [['status', statuses.join(',')]];
      for (const name of ['search', 'event', 'has_events', 'only_with_upcoming'] as const) {
        const value = params[name];
        if (value !== undefined) args.push([name, String(value)]);
      }
      args.push(...modified.echo);
      if (params.orderby !== undefined) args.push(['orderby', params.orderby]);
      if (params.order !== undefined) args.push(['order', params.order.toLowerCase()]);
      return { items: items.map((d) => asSeen(d, now())), total, paging, args };
    },
  };
}
