/**
 * Recurring events (docs/recurrence.md): a series stores the template and the rule
 * (src/storage/port.ts, SeriesDoc), each occurrence is an ordinary event. Built from modules of one
 * job each: schedule.ts (where occurrences fall), occurrences.ts (writing them up to the horizon),
 * create.ts (a new series), read.ts (a series' representation).
 */
import { type KeyedLock } from '../../lib/keyed-lock.js';
import { type RecurrenceInput } from '../../lib/recurrence/index.js';
import { type EventCreate } from '../../schemas/events.js';
import { type Storage } from '../../storage/port.js';
import { type Caller } from '../access.js';
import { type EventReads } from '../events/read.js';
import { type EventWrites } from '../events/writes.js';
import { createSeriesCreate } from './create.js';
import { createOccurrenceWrites } from './occurrences.js';
import { createSeriesReads } from './read.js';

export { type SeriesView } from './read.js';

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
  const { create } = createSeriesCreate({ storage, writes, occurrences, maxOccurrences });
  const seriesReads = createSeriesReads({ storage, reads, now });

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
    createSeries: (input: EventCreate & { recurrence: RecurrenceInput }, caller: Caller, reservedId?: number) => create(input, caller, reservedId),
    getSeries: seriesReads.getSeries,
    extendSeries,
  };
}

export type Recurrence = ReturnType<typeof createRecurrence>;
