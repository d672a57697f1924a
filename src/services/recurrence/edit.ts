/**
 * Changing a series through one of its occurrences (PUT/PATCH with `scope`, docs/recurrence.md):
 * `this` makes the occurrence an exception; `all` changes the template and every non-exception
 * occurrence (a new rule keeps the ids of the occurrences whose dates survive); `following` splits
 * the series at the occurrence: the series ends the day before, a new one starts with the change and
 * takes the occurrences from there on (their ids kept). With nothing before the occurrence,
 * `following` is `all`. The body is resolved as an event update resolves it, the rule checked in
 * the same 400.
 */
import { ConflictError, DuplicateKeyError, NotFoundError } from '../../errors.js';
import { RecurrenceError, ruleFrom, ruleUntilBefore } from '../../lib/recurrence/index.js';
import { slugFrom } from '../../lib/slug.js';
import { type EventDoc, type SeriesDoc, type Storage, type StoredRecurrence } from '../../storage/port.js';
import { type Caller } from '../access.js';
import { type EventInput } from '../events/fields.js';
import { type EventWrites, type WriteCheck } from '../events/writes.js';
import { type ParamErrors, toId } from '../input.js';
import { changedTiming, changeOf, type SeriesChange, shiftedRule } from './change.js';
import { checkRuleFrom, refuseParent, SERIES_SLUG_INDEX, type SeriesCreate } from './create.js';
import { moveOccurrences } from './move.js';
import { type OccurrenceWrites, seriesDates } from './occurrences.js';
import { addDays, localDate, occurrenceBounds, seriesClock } from './schedule.js';

export type Scope = 'this' | 'following' | 'all';

export interface SeriesEditsDeps {
  storage: Pick<Storage, 'events' | 'series' | 'nextId'>;
  writes: Pick<EventWrites, 'prepareUpdate' | 'applyUpdate' | 'trashDoc'>;
  occurrences: Pick<OccurrenceWrites, 'materialise'>;
  series: Pick<SeriesCreate, 'insertSeries'>;
  maxOccurrences: number;
  now: () => Date;
}

/** A body sent back with the occurrence's own parent (the series) names no new parent. */
function withoutOwnParent(input: EventInput, occurrence: EventDoc): EventInput {
  if (input.post_parent === undefined || toId(input.post_parent) !== occurrence.postParent) return input;
  const { post_parent: _parent, ...rest } = input;
  return rest;
}

/** A prepared series change: the fields resolved, the change, the new rule and slug. */
interface Prepared {
  change: SeriesChange;
  rule: StoredRecurrence;
  slug: string | undefined;
}

/** The rule the changed series (all) or the new one (following) starts from, before a day shift. */
function baseRule(series: SeriesDoc, date: string | null, errors: ParamErrors): { rule: StoredRecurrence; startDate: string } | undefined {
  const { startDate } = seriesClock(series);
  if (date === null) return { rule: series.recurrence, startDate };
  try {
    return { rule: ruleFrom(series.recurrence, startDate, date), startDate: date };
  } catch (error) {
    if (!(error instanceof RecurrenceError)) throw error;
    errors.add('scope', error.message);
    return undefined;
  }
}

export function createSeriesEdits({ storage, writes, occurrences, series: creates, maxOccurrences, now }: SeriesEditsDeps) {
  async function editThis(occurrence: EventDoc, input: EventInput, caller: Caller): Promise<EventDoc> {
    const check: WriteCheck = (_set, postParent, errors) => {
      refuseParent(postParent, errors);
      if (input.recurrence !== undefined) errors.add('recurrence', 'recurrence changes the series: it needs scope=all or scope=following.');
    };
    const set = await writes.prepareUpdate(occurrence, input, caller, check);
    return writes.applyUpdate(occurrence, { ...set, isException: true });
  }

  /** Resolves the body against the occurrence; `from`: the split date (following), null for all. */
  async function prepare(series: SeriesDoc, occurrence: EventDoc, input: EventInput, caller: Caller, from: string | null): Promise<Prepared> {
    const { slug, recurrence, ...fields } = input;
    let change: SeriesChange | undefined;
    let rule: StoredRecurrence | undefined;
    const check: WriteCheck = (set, postParent, errors) => {
      refuseParent(postParent, errors);
      change = changeOf(series, occurrence, fields, set);
      const timing = changedTiming(series, change);
      const base = baseRule(series, from, errors);
      const startDate = from === null ? localDate(timing.startUtc, timing.timezone) : addDays(from, change.days);
      if (recurrence !== undefined) rule = checkRuleFrom(recurrence, startDate, maxOccurrences, errors);
      else if (base !== undefined) rule = shiftedRule(base.rule, base.startDate, change.days, errors);
    };
    const set = await writes.prepareUpdate(occurrence, fields, caller, check);
    // Again from the final fields: the derived ones (search terms, a schedule) are added after the check.
    return { change: changeOf(series, occurrence, fields, set), rule: rule as StoredRecurrence, slug };
  }

  /** The series' stored fields replaced by `target`'s; a slug another series holds is a 409. */
  async function storeSeries(target: SeriesDoc): Promise<void> {
    const { _id, ...fields } = target;
    try {
      await storage.series.updateById(_id, { $set: fields });
    } catch (error) {
      if (!(error instanceof DuplicateKeyError && error.index === SERIES_SLUG_INDEX)) throw error;
      throw new ConflictError(
        'rest_slug_conflict',
        { key: 'errorMessage.rest_slug_conflict.event', values: { slug: target.slug } },
        { params: { slug: 'slug is already in use.' } },
      );
    }
  }

  async function editAll(series: SeriesDoc, occurrence: EventDoc, input: EventInput, caller: Caller): Promise<void> {
    const { change, rule, slug } = await prepare(series, occurrence, input, caller, null);
    const at = now();
    const target: SeriesDoc = { ...series, ...change.common, ...changedTiming(series, change), recurrence: rule, modifiedUtc: at };
    target.nextDate = seriesDates(target)[0] ?? null;
    if (slug !== undefined) target.slug = slugFrom(slug, series.slug);
    await storeSeries(target);
    const all = await storage.events.find({ filter: { postParent: series._id, status: { $ne: 'trash' } } });
    await moveOccurrences(writes, all, target, change, at);
    await occurrences.materialise(target);
  }

  async function editFollowing(series: SeriesDoc, occurrence: EventDoc, input: EventInput, caller: Caller): Promise<void> {
    const from = occurrence.occurrenceDate as string;
    const before = ruleUntilBefore(series.recurrence, seriesClock(series).startDate, from);
    if (before === null) return editAll(series, occurrence, input, caller);
    const { change, rule, slug } = await prepare(series, occurrence, input, caller, from);
    const at = now();
    const changed = { ...series, ...change.common, ...changedTiming(series, change) };
    const start = occurrenceBounds(changed, addDays(from, change.days));
    const draft: SeriesDoc = { ...changed, ...start, _id: await storage.nextId('posts'), recurrence: rule, modifiedUtc: at, nextDate: null };
    draft.slug = slug === undefined ? series.slug : slugFrom(slug, series.slug);
    draft.nextDate = seriesDates(draft)[0] ?? null;
    const target = await creates.insertSeries(draft, undefined);
    const nextDate = series.nextDate !== null && series.nextDate < from ? series.nextDate : null;
    await storage.series.updateById(series._id, { $set: { recurrence: before, nextDate, modifiedUtc: at } });
    const following = await storage.events.find({ filter: { postParent: series._id, status: { $ne: 'trash' }, occurrenceDate: { $gte: from } } });
    await moveOccurrences(writes, following, target, change, at);
    await occurrences.materialise(target);
  }

  /** Updates the occurrence `occurrence` of `series` with the scope's meaning; returns it as stored. */
  async function editOccurrence(series: SeriesDoc, occurrence: EventDoc, input: EventInput, caller: Caller, scope: Scope): Promise<EventDoc> {
    const body = withoutOwnParent(input, occurrence);
    if (scope === 'this') return editThis(occurrence, body, caller);
    if (scope === 'all') await editAll(series, occurrence, body, caller);
    else await editFollowing(series, occurrence, body, caller);
    const stored = await storage.events.findById(occurrence._id);
    if (stored === null) throw new NotFoundError('event', occurrence._id);
    return stored;
  }

  /**
   * A change to the whole series stated as the series itself (a seed record): its dates are the
   * first occurrence's, so it is scope `all` through the series' first date.
   */
  async function editSeries(series: SeriesDoc, input: EventInput, caller: Caller): Promise<void> {
    const first = { ...series, occurrenceDate: seriesClock(series).startDate } as EventDoc;
    await editAll(series, first, input, caller);
  }

  return { editOccurrence, editSeries };
}
