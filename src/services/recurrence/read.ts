/**
 * Reading a series (GET /series/{id}): the template under the same access rules as an event, the
 * size of its set, and the exceptions and next occurrences the caller may read.
 */
import { NotFoundError } from '../../errors.js';
import { type EventRelations } from '../../serialize/events.js';
import { type EventDoc, type Filter, type SeriesDoc, type Storage } from '../../storage/port.js';
import { asSeen } from '../access.js';
import { type EventReads, type ReadOptions } from '../events/read.js';
import { seriesDates } from './occurrences.js';

/** How many upcoming occurrences a series' representation lists. */
export const NEXT_OCCURRENCES = 10;
/** Upcoming occurrences are read this many at a time until enough of them may be read. */
const BATCH = 50;

/** What the series' representation shows (src/serialize/series.ts). */
export interface SeriesView {
  doc: SeriesDoc;
  relations: EventRelations;
  /** The number of dates of the set. */
  occurrences: number;
  exceptions: EventDoc[];
  next: EventDoc[];
}

export interface SeriesReadsDeps {
  storage: Pick<Storage, 'events' | 'series'>;
  reads: Pick<EventReads, 'assertReadable' | 'relationsOf'>;
  now: () => Date;
}

const byStart: Array<[string, 1]> = [
  ['startUtc', 1],
  ['_id', 1],
];

export function createSeriesReads({ storage, reads, now }: SeriesReadsDeps) {
  async function findSeries(id: number): Promise<SeriesDoc> {
    const series = await storage.series.findById(id);
    if (series === null) throw new NotFoundError('series', id);
    return series;
  }

  /** Whether the caller may read the occurrence as a single event. */
  function readable(doc: EventDoc, options: ReadOptions): boolean {
    try {
      reads.assertReadable(doc, options);
      return true;
    } catch {
      return false;
    }
  }

  /** The first NEXT_OCCURRENCES occurrences starting from now that the caller may read. */
  async function upcoming(seriesId: number, options: ReadOptions): Promise<EventDoc[]> {
    const filter: Filter = { postParent: seriesId, startUtc: { $gte: now() }, status: { $ne: 'trash' } };
    const found: EventDoc[] = [];
    for (let skip = 0; found.length < NEXT_OCCURRENCES; skip += BATCH) {
      const batch = await storage.events.find({ filter, sort: byStart, skip, limit: BATCH });
      for (const doc of batch) if (found.length < NEXT_OCCURRENCES && readable(doc, options)) found.push(doc);
      if (batch.length < BATCH) break;
    }
    return found;
  }

  async function getSeries(id: number, options: ReadOptions): Promise<SeriesView> {
    const series = await findSeries(id);
    reads.assertReadable(series, options);
    const at = now();
    const [relations, exceptions, next] = await Promise.all([
      reads.relationsOf(series, options.caller),
      storage.events.find({ filter: { postParent: id, isException: true, status: { $ne: 'trash' } }, sort: byStart }),
      upcoming(id, options),
    ]);
    return {
      doc: asSeen(series, at),
      relations,
      occurrences: seriesDates(series).length,
      exceptions: exceptions.filter((doc) => readable(doc, options)).map((doc) => asSeen(doc, at)),
      next: next.map((doc) => asSeen(doc, at)),
    };
  }

  return { findSeries, getSeries };
}

export type SeriesReads = ReturnType<typeof createSeriesReads>;
