/**
 * Creating many events at once (the import's bulk path): each record checked as a single create
 * checks it, the references named by id read once for the whole batch, the valid records stored
 * with one insertMany.
 */
import { type ApiError, isClientError } from '../../errors.js';
import { type EventCreate } from '../../schemas/events.js';
import { type EventDoc, type Storage } from '../../storage/port.js';
import { type Caller } from '../access.js';
import { holdOf } from '../holds.js';
import { ParamErrors, termItems, toId } from '../input.js';
import { completeResolved, newEventDoc, resolveFields } from './fields.js';
import { type EventLinkResolver, isEmptyLink, isNoParent, organizerItems, unlinksVenue, venueItem } from './links.js';
import { type EventWrites, insertWithUniqueSlug, SLUG_INDEX } from './writes.js';

/** Ids of linked records known to exist, read for a batch of creates. */
type KnownIds = Record<'venues' | 'organizers' | 'categories' | 'tags' | 'events', Set<number>>;

export interface EventBulkDeps {
  storage: Pick<Storage, 'events' | 'venues' | 'organizers' | 'categories' | 'tags' | 'nextId'>;
  siteTimezone: string;
  links: EventLinkResolver;
  /** Term counts include the new events: told once for the batch. */
  writes: Pick<EventWrites, 'termsChanged'>;
  now: () => Date;
}

/**
 * The distinct ids `items` name, in order, when every item (but those `skip` passes over) is an id
 * of `known`; null otherwise. Sized to fit: `[]` grown by push holds room for 17 (a bulk load
 * makes three such lists a record).
 */
function knownDistinctIds(items: readonly unknown[], known: ReadonlySet<number>, skip?: (item: unknown) => boolean): number[] | null {
  const ids = new Array<number>(items.length);
  let count = 0;
  next: for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (skip?.(item)) continue;
    const id = toId(item);
    if (id === null || !known.has(id)) return null;
    for (let j = 0; j < count; j++) if (ids[j] === id) continue next;
    ids[count++] = id;
  }
  ids.length = count;
  return ids;
}

/**
 * Links a create whose references all name ids of `known` (records read for the whole batch):
 * sets what resolveLinks and commitLinks would set, without a storage call or a promise each (a
 * bulk load links a thousand events a batch). Sets nothing and returns undefined when any
 * reference needs storage (a slug, a name, a nested record, an id not in `known`): resolveLinks
 * decides those, errors included.
 */
function linkKnown(input: EventCreate, known: KnownIds, set: Partial<EventDoc>): { postParent: number | null | undefined } | undefined {
  let venueId: number | null | undefined;
  if (input.venue !== undefined) {
    if (unlinksVenue(input.venue)) venueId = null;
    else {
      const id = toId(venueItem(input.venue));
      if (id === null || !known.venues.has(id)) return undefined;
      venueId = id;
    }
  }
  const organizerIds = input.organizer === undefined ? undefined : knownDistinctIds(organizerItems(input.organizer), known.organizers, isEmptyLink);
  const categoryIds = input.categories === undefined ? undefined : knownDistinctIds(termItems(input.categories, 'categories'), known.categories);
  const tagIds = input.tags === undefined ? undefined : knownDistinctIds(termItems(input.tags, 'tags'), known.tags);
  if (organizerIds === null || categoryIds === null || tagIds === null) return undefined;
  let postParent: number | null | undefined;
  if (input.post_parent !== undefined) {
    if (isNoParent(input.post_parent)) postParent = null;
    else {
      const id = toId(input.post_parent);
      if (id === null || !known.events.has(id)) return undefined;
      postParent = id;
    }
  }
  if (venueId !== undefined) set.venueId = venueId;
  if (organizerIds !== undefined) set.organizerIds = organizerIds;
  if (categoryIds !== undefined) set.categoryIds = categoryIds;
  if (tagIds !== undefined) set.tagIds = tagIds;
  return { postParent };
}

export function createEventBulk({ storage, siteTimezone, links: linker, writes, now }: EventBulkDeps) {
  /** Ids of the records a batch of creates names by id that exist: one query per collection. */
  async function knownIdsOf(inputs: readonly EventCreate[]): Promise<KnownIds> {
    const named: Record<keyof KnownIds, Set<number>> = { venues: new Set(), organizers: new Set(), categories: new Set(), tags: new Set(), events: new Set() };
    const note = (collection: keyof KnownIds, item: unknown) => {
      const id = toId(item);
      if (id !== null) named[collection].add(id);
    };
    const noteAll = (collection: keyof KnownIds, items: readonly unknown[]) => {
      for (let i = 0; i < items.length; i++) note(collection, items[i]);
    };
    for (const input of inputs) {
      if (input.venue !== undefined) note('venues', venueItem(input.venue));
      if (input.organizer !== undefined) noteAll('organizers', organizerItems(input.organizer));
      if (input.categories !== undefined) noteAll('categories', termItems(input.categories, 'categories'));
      if (input.tags !== undefined) noteAll('tags', termItems(input.tags, 'tags'));
      if (input.post_parent !== undefined) note('events', input.post_parent);
    }
    const existing = async (collection: keyof KnownIds): Promise<Set<number>> => {
      const ids = [...named[collection]];
      if (ids.length === 0) return new Set();
      const docs: Array<{ _id: number }> = await storage[collection].find({ filter: { _id: { $in: ids } } });
      return new Set(docs.map((doc) => doc._id));
    };
    const [venueIds, organizerIds, categoryIds, tagIds, eventIds] = await Promise.all(
      (['venues', 'organizers', 'categories', 'tags', 'events'] as const).map(existing),
    );
    return { venues: venueIds!, organizers: organizerIds!, categories: categoryIds!, tags: tagIds!, events: eventIds! };
  }

  /**
   * Creates many events: each is checked as `createDoc` checks it, then the valid ones are stored
   * with one insertMany. A refused record (4xx) gets its error in its place. A slug already taken —
   * by a stored event or an earlier one of the list — is retried alone with the next free suffix,
   * as `createDoc` would have given it.
   */
  async function createDocs(inputs: readonly EventCreate[], caller: Caller): Promise<Array<EventDoc | ApiError>> {
    const results = new Array<EventDoc | ApiError>(inputs.length);
    // The linked records named by id are read once for the batch, and the ids reserved in one call:
    // a record whose references are all known is checked without a storage round trip.
    const known = await knownIdsOf(inputs);
    const prepared: Array<Partial<EventDoc>> = [];
    const positions: number[] = [];
    for (let position = 0; position < inputs.length; position++) {
      const input = inputs[position]!;
      try {
        const errors = new ParamErrors();
        const at = now();
        const set = resolveFields(input, null, errors, at, siteTimezone);
        const linked = linkKnown(input, known, set);
        if (linked !== undefined) completeResolved(input, null, caller, set, linked.postParent, errors, at);
        else {
          const { links, postParent } = await linker.resolveLinks(input, null, errors);
          completeResolved(input, null, caller, set, postParent, errors, at);
          await linker.commitLinks(set, links, caller, holdOf({ status: set.status ?? 'publish', dateUtc: set.dateUtc ?? at }));
        }
        prepared.push(set);
        positions.push(position);
      } catch (error) {
        if (!isClientError(error)) throw error;
        results[position] = error;
      }
    }
    const firstId = prepared.length === 0 ? 0 : await storage.nextId('posts', prepared.length);
    const docs = prepared.map((set, k) => newEventDoc(firstId + k, inputs[positions[k]!]!, set, now(), siteTimezone));
    const failed = new Map((await storage.events.insertMany(docs)).map((failure) => [failure.index, failure.error]));
    for (let k = 0; k < docs.length; k++) {
      const doc = docs[k]!;
      const error = failed.get(k);
      if (error !== undefined && error.index !== SLUG_INDEX) throw error;
      results[positions[k]!] = error === undefined ? doc : await insertWithUniqueSlug(storage.events, doc, 2);
    }
    await linker.releaseHeld(docs);
    if (docs.length > 0) writes.termsChanged();
    return results;
  }

  return { createDocs };
}
