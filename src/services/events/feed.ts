/**
 * GET /events.ics: the event list (list.ts) without paging — its first ICS_MAX_EVENTS events in
 * the list's order, with the number matching, the occurrences of each series grouped as one item
 * (feed-series.ts) — and the names of what its filters name, for the calendar's name.
 */
import { type EventFeedQuery } from '../../schemas/events.js';
import { type Storage } from '../../storage/port.js';
import { type Caller } from '../access.js';
import { createFeedSeries } from './feed-series.js';
import { type createEventList } from './list.js';
import { type EventReads } from './read.js';

export interface EventFeedDeps {
  storage: Pick<Storage, 'categories' | 'tags' | 'venues' | 'organizers' | 'events' | 'series'>;
  /** The list, built with ICS_MAX_EVENTS as its largest page. */
  list: ReturnType<typeof createEventList>['list'];
  /** ICS_MAX_EVENTS. */
  feedMax: number;
  reads: Pick<EventReads, 'relationsOfMany'>;
  now: () => Date;
}

/** The filters that name records, as the list echoes them (ids as sent, before descendants), and where those live. */
const NAMED_FILTERS = [
  ['categories', 'categories'],
  ['tags', 'tags'],
  ['venue', 'venues'],
  ['organizer', 'organizers'],
] as const;

export function createEventFeed({ storage, list, feedMax, reads, now }: EventFeedDeps) {
  const { groupSeries } = createFeedSeries({ storage, reads, now });

  /**
   * The names of the records the filters name, in the order named, then the search words. The
   * list has checked that the caller may see each of them.
   */
  async function filterNames(args: ReadonlyArray<readonly [string, string]>): Promise<string[]> {
    const value = (name: string) => args.find(([arg]) => arg === name)?.[1];
    const names = await Promise.all(
      NAMED_FILTERS.map(async ([param, collection]) => {
        const ids = (value(param) ?? '').split(',').filter(Boolean).map(Number);
        if (ids.length === 0) return [];
        const docs: Array<{ _id: number; name: string }> = await storage[collection].find({ filter: { _id: { $in: ids } } });
        return ids.flatMap((id) => docs.filter((doc) => doc._id === id).map((doc) => doc.name));
      }),
    );
    const search = value('search');
    return [...names.flat(), ...(search === undefined ? [] : [`"${search}"`])];
  }

  /** The events and series of the feed in the list's order, how many events match, and the names for the calendar. */
  async function feed(query: EventFeedQuery, caller: Caller | null) {
    // Paging parameters sent anyway are unknown parameters here: the feed is one page, the first.
    const { items, total, args, statuses } = await list({ ...query, page: 1, per_page: feedMax }, caller);
    const [grouped, names] = await Promise.all([groupSeries(items, { caller, statuses, request: query }), filterNames(args)]);
    return { items: grouped, total, names };
  }

  return { feed };
}
