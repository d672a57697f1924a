/**
 * A seed record as the body the services take: the slugs it names become ids (known since
 * validation or the write of the record named), its dates instants (run.ts says from which anchor),
 * and a stored record in the trash comes back unless the record names a status. Pure but for the
 * slug → id maps it reads.
 */
import { type EventCreate } from '../schemas/events.js';
import { type EventDoc, type TermDoc } from '../storage/port.js';
import { type EventDates } from './checks.js';
import { resolveSeedDate, toTimestamp } from './dates.js';
import { type SlugIds } from './memory.js';
import { SeedError } from './report.js';
import { type Resource, type SeedEvent, type SeedOrganizer, type SeedVenue } from './schemas.js';

/** What mapping reads of the run. */
export interface MappingContext {
  readonly siteTimezone: string;
  /** The run's clock. */
  readonly now: Date;
  /** A dry run's ids of records it would create are negative placeholders. */
  readonly dryRun: boolean;
  readonly ids: Record<Resource, SlugIds>;
}

/**
 * The API body of an event record: slugs become ids, dates become instants (see run.ts).
 * `placeholders`: on a dry run, the body links a record that would only be created.
 *
 * Written as one literal naming every field (undefined where the record has none, which the
 * services read as absent), not copied key by key from the record: bodies copied that way had a
 * hidden class per combination of optional fields, and every read of a body field by the events
 * service went through V8's megamorphic property cache. A test loads a record with every field of
 * the seed schema and checks each one arrives, so a field added to the schema is not dropped here.
 */
export function eventBody(
  context: MappingContext,
  record: SeedEvent,
  slug: string,
  current: EventDoc | null,
  resolved?: EventDates,
): { body: EventCreate; placeholders: boolean } {
  const { venue, organizer, categories, tags, post_parent: parent, start_date, end_date } = record;
  const { now } = context;
  const { timezone, published, anchor } = recordClock(context, record, current);
  // The validation pass read the dates in the same zone from the same clock: a new event without a
  // publication date (which would anchor relative dates) takes them as they are.
  const reuse = resolved !== undefined && current === null && published === null;
  const body: EventCreate = {
    title: record.title,
    description: record.description,
    excerpt: record.excerpt,
    slug,
    author: record.author,
    status: current?.status === 'trash' && record.status === undefined ? 'publish' : record.status,
    timezone: record.timezone,
    all_day: record.all_day,
    start_date: reuse ? resolved[0] : instant(start_date, timezone, anchor, slug),
    end_date: reuse ? resolved[1] : instant(end_date, timezone, anchor, slug),
    date_utc: published !== null ? toTimestamp(published) : current === null ? toTimestamp(now) : undefined,
    image: record.image,
    cost: record.cost,
    website: record.website,
    show_map: record.show_map,
    show_map_link: record.show_map_link,
    hide_from_listings: record.hide_from_listings,
    sticky: record.sticky,
    featured: record.featured,
    ticketed: record.ticketed,
    venue: venue === undefined ? undefined : venue === '' ? 0 : idOf(context, 'venues', venue, slug),
    organizer: organizer === undefined ? undefined : idsOf(context, 'organizers', organizer, slug),
    categories: categories === undefined ? undefined : idsOf(context, 'categories', categories, slug),
    tags: tags === undefined ? undefined : idsOf(context, 'tags', tags, slug),
    post_parent: parent === undefined ? undefined : parent === '' ? 0 : idOf(context, 'events', parent, slug),
  };
  // Negative ids are a dry run's placeholders for records it would create.
  const placeholders =
    context.dryRun &&
    ((typeof body.venue === 'number' && body.venue < 0) ||
      (typeof body.post_parent === 'number' && body.post_parent < 0) ||
      [body.organizer, body.categories, body.tags].some((ids) => Array.isArray(ids) && ids.some((id) => (id as number) < 0)));
  return { body, placeholders };
}

/**
 * The zone an event record's dates are read in, its publication date (null when it gives none), and
 * the anchor its relative dates count from (run.ts).
 */
export function recordClock(
  context: Pick<MappingContext, 'siteTimezone' | 'now'>,
  record: Pick<SeedEvent, 'timezone' | 'date' | 'date_utc'>,
  current: Pick<EventDoc, 'timezone' | 'dateUtc'> | null,
): { timezone: string; published: Date | null; anchor: Date } {
  const { siteTimezone, now } = context;
  const { date, date_utc } = record;
  const timezone = record.timezone !== undefined ? record.timezone.trim() || siteTimezone : (current?.timezone ?? siteTimezone);
  const published = date_utc !== undefined ? resolveSeedDate(date_utc, 'UTC', now) : date !== undefined ? resolveSeedDate(date, timezone, now) : null;
  return { timezone, published, anchor: published ?? current?.dateUtc ?? now };
}

// eventBody's helpers are module functions rather than closures made for every record.

function instant(raw: string | number, timezone: string, anchor: Date, slug: string): number {
  const resolved = resolveSeedDate(raw, timezone, anchor);
  if (resolved === null) throw new SeedError(`a date of "${slug}" could not be read again`);
  return toTimestamp(resolved);
}

/** The id of a record a file record names (known since validation or its write). */
function idOf(context: MappingContext, resource: Resource, s: string, slug: string): number {
  const found = context.ids[resource].get(s);
  if (typeof found !== 'number') throw new SeedError(`${resource} "${s}" named by "${slug}" cannot be found any more`);
  return found;
}

function idsOf(context: MappingContext, resource: Resource, slugs: readonly string[], slug: string): number[] {
  const ids = new Array<number>(slugs.length);
  for (let i = 0; i < slugs.length; i++) ids[i] = idOf(context, resource, slugs[i]!, slug);
  return ids;
}

/** The fields of a category or tag record the terms service takes (a tag has no parent). */
export interface TermFields {
  name: string;
  description: string | undefined;
  /** Undefined: the record names no parent (an update keeps the stored one). */
  parentId: number | undefined;
}

/** A category record's fields: its parent slug becomes an id (`""`: a root category). */
export function categoryFields(context: MappingContext, record: { name: string; description?: string | undefined; parent?: string | undefined }): TermFields {
  const { name, description, parent } = record;
  // The parent is written before its children (or stored, as validation checked).
  const parentId = parent === undefined ? undefined : parent === '' ? 0 : (context.ids.categories.get(parent) as number);
  return { name, description, parentId };
}

/** What an update of a stored term changes: the fields whose value the record changes (empty: none). */
export function termPatch(current: TermDoc, { name, description, parentId }: TermFields): { name?: string; description?: string; parent?: number } {
  const patch: { name?: string; description?: string; parent?: number } = {};
  if (name.trim() !== current.name) patch.name = name;
  if (description !== undefined && description !== current.description) patch.description = description;
  if (parentId !== undefined && parentId !== current.parent) patch.parent = parentId;
  return patch;
}

/** The create body of a new term under the record's slug. */
export function termCreateBody(
  slug: string,
  { name, description, parentId }: TermFields,
): { name: string; slug: string; description?: string; parent?: number } {
  return {
    name,
    slug,
    ...(description !== undefined ? { description } : {}),
    ...(parentId !== undefined ? { parent: parentId } : {}),
  };
}

/**
 * The body of a venue or organizer record: its fields but the slug (the identity, not a field to
 * write); a stored record in the trash comes back unless the record names a status.
 */
export function linkedPostBody(record: SeedVenue | SeedOrganizer, current: { status: string } | undefined): SeedVenue & SeedOrganizer {
  const { slug: _slug, ...fields } = record;
  const body = fields as SeedVenue & SeedOrganizer;
  if (current?.status === 'trash' && body.status === undefined) body.status = 'publish';
  return body;
}
