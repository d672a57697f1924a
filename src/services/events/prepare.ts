/**
 * Preparing one event's write: the body resolved into stored fields, every value and reference
 * checked (one 400 naming every problem), nested records created once all is valid. Nothing of the
 * event itself is written here (writes.ts does that); a series' template and its scoped changes are
 * prepared the same way (src/services/recurrence/).
 */
import { slugFrom } from '../../lib/slug.js';
import { ConflictError } from '../../errors.js';
import { type EventCreate } from '../../schemas/events.js';
import { type EventDoc, type Storage } from '../../storage/port.js';
import { type Caller } from '../access.js';
import { changedFields } from '../changes.js';
import { holdOf } from '../holds.js';
import { ParamErrors } from '../input.js';
import { completeResolved, type EventInput, newEventDoc, resolveFields } from './fields.js';
import { type EventLinkResolver, linkExisting } from './links.js';

/**
 * A further check of a write, given its resolved fields and parent (undefined: left alone); a
 * problem goes to `errors`, in the one 400 with every other.
 */
export type WriteCheck = (set: Partial<EventDoc>, postParent: number | null | undefined, errors: ParamErrors) => void;

export interface WritePreparationDeps {
  storage: Pick<Storage, 'events' | 'nextId'>;
  siteTimezone: string;
  linker: Pick<EventLinkResolver, 'resolveLinks' | 'commitLinks'>;
  now: () => Date;
}

/** 409 rest_slug_conflict when another event owns `slug`. */
async function assertSlugFree(storage: Pick<Storage, 'events'>, slug: string, id: number): Promise<void> {
  const owner = await storage.events.findOne({ slug });
  if (owner && owner._id !== id) {
    throw new ConflictError(
      'rest_slug_conflict',
      { key: 'errorMessage.rest_slug_conflict.eventId', values: { slug, id: owner._id } },
      { params: { slug: 'slug is already in use.' } },
    );
  }
}

export function createWritePreparation({ storage, siteTimezone, linker, now }: WritePreparationDeps) {
  /**
   * Turns the body into stored fields, checking every value and reference (and `check`, with the
   * values resolved); throws one 400 naming all.
   */
  async function resolve(input: EventInput, current: EventDoc | null, caller: Caller, check?: WriteCheck) {
    const errors = new ParamErrors();
    const at = now();
    const set = resolveFields(input, current, errors, at, siteTimezone);
    const { links, postParent } = await linker.resolveLinks(input, current, errors);
    check?.(set, postParent, errors);
    completeResolved(input, current, caller, set, postParent, errors, at);
    return { set, links };
  }

  /**
   * A new event's document, every value and reference checked and nested records created; not
   * stored yet. A series' template is prepared this way too (src/services/recurrence/).
   */
  async function prepareCreate(input: EventCreate, caller: Caller, reservedId?: number, check?: WriteCheck): Promise<EventDoc> {
    const { set, links } = await resolve(input, null, caller, check);
    await linker.commitLinks(set, links, caller, holdOf({ status: set.status ?? 'publish', dateUtc: set.dateUtc ?? now() }));
    return newEventDoc(reservedId ?? (await storage.nextId('posts')), input, set, now(), siteTimezone);
  }

  /**
   * The stored fields an update of `current` with `input` sets, every value and reference checked
   * (and `check`) and nested records created; nothing of the event is written yet.
   */
  async function prepareUpdate(current: EventDoc, input: EventInput, caller: Caller, check?: WriteCheck): Promise<Partial<EventDoc>> {
    const { set, links } = await resolve(input, current, caller, check);
    if (input.slug !== undefined) {
      const slug = slugFrom(input.slug, current.slug);
      if (slug !== current.slug) await assertSlugFree(storage, slug, current._id);
      if (slug !== current.slug) set.slug = slug;
    }
    await linker.commitLinks(set, links, caller, holdOf({ ...current, ...set }));
    return set;
  }

  /**
   * The stored fields an update of `current` with `input` would change, resolved exactly as
   * `updateDoc` resolves them (empty: nothing would change). Writes nothing. Linked records must be
   * named by id (a nested venue, organizer or new term name cannot be compared).
   */
  async function changes(current: EventDoc, input: EventInput, caller: Caller): Promise<Partial<EventDoc>> {
    const { set, links } = await resolve(input, current, caller);
    if (input.slug !== undefined) set.slug = slugFrom(input.slug, current.slug);
    if (!linkExisting(set, links)) throw new Error('changes() needs linked records named by id');
    return changedFields(current, set, ['modifiedUtc']);
  }

  return { resolve, prepareCreate, prepareUpdate, changes };
}
