/**
 * The checks of one seed record that need nothing but the record, the site's time zone and the
 * run's clock: schema, slug, dates, costs, URLs. What storage or other records decide (duplicate
 * slugs, references) is the validation pass's (validation.ts), a batch at a time.
 */
import { parseCost } from '../lib/cost.js';
import { allDayBounds, isValidTimezone } from '../lib/dates/index.js';
import { slugFrom } from '../lib/slug.js';
import { ParamErrors, resolveImage, resolveWebsite, toBool } from '../services/input.js';
import { isRelativeDate, resolveSeedDate, toTimestamp } from './dates.js';
import { type FieldError, isSeedSlug, type Resource, type SeedEvent, seedValidator } from './schemas.js';

/** Start and end instants, Unix seconds. */
export type EventDates = readonly [start: number, end: number];

/** What the record-level checks make of a valid event record. */
export interface CheckedEvent {
  record: SeedEvent;
  slug: string;
  /** Its start and end as resolved here (counted from the run's clock). */
  dates: EventDates | undefined;
}

export interface RecordCheckContext {
  siteTimezone: string;
  /** The run's clock. */
  now: Date;
}

/** Slug of a record: its own (the schema holds it to the stored form), else the one its name makes. */
export function recordIdentity(record: { slug?: string }, name: string | undefined, errors: FieldError[]): string {
  if (record.slug !== undefined) return record.slug;
  const derived = slugFrom(name ?? '', '');
  if (derived === '') errors.push({ field: 'slug', message: 'The record needs a slug: its name gives none.' });
  return derived;
}

/** The field whose text a record's slug is made from when it has none. */
const NAME_FIELDS: Record<Resource, string> = { categories: 'name', tags: 'name', venues: 'venue', organizers: 'organizer', events: 'title' };

/**
 * The slug naming a record its schema refused, in reports: its own when it is one in the stored
 * form, else (when it has none) the one its name makes, as it would be stored. Undefined when
 * neither is there: the record's position alone names it then.
 */
export function slugToReport(resource: Resource, record: unknown): string | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const { slug, [NAME_FIELDS[resource]]: name } = record as Record<string, unknown>;
  if (slug !== undefined) return isSeedSlug(slug) ? slug : undefined;
  const derived = typeof name === 'string' ? slugFrom(name, '') : '';
  return derived === '' ? undefined : derived;
}

/** Publication dates must be absolute: relative ones would mean another instant on every run. */
export function publicationDateErrors(record: { date?: string | number; date_utc?: string | number }, timezone: string, now: Date, errors: FieldError[]): void {
  for (const [field, zone] of [
    ['date', timezone],
    ['date_utc', 'UTC'],
  ] as const) {
    const raw = record[field];
    if (raw === undefined) continue;
    if (resolveSeedDate(raw, zone, now) === null) errors.push({ field, message: `${field} is not a valid date.` });
    else if (isRelativeDate(raw, zone)) errors.push({ field, message: `${field} must be an absolute date in seed files (relative dates count from it).` });
  }
}

/**
 * Schema, slug and value checks of one event record (references are checked by the validation pass, a
 * batch at a time). Pushes what is wrong onto `errors`; null when the schema already refuses the record.
 */
export function checkSeedEvent(raw: unknown, context: RecordCheckContext, errors: FieldError[]): CheckedEvent | null {
  errors.push(...seedValidator('events')(raw));
  if (errors.length > 0) return null;
  const record = raw as SeedEvent;
  const slug = recordIdentity(record, record.title, errors);
  if (record.title.trim() === '') errors.push({ field: 'title', message: 'title must not be empty.' });
  let timezone = context.siteTimezone;
  let dates: EventDates | undefined;
  if (record.timezone !== undefined && record.timezone.trim() !== '') {
    timezone = record.timezone.trim();
    if (!isValidTimezone(timezone)) errors.push({ field: 'timezone', message: 'timezone must be an IANA time zone (e.g. Europe/Berlin), UTC or UTC±N.' });
  }
  if (errors.length === 0) {
    const start = resolveSeedDate(record.start_date, timezone, context.now);
    const end = resolveSeedDate(record.end_date, timezone, context.now);
    if (start === null) errors.push({ field: 'start_date', message: 'start_date is not a valid date.' });
    if (end === null) errors.push({ field: 'end_date', message: 'end_date is not a valid date.' });
    if (start && end) {
      const bounds = record.all_day !== undefined && toBool(record.all_day) ? allDayBounds(start, end, timezone) : { start, end };
      if (bounds.end.getTime() < bounds.start.getTime()) errors.push({ field: 'end_date', message: 'end_date must not be before start_date.' });
      dates = [toTimestamp(start), toTimestamp(end)];
    }
    publicationDateErrors(record, timezone, context.now, errors);
  }
  const params = new ParamErrors();
  if (record.cost !== undefined && parseCost(record.cost) === null) params.add('cost', 'cost must be a string, a number or a list of them.');
  if (record.website !== undefined) resolveWebsite(record.website, params);
  if (record.image !== undefined) resolveImage(record.image, params);
  for (const [field, message] of Object.entries(params.params)) errors.push({ field, message });
  if (record.post_parent !== undefined && record.post_parent === slug)
    errors.push({ field: 'post_parent', message: 'post_parent must not be the event itself.' });
  return { record, slug, dates };
}
