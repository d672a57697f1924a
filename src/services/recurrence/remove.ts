/**
 * Deleting through an occurrence (DELETE with `scope`): `this` trashes the occurrence and adds its
 * date to the series' exdates; `following` ends the series the day before and trashes the
 * occurrence and every later one (with nothing before it, that is `all`); `all` trashes the series
 * and every occurrence. Each trashed occurrence leaves a tombstone, as any trashed event does.
 */
import { invalidParam } from '../../errors.js';
import { RecurrenceError, ruleUntilBefore, withExdate } from '../../lib/recurrence/index.js';
import { type EventDoc, type Filter, type SeriesDoc, type Storage } from '../../storage/port.js';
import { type EventWrites } from '../events/writes.js';
import { type Scope } from './edit.js';
import { seriesClock } from './schedule.js';

export interface SeriesRemovalsDeps {
  storage: Pick<Storage, 'events' | 'series'>;
  writes: Pick<EventWrites, 'trashDoc'>;
  now: () => Date;
}

export function createSeriesRemovals({ storage, writes, now }: SeriesRemovalsDeps) {
  /** Trashes the series' live occurrences matching `filter` too; returns the addressed one as trashed. */
  async function trashWith(series: SeriesDoc, occurrence: EventDoc, filter: Filter): Promise<EventDoc> {
    const trashed = await writes.trashDoc(occurrence);
    const others = await storage.events.find({ filter: { ...filter, postParent: series._id, status: { $ne: 'trash' } } });
    for (const other of others) await writes.trashDoc(other);
    return trashed;
  }

  async function removeOccurrence(series: SeriesDoc, occurrence: EventDoc, scope: Scope): Promise<EventDoc> {
    // Already trashed: 410, its tombstone made sure of (writes.ts).
    if (occurrence.status === 'trash') return writes.trashDoc(occurrence);
    const at = now();
    const date = occurrence.occurrenceDate as string;
    const before = scope === 'all' ? null : ruleUntilBefore(series.recurrence, seriesClock(series).startDate, date);
    if (scope === 'this') {
      let recurrence;
      try {
        recurrence = withExdate(series.recurrence, date);
      } catch (error) {
        if (error instanceof RecurrenceError) throw invalidParam('scope', error.message);
        throw error;
      }
      const trashed = await writes.trashDoc(occurrence);
      await storage.series.updateById(series._id, { $set: { recurrence, modifiedUtc: at } });
      return trashed;
    }
    if (before === null) {
      await storage.series.updateById(series._id, { $set: { status: 'trash', nextDate: null, modifiedUtc: at } });
      return trashWith(series, occurrence, {});
    }
    const nextDate = series.nextDate !== null && series.nextDate < date ? series.nextDate : null;
    await storage.series.updateById(series._id, { $set: { recurrence: before, nextDate, modifiedUtc: at } });
    return trashWith(series, occurrence, { occurrenceDate: { $gte: date } });
  }

  return { removeOccurrence };
}
