/**
 * Creating a series (POST /events with `recurrence`): the template is resolved exactly as an event
 * create resolves its body (src/services/events/writes.ts), with the rule checked in the same 400;
 * the series is stored, then its occurrences up to the horizon (occurrences.ts).
 */
import { DuplicateKeyError } from '../../errors.js';
import { RecurrenceError, occurrenceDates, parseRecurrence, type RecurrenceInput } from '../../lib/recurrence/index.js';
import { type EventCreate } from '../../schemas/events.js';
import { type SeriesDoc, type Storage, type StoredRecurrence } from '../../storage/port.js';
import { type Caller } from '../access.js';
import { type EventWrites, type WriteCheck } from '../events/writes.js';
import { type ParamErrors } from '../input.js';
import { insertWithUniqueSlug } from '../unique-slug.js';
import { type OccurrenceWrites } from './occurrences.js';
import { localDate } from './schedule.js';

/** The unique index of series slugs. */
export const SERIES_SLUG_INDEX = 'series_slug_unique';

export interface SeriesCreateDeps {
  storage: Pick<Storage, 'series'>;
  writes: Pick<EventWrites, 'prepareCreate' | 'afterCreate'>;
  occurrences: Pick<OccurrenceWrites, 'materialise'>;
  /** RECURRENCE_MAX_OCCURRENCES. */
  maxOccurrences: number;
}

/**
 * The rule of a write checked against its resolved start (the rule's dates are local dates of the
 * start's zone): the stored rule, or a problem under `recurrence` in `errors`.
 */
export function checkRule(input: RecurrenceInput, start: Date, timezone: string, maxOccurrences: number, errors: ParamErrors): StoredRecurrence | undefined {
  return checkRuleFrom(input, localDate(start, timezone), maxOccurrences, errors);
}

/** checkRule for a series that starts on `startDate`. */
export function checkRuleFrom(input: RecurrenceInput, startDate: string, maxOccurrences: number, errors: ParamErrors): StoredRecurrence | undefined {
  try {
    const rule = parseRecurrence(input, startDate, { maxOccurrences });
    if (occurrenceDates(rule, startDate).length === 0) {
      errors.add('recurrence', 'recurrence leaves no occurrence.');
      return undefined;
    }
    return rule;
  } catch (error) {
    if (!(error instanceof RecurrenceError)) throw error;
    errors.add('recurrence', error.message);
    return undefined;
  }
}

/** `post_parent` names no parent on a series' write: the series is its occurrences' parent. */
export function refuseParent(postParent: number | null | undefined, errors: ParamErrors): void {
  if (postParent !== undefined && postParent !== null) {
    errors.add('post_parent', "post_parent cannot be set on a recurring event: its series is the occurrences' parent.");
  }
}

export function createSeriesCreate({ storage, writes, occurrences, maxOccurrences }: SeriesCreateDeps) {
  /** Stores the series under a slug no other series holds (its id from the template, reserved or new). */
  async function insertSeries(series: SeriesDoc, reservedId: number | undefined): Promise<SeriesDoc> {
    try {
      return await insertWithUniqueSlug({
        base: series.slug,
        id: series._id,
        slugIndex: SERIES_SLUG_INDEX,
        insert: async (slug) => {
          const candidate = { ...series, slug };
          await storage.series.insertOne(candidate);
          return candidate;
        },
      });
    } catch (error) {
      // An earlier attempt of the same request (Idempotency-Key) stored it after the look-up.
      const earlier =
        reservedId !== undefined && error instanceof DuplicateKeyError && error.index === '_id_' ? await storage.series.findById(reservedId) : null;
      if (earlier === null) throw error;
      return earlier;
    }
  }

  /**
   * `reservedId` (an Idempotency-Key's create): the series id. A series already stored under it was
   * stored by an earlier attempt of the same request: its occurrences are completed and it is the answer.
   */
  async function create(input: EventCreate & { recurrence: RecurrenceInput }, caller: Caller, reservedId?: number): Promise<SeriesDoc> {
    let stored = reservedId === undefined ? null : await storage.series.findById(reservedId);
    if (stored === null) {
      const { recurrence, ...fields } = input;
      let rule: StoredRecurrence | undefined;
      const check: WriteCheck = (set, postParent, errors) => {
        refuseParent(postParent, errors);
        if (set.startUtc !== undefined) rule = checkRule(recurrence, set.startUtc, set.timezone as string, maxOccurrences, errors);
      };
      const template = await writes.prepareCreate(fields, caller, reservedId, check);
      const dates = occurrenceDates(rule as StoredRecurrence, localDate(template.startUtc, template.timezone));
      stored = await insertSeries({ ...template, recurrence: rule as StoredRecurrence, nextDate: dates[0] ?? null }, reservedId);
    }
    const { series } = await occurrences.materialise(stored);
    await writes.afterCreate([series]);
    return series;
  }

  return { create, insertSeries };
}

export type SeriesCreate = ReturnType<typeof createSeriesCreate>;
