/**
 * Event records with `recurrence`: each is a series (docs/recurrence.md), written through the
 * series service like `POST /events` with `recurrence`, its identity the series' slug. The service
 * writes the occurrences; they are never records of the files (pruning passes them by, prune.ts).
 *
 * - Exdates and rdates may be relative dates like `start_date`, counted from the same anchor (the
 *   publication date, else the first load) in the record's zone; each names the local date it
 *   falls on, so loading the file again means the same dates.
 * - A stored series is compared with its record: template fields as an event update would resolve
 *   them, and the rule as src/lib/recurrence/ normalises it. Nothing changed: nothing is written.
 *   A change updates the series as an update of scope `all` would (exceptions keep their changes).
 */
import { allDayBounds, formatWallClock } from '../lib/dates/index.js';
import { parseRecurrence, RecurrenceError, type RecurrenceInput } from '../lib/recurrence/index.js';
import { type EventCreate } from '../schemas/events.js';
import { ParamErrors, toBool } from '../services/input.js';
import { checkRule, refuseParent } from '../services/recurrence/create.js';
import { type EventDoc, type SeriesDoc, type StoredRecurrence } from '../storage/port.js';
import { type EventDates } from './checks.js';
import { resolveSeedDate } from './dates.js';
import { eventBody, type MappingContext, recordClock } from './mapping.js';
import { forEachLimit } from './memory.js';
import { type FieldError, type SeedEvent, type SeedRecurrence } from './schemas.js';
import { type RecordPosition } from './sources.js';
import { CALLER, type PreparedEvent, type RunState, type WriteResult } from './state.js';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The local date (`YYYY-MM-DD`) an exdate or rdate of a record names: a date as it is, anything
 * else read like `start_date` in the series' zone from `anchor`. Null when it cannot be read.
 */
export function seedLocalDate(raw: string, timezone: string, anchor: Date): string | null {
  if (ISO_DATE.test(raw)) return raw;
  const instant = resolveSeedDate(raw, timezone, anchor);
  return instant === null ? null : formatWallClock(instant, timezone).slice(0, 10);
}

/** A record's recurrence as the API takes it (its dates local dates); a date it cannot read is pushed onto `errors`. */
export function recurrenceInput(recurrence: SeedRecurrence, timezone: string, anchor: Date, errors: FieldError[]): RecurrenceInput {
  const dates = (list: readonly string[] | undefined, name: 'exdates' | 'rdates'): string[] =>
    (list ?? []).flatMap((raw) => {
      const date = seedLocalDate(raw, timezone, anchor);
      if (date === null) errors.push({ field: 'recurrence', message: `recurrence: the ${name} item ${JSON.stringify(raw)} is not a date.` });
      return date ?? [];
    });
  return { rrule: recurrence.rrule, exdates: dates(recurrence.exdates, 'exdates'), rdates: dates(recurrence.rdates, 'rdates') };
}

/**
 * The checks of series records the validation pass makes, a batch at a time: no `post_parent`,
 * readable exdates and rdates, and a rule the series service accepts (its own check and wording,
 * under `recurrence`) for the start the write will resolve — relative dates counted from the
 * stored series' publication date when the slug is stored. Reports each invalid record; returns them.
 */
export async function checkSeriesRecords<T extends { position: RecordPosition; record: SeedEvent; slug: string }>(
  run: RunState,
  records: readonly T[],
): Promise<Set<T>> {
  const invalid = new Set<T>();
  if (records.length === 0) return invalid;
  const stored = await run.storedBySlug(
    'series',
    records.map((r) => r.slug),
  );
  for (const item of records) {
    const record = item.record as SeedEvent & { recurrence: SeedRecurrence };
    const errors: FieldError[] = [];
    const params = new ParamErrors();
    refuseParent(record.post_parent === undefined || record.post_parent === '' ? undefined : 0, params);
    const { timezone, anchor } = recordClock(run, record, stored.get(item.slug) ?? null);
    const input = recurrenceInput(record.recurrence, timezone, anchor, errors);
    const start = resolveSeedDate(record.start_date, timezone, anchor);
    const end = resolveSeedDate(record.end_date, timezone, anchor);
    // Dates were checked with the record (checks.ts): a start read from another anchor reads too.
    if (errors.length === 0 && start !== null && end !== null) {
      const bounds = record.all_day !== undefined && toBool(record.all_day) ? allDayBounds(start, end, timezone) : { start, end };
      checkRule(input, bounds.start, timezone, run.recurrenceMaxOccurrences, params);
    }
    for (const [field, message] of Object.entries(params.params)) errors.push({ field, message });
    if (errors.length === 0) continue;
    run.invalid('events', item.position, errors, item.slug);
    invalid.add(item);
  }
  return invalid;
}

/** The series' records of a batch: looked up by slug, then each created, compared or updated. */
export async function writeSeriesRecords(run: RunState, records: readonly PreparedEvent[]): Promise<void> {
  if (records.length === 0) return;
  const stored = new Map<string, SeriesDoc>();
  for (const doc of await run.storage.series.find({ filter: { slug: { $in: records.map((p) => p.slug) } } })) stored.set(doc.slug, doc);
  await forEachLimit(records, run.concurrency, (prepared) =>
    run.attempt('events', prepared.position, prepared.slug, () => upsertSeries(run, prepared, stored.get(prepared.slug) ?? null)),
  );
}

/** The create or update body of a series record: the event body and the rule, its dates resolved. */
function seriesBody(
  context: MappingContext,
  record: SeedEvent & { recurrence: SeedRecurrence },
  slug: string,
  current: SeriesDoc | null,
  dates: EventDates | undefined,
): { body: EventCreate; recurrence: RecurrenceInput; placeholders: boolean } {
  const template = current as EventDoc | null;
  const { body, placeholders } = eventBody(context, record, slug, template, dates);
  const { timezone, anchor } = recordClock(context, record, template);
  const errors: FieldError[] = [];
  const recurrence = recurrenceInput(record.recurrence, timezone, anchor, errors);
  // Validation read the same dates from the same anchor.
  if (errors.length > 0) throw new Error(errors[0]!.message);
  return { body, recurrence, placeholders };
}

/** Whether a stored rule is the record's, once the record's is normalised for the series' start. */
function sameRule(stored: StoredRecurrence, input: RecurrenceInput, startDate: string, maxOccurrences: number): boolean {
  let rule: StoredRecurrence;
  try {
    rule = parseRecurrence(input, startDate, { maxOccurrences });
  } catch (error) {
    // Valid for the record's start (validation); refused for the stored one's: a change for sure.
    if (error instanceof RecurrenceError) return false;
    throw error;
  }
  const same = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((item, i) => item === b[i]);
  return rule.rrule === stored.rrule && same(rule.exdates, stored.exdates) && same(rule.rdates, stored.rdates);
}

async function upsertSeries(run: RunState, { record, slug, dates }: PreparedEvent, current: SeriesDoc | null): Promise<WriteResult> {
  const seriesRecord = record as SeedEvent & { recurrence: SeedRecurrence };
  const { body, recurrence, placeholders } = seriesBody(run, seriesRecord, slug, current, dates);
  if (current === null) {
    if (!run.dryRun) await run.events.createSeries({ ...body, recurrence }, CALLER);
    return 'created';
  }
  // A dry run cannot compare links to records it would only create: those change for sure.
  if (placeholders) return 'updated';
  const template = current as unknown as EventDoc;
  const changed = await run.events.changes(template, body, CALLER);
  const startDate = formatWallClock(changed.startUtc ?? current.startUtc, changed.timezone ?? current.timezone).slice(0, 10);
  if (Object.keys(changed).length === 0 && sameRule(current.recurrence, recurrence, startDate, run.recurrenceMaxOccurrences)) return 'unchanged';
  // As an update of scope `all` would: exceptions keep their own changes, surviving dates their ids.
  if (!run.dryRun) await run.events.updateSeries(current._id, { ...body, recurrence }, CALLER);
  return 'updated';
}
