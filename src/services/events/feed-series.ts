/**
 * The feed's occurrences grouped by series: a series with an occurrence in the feed is one item,
 * which carries what the caller may see of the whole series — the series itself, the occurrences
 * they see (exceptions apart), and the dates of those they do not (trashed, unpublished for them,
 * hidden from listings), which the feed excludes (EXDATE) so a calendar expands the series to the
 * occurrences the list shows. Two queries per feed: the series, and all their occurrences.
 * docs/recurrence.md ("iCalendar feeds") describes it.
 */
import { type FeedEvent, type FeedItem, type FeedSeries } from '../../serialize/ics/calendar.js';
import { type EventDoc, type PostStatus, type SeriesDoc, type Storage } from '../../storage/port.js';
import { asSeen, type Caller, effectiveStatus } from '../access.js';
import { type EventReads, unlocks } from './read.js';

export interface FeedSeriesDeps {
  storage: Pick<Storage, 'events' | 'series'>;
  reads: Pick<EventReads, 'relationsOfMany'>;
  now: () => Date;
}

/** What decides what the caller sees: the list's statuses, and the password or context the request sends. */
export interface FeedAudience {
  caller: Caller | null;
  statuses: readonly PostStatus[];
  request: { password?: string | undefined; context?: string | undefined };
}

/** An occurrence of a series of the feed, dated (its RECURRENCE-ID). */
const member = (doc: EventDoc, series: ReadonlyMap<number, SeriesDoc>): boolean =>
  doc.seriesId !== undefined && series.has(doc.seriesId) && doc.occurrenceDate !== undefined;
/** A listed occurrence that its series' item stands for: a trashed one a token holder lists stays an event. */
const grouped = (doc: EventDoc, series: ReadonlyMap<number, SeriesDoc>): boolean => member(doc, series) && doc.status !== 'trash';

export function createFeedSeries({ storage, reads, now }: FeedSeriesDeps) {
  /**
   * The list's items with the occurrences of each series replaced by one series item, where the
   * first of them was. Occurrences of a series that is gone or trashed, and trashed occurrences a
   * token holder lists, stay events of their own.
   */
  async function groupSeries(items: readonly FeedEvent[], audience: FeedAudience): Promise<FeedItem[]> {
    const ids = [...new Set(items.flatMap(({ doc }) => (doc.seriesId === undefined ? [] : [doc.seriesId])))];
    if (ids.length === 0) return [...items];
    const filter = { _id: { $in: ids } };
    const [seriesDocs, occurrences] = await Promise.all([storage.series.find({ filter }), storage.events.find({ filter: { postParent: { $in: ids } } })]);
    const at = now();
    const series = new Map(seriesDocs.filter((s) => s.status !== 'trash').map((s) => [s._id, asSeen(s, at)]));
    const { caller, statuses, request } = audience;
    const locked = (doc: { password: string | null }) => doc.password !== null && !unlocks(doc.password, request, caller);
    const seen = (doc: EventDoc) => doc.status !== 'trash' && !doc.hideFromListings && statuses.includes(effectiveStatus(doc, at));

    const bySeries = new Map<number, EventDoc[]>();
    for (const doc of occurrences) {
      if (!member(doc, series)) continue;
      const docs = bySeries.get(doc.seriesId as number);
      if (docs === undefined) bySeries.set(doc.seriesId as number, [doc]);
      else docs.push(doc);
    }
    const listed = new Map(items.map((item) => [item.doc._id, item]));
    // Relations of the series and of the exceptions the list did not give, in one load.
    const unlisted = occurrences.filter((doc) => doc.isException === true && member(doc, series) && seen(doc) && !listed.has(doc._id));
    const loaded = [...series.values(), ...unlisted];
    const relations = new Map((await reads.relationsOfMany(loaded, caller)).map((r, i) => [loaded[i]!._id, r]));

    const itemOf = (s: SeriesDoc, listedOfSeries: FeedEvent[]): FeedSeries => {
      const all = bySeries.get(s._id) ?? [];
      const shown = all.filter(seen);
      const shownDates = new Set(shown.map((doc) => doc.occurrenceDate));
      const hidden = new Set(all.filter((doc) => !shownDates.has(doc.occurrenceDate)).map((doc) => doc.occurrenceDate as string));
      const template = relations.get(s._id)!;
      const entry = (doc: EventDoc): FeedEvent =>
        listed.get(doc._id) ?? { doc: asSeen(doc, at), relations: relations.get(doc._id) ?? template, locked: locked(doc) };
      const modified = all.reduce((latest, doc) => Math.max(latest, doc.modifiedUtc.getTime()), s.modifiedUtc.getTime());
      return {
        series: s,
        relations: template,
        locked: locked(s),
        modifiedUtc: new Date(modified),
        hiddenDates: [...hidden].sort(),
        occurrences: shown.filter((doc) => doc.isException !== true).map(entry),
        exceptions: shown.filter((doc) => doc.isException === true).map(entry),
        listed: listedOfSeries,
      };
    };
    // The list's order, each series where its first listed occurrence is.
    const order: Array<FeedEvent | number> = [];
    const listedBySeries = new Map<number, FeedEvent[]>();
    for (const item of items) {
      if (!grouped(item.doc, series)) {
        order.push(item);
        continue;
      }
      const id = item.doc.seriesId as number;
      const group = listedBySeries.get(id);
      if (group !== undefined) group.push(item);
      else {
        listedBySeries.set(id, [item]);
        order.push(id);
      }
    }
    return order.map((entry) => (typeof entry === 'number' ? itemOf(series.get(entry)!, listedBySeries.get(entry)!) : entry));
  }

  return { groupSeries };
}
