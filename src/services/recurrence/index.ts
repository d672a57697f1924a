/**
 * Recurring events (docs/recurrence.md): a series stores the template and the rule
 * (src/storage/port.ts, SeriesDoc), each occurrence is an ordinary event. Built from modules of one
 * job each: schedule.ts (where occurrences fall), occurrences.ts (writing them up to the horizon),
 * create.ts (a new series), read.ts (a series' representation), change.ts and move.ts (a change
 * carried to the series and its occurrences), edit.ts (updates with a scope), remove.ts (deletes
 * with a scope).
 */
import { type KeyedLock } from '../../lib/keyed-lock.js';
import { type RecurrenceInput } from '../../lib/recurrence/index.js';
import { type EventCreate } from '../../schemas/events.js';
import { type Storage } from '../../storage/port.js';
import { type Caller } from '../access.js';
import { type EventReads } from '../events/read.js';
import { type EventWrites } from '../events/writes.js';
import { type EventDoc } from '../../storage/port.js';
import { type EventInput } from '../events/fields.js';
import { createSeriesCreate } from './create.js';
import { createSeriesEdits, type Scope } from './edit.js';
import { createSeriesRemovals } from './remove.js';
import { createOccurrenceWrites } from './occurrences.js';
import { createSeriesReads } from './read.js';

export { type SeriesView } from './read.js';
export { type Scope } from './edit.js';

export interface RecurrenceDeps {
  storage: Pick<Storage, 'events' | 'series' | 'nextId'>;
  writes: EventWrites;
  reads: Pick<EventReads, 'assertReadable' | 'relationsOf'>;
  /** The events' write lock: series ids come from the same sequence, so one lock serves both. */
  locks: KeyedLock<number>;
  /** RECURRENCE_HORIZON_DAYS and RECURRENCE_MAX_OCCURRENCES. */
  horizonDays: number;
  maxOccurrences: number;
  now: () => Date;
}

export function createRecurrence({ storage, writes, reads, locks, horizonDays, maxOccurrences, now }: RecurrenceDeps) {
  const occurrences = createOccurrenceWrites({ storage, horizonDays, now });
  const creates = createSeriesCreate({ storage, writes, occurrences, maxOccurrences });
  const seriesReads = createSeriesReads({ storage, reads, now });
  const { editOccurrence, editSeries } = createSeriesEdits({ storage, writes, occurrences, series: creates, maxOccurrences, now });
  const { removeOccurrence } = createSeriesRemovals({ storage, writes, now });

  /**
   * A write of an occurrence, under its series' lock (one write of a series at a time in this
   * process, the extension's too); `current` reads the occurrence inside the lock.
   */
  async function underSeries<T>(occurrence: EventDoc, write: (series: Awaited<ReturnType<typeof seriesReads.findSeries>>) => Promise<T>): Promise<T> {
    return locks.run(occurrence.seriesId as number, async () => write(await seriesReads.findSeries(occurrence.seriesId as number)));
  }

  /**
   * Writes the occurrences that entered the horizon since the last pass, and completes series whose
   * writes were interrupted; returns how many occurrences it wrote. Safe to run at any time, twice
   * at once or in several processes (occurrences.ts).
   */
  async function extendSeries(): Promise<number> {
    let written = 0;
    for (const due of await occurrences.dueSeries()) {
      written += await locks.run(due._id, async () => {
        const current = await storage.series.findById(due._id);
        return current === null ? 0 : (await occurrences.materialise(current)).written;
      });
    }
    return written;
  }

  return {
    /** POST /events with `recurrence`: the stored series, its occurrences written up to the horizon. */
    createSeries: (input: EventCreate & { recurrence: RecurrenceInput }, caller: Caller, reservedId?: number) => creates.create(input, caller, reservedId),
    /** PUT/PATCH of an occurrence; `current` reads it (and checks a precondition) under the series' lock. */
    updateOccurrence: (occurrence: EventDoc, current: () => Promise<EventDoc>, input: EventInput, caller: Caller, scope: Scope) =>
      underSeries(occurrence, async (series) => editOccurrence(series, await current(), input, caller, scope)),
    /** DELETE of an occurrence, like updateOccurrence. */
    trashOccurrence: (occurrence: EventDoc, current: () => Promise<EventDoc>, scope: Scope) =>
      underSeries(occurrence, async (series) => removeOccurrence(series, await current(), scope)),
    /** A change to a whole series stated as the series (its dates the first occurrence's), under its lock. */
    updateSeries: (seriesId: number, input: EventInput, caller: Caller) =>
      locks.run(seriesId, async () => editSeries(await seriesReads.findSeries(seriesId), input, caller)),
    getSeries: seriesReads.getSeries,
    extendSeries,
  };
}

export type Recurrence = ReturnType<typeof createRecurrence>;
