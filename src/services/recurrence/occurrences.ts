/**
 * Writing a series' occurrences: every date of its set from `nextDate` up to the horizon (today
 * plus RECURRENCE_HORIZON_DAYS in the series' zone) becomes an event, then `nextDate` moves past
 * the horizon. `nextDate` moves only once the dates before it are written, so a write that was
 * interrupted is completed by the next pass (`extendSeries`, hourly and at start). A date is written
 * once however many passes run at once: the events' unique slug index refuses the second insert of
 * `<series slug>-<date>`, and a clash whose owner is the series' occurrence of that date is that
 * occurrence.
 */
import { occurrenceDates } from '../../lib/recurrence/index.js';
import { type EventDoc, type SeriesDoc, type Storage } from '../../storage/port.js';
import { insertWithUniqueSlug } from '../unique-slug.js';
import { SLUG_INDEX } from '../events/writes.js';
import { addDays, horizonDate, occurrenceDoc, seriesClock } from './schedule.js';

export interface OccurrenceWritesDeps {
  storage: Pick<Storage, 'events' | 'series' | 'nextId'>;
  /** RECURRENCE_HORIZON_DAYS. */
  horizonDays: number;
  now: () => Date;
}

/** The dates of a series' set (its rule, exdates and rdates), first to last. */
export const seriesDates = (series: Pick<SeriesDoc, 'recurrence' | 'startUtc' | 'endUtc' | 'timezone'>): string[] =>
  occurrenceDates(series.recurrence, seriesClock(series).startDate);

export function createOccurrenceWrites({ storage, horizonDays, now }: OccurrenceWritesDeps) {
  /** The series' live (untrashed) occurrences on these dates, by date. */
  async function liveOccurrences(seriesId: number, dates: readonly string[]): Promise<Map<string, EventDoc>> {
    const found = await storage.events.find({ filter: { postParent: seriesId, occurrenceDate: { $in: [...dates] }, status: { $ne: 'trash' } } });
    return new Map(found.map((doc) => [doc.occurrenceDate as string, doc]));
  }

  /** Inserts one occurrence whose slug clashed: the series' occurrence of that date already stored, or a suffixed slug. */
  async function insertClashed(series: SeriesDoc, doc: EventDoc): Promise<EventDoc> {
    const date = doc.occurrenceDate as string;
    return insertWithUniqueSlug<EventDoc>({
      base: doc.slug,
      id: doc._id,
      slugIndex: SLUG_INDEX,
      firstAttempt: 2,
      insert: async (slug) => {
        const candidate = { ...doc, slug };
        await storage.events.insertOne(candidate);
        return candidate;
      },
      afterClash: async () => (await liveOccurrences(series._id, [date])).get(date),
    }).catch(async (error: unknown) => {
      // The suffix search ended: the occurrence another pass stored meanwhile, else the failure.
      const stored = (await liveOccurrences(series._id, [date])).get(date);
      if (stored === undefined) throw error;
      return stored;
    });
  }

  /** Writes the occurrences of `dates` the series lacks; returns how many it wrote. */
  async function writeDates(series: SeriesDoc, dates: readonly string[]): Promise<number> {
    const live = await liveOccurrences(series._id, dates);
    const missing = dates.filter((date) => !live.has(date));
    if (missing.length === 0) return 0;
    const first = await storage.nextId('posts', missing.length);
    const docs = missing.map((date, i) => occurrenceDoc(series, first + i, date));
    const failures = await storage.events.insertMany(docs);
    let written = docs.length - failures.length;
    for (const { index, error } of failures) {
      if (error.index !== SLUG_INDEX) throw error;
      const doc = docs[index]!;
      const stored = (await liveOccurrences(series._id, [doc.occurrenceDate as string])).get(doc.occurrenceDate as string);
      if (stored !== undefined) continue;
      if ((await insertClashed(series, doc))._id === doc._id) written += 1;
    }
    return written;
  }

  /**
   * Writes the series' due occurrences (from `nextDate` to the horizon) and moves `nextDate` past
   * the horizon; returns the series as stored and how many occurrences were written.
   */
  async function materialise(series: SeriesDoc): Promise<{ series: SeriesDoc; written: number }> {
    if (series.nextDate === null || series.status === 'trash') return { series, written: 0 };
    const horizon = horizonDate(now(), horizonDays, series.timezone);
    const all = seriesDates(series);
    const from = series.nextDate;
    const written = await writeDates(
      series,
      all.filter((date) => date >= from && date <= horizon),
    );
    const nextDate = all.find((date) => date > horizon) ?? null;
    if (nextDate === series.nextDate) return { series, written };
    const stored = await storage.series.updateById(series._id, { $set: { nextDate } });
    return { series: stored ?? series, written };
  }

  /** The series whose next date may be within the horizon of its zone (the latest horizon of any zone). */
  async function dueSeries(): Promise<SeriesDoc[]> {
    const latest = addDays(now().toISOString().slice(0, 10), horizonDays + 1);
    const found = await storage.series.find({
      filter: { nextDate: { $lte: latest } },
      sort: [
        ['nextDate', 1],
        ['_id', 1],
      ],
    });
    return found.filter((series) => series.nextDate !== null && series.status !== 'trash');
  }

  return { materialise, writeDates, dueSeries, liveOccurrences };
}

export type OccurrenceWrites = ReturnType<typeof createOccurrenceWrites>;
