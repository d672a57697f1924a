/**
 * Carrying a series' change to its occurrences (scopes `all` and `following`): each occurrence
 * whose date (moved by the change's whole days) the changed series still gives keeps its id and
 * takes the change, unless it is an exception, which keeps its own fields; one whose date left the
 * set is trashed (a tombstone tells incremental sync). Occurrences of a split move to the new
 * series: their series id and parent follow.
 */
import { type EventDoc, type SeriesDoc } from '../../storage/port.js';
import { type EventWrites } from '../events/writes.js';
import { seriesDates } from './occurrences.js';
import { addDays, occurrenceBounds } from './schedule.js';

export async function moveOccurrences(
  writes: Pick<EventWrites, 'applyUpdate' | 'trashDoc'>,
  occurrences: readonly EventDoc[],
  target: SeriesDoc,
  change: { common: Partial<EventDoc>; days: number },
  at: Date,
): Promise<void> {
  const dates = new Set(seriesDates(target));
  for (const occurrence of occurrences) {
    const date = addDays(occurrence.occurrenceDate as string, change.days);
    if (!dates.has(date)) {
      await writes.trashDoc(occurrence);
      continue;
    }
    const set: Partial<EventDoc> = {};
    if (date !== occurrence.occurrenceDate) set.occurrenceDate = date;
    if (occurrence.seriesId !== target._id) Object.assign(set, { postParent: target._id, seriesId: target._id });
    if (!occurrence.isException) Object.assign(set, change.common, occurrenceBounds(target, date));
    if (Object.keys(set).length > 0) await writes.applyUpdate(occurrence, { ...set, modifiedUtc: at });
  }
}
