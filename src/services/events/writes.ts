/**
 * Writing one event: create, update (truly partial), trash, and the change an update would make.
 * Every write validates the whole body and every reference before anything is written. These
 * return the stored document without its relations: the API adds them (index.ts), the import calls
 * these directly so a bulk load does not recount terms after every record.
 */
import { ConflictError, DuplicateKeyError, GoneError, NotFoundError } from '../../errors.js';
import { type EventCreate } from '../../schemas/events.js';
import { type Collection, type EventDoc, type Storage } from '../../storage/port.js';
import { type Caller } from '../access.js';
import { type TermsService } from '../terms.js';
import { eventVisibility, type TombstoneRecorder } from '../tombstones.js';
import { insertWithUniqueSlug as insertUnique } from '../unique-slug.js';
import { type EventInput } from './fields.js';
import { type EventLinkResolver } from './links.js';
import { createWritePreparation } from './prepare.js';

export { type WriteCheck } from './prepare.js';

/** The unique index of event slugs: a clash on it is a slug to make unique, or a conflict. */
export const SLUG_INDEX = 'events_slug_unique';

/**
 * Inserts under the doc's slug made unique (`firstAttempt` 2: the slug itself is known to be
 * taken); the stored document is the answer.
 */
export function insertWithUniqueSlug(events: Collection<EventDoc>, doc: EventDoc, firstAttempt = 1): Promise<EventDoc> {
  return insertUnique({
    base: doc.slug,
    id: doc._id,
    slugIndex: SLUG_INDEX,
    firstAttempt,
    insert: async (slug) => {
      const candidate = { ...doc, slug };
      await events.insertOne(candidate);
      return candidate;
    },
  });
}

export interface EventWritesDeps {
  storage: Pick<Storage, 'events' | 'nextId'>;
  siteTimezone: string;
  links: EventLinkResolver;
  /** Their counts include an event's terms: told after every write. */
  categories: Pick<TermsService, 'invalidate'>;
  tags: Pick<TermsService, 'invalidate'>;
  /** A write that takes an event out of a list leaves a tombstone (src/services/tombstones.ts). */
  tombstones: TombstoneRecorder;
  now: () => Date;
}

/** A write's error: a 409 when it lost a race for the slug between the check and the write. */
function slugConflictOf(err: unknown, slug: string | undefined): unknown {
  if (!(err instanceof DuplicateKeyError && err.index === SLUG_INDEX)) return err;
  return new ConflictError(
    'rest_slug_conflict',
    { key: 'errorMessage.rest_slug_conflict.event', values: { slug: String(slug) } },
    { params: { slug: 'slug is already in use.' } },
  );
}

export function createEventWrites({ storage, siteTimezone, links: linker, categories, tags, tombstones, now }: EventWritesDeps) {
  const { prepareCreate, prepareUpdate, changes } = createWritePreparation({ storage, siteTimezone, linker, now });

  /** Term counts include this event from now on. */
  function termsChanged(): void {
    categories.invalidate();
    tags.invalidate();
  }

  /**
   * After a create is stored (or found stored by an earlier attempt, which may have ended before
   * this): the records it uses are released and the term counts told.
   */
  async function afterCreate(stored: readonly EventDoc[]): Promise<void> {
    await linker.releaseHeld(stored);
    termsChanged();
  }

  /**
   * `reservedId` (an Idempotency-Key's create, src/services/idempotency.ts): the id to store the
   * event under, reserved before the first attempt. An event already stored under it was stored by
   * an earlier attempt of the same request, so it is the answer, not a reason to create another
   * (nested venues, organizers and terms an attempt created are found again by name).
   */
  async function createDoc(input: EventCreate, caller: Caller, reservedId?: number): Promise<EventDoc> {
    let stored = reservedId === undefined ? null : await storage.events.findById(reservedId);
    try {
      stored ??= await insertWithUniqueSlug(storage.events, await prepareCreate(input, caller, reservedId));
    } catch (err) {
      // The earlier attempt's insert landed after the look-up above.
      stored = reservedId !== undefined && err instanceof DuplicateKeyError && err.index === '_id_' ? await storage.events.findById(reservedId) : null;
      if (stored === null) throw err;
    }
    // Also after an earlier attempt's insert: that attempt may have ended before telling the terms
    // or releasing the records it uses.
    await afterCreate([stored]);
    return stored;
  }

  async function updateDoc(current: EventDoc, input: EventInput, caller: Caller): Promise<EventDoc> {
    return applyUpdate(current, await prepareUpdate(current, input, caller));
  }

  /** Writes prepared fields (prepareUpdate) to `current`: the tombstone, the holds and the term counts follow. */
  async function applyUpdate(current: EventDoc, set: Partial<EventDoc>, unset: Array<keyof EventDoc> = []): Promise<EventDoc> {
    let updated: EventDoc | null;
    try {
      updated = await storage.events.updateById(current._id, unset.length === 0 ? { $set: set } : { $set: set, $unset: unset });
    } catch (err) {
      throw slugConflictOf(err, set.slug);
    }
    if (!updated) throw new NotFoundError('event', current._id);
    const at = now();
    await tombstones.recordChange('event', updated._id, eventVisibility(current, at), eventVisibility(updated, at));
    // Held records are released when an event using them is published: only a write that sets the
    // status or the links can make that so (a link written to a published event released its
    // records then), so other updates skip the look-up.
    if (set.status !== undefined || set.venueId !== undefined || set.organizerIds !== undefined) await linker.releaseHeld([updated]);
    termsChanged();
    return updated;
  }

  async function trashDoc(current: EventDoc): Promise<EventDoc> {
    if (current.status === 'trash') {
      await tombstones.ensureGone('event', current._id, current.modifiedUtc);
      throw new GoneError('event');
    }
    const at = now();
    const updated = await storage.events.updateById(current._id, { $set: { status: 'trash', modifiedUtc: at } });
    if (!updated) throw new NotFoundError('event', current._id);
    await tombstones.recordChange('event', updated._id, eventVisibility(current, at), 'none');
    termsChanged();
    return updated;
  }

  return { createDoc, prepareCreate, afterCreate, prepareUpdate, applyUpdate, updateDoc, trashDoc, changes, termsChanged };
}

export type EventWrites = ReturnType<typeof createEventWrites>;
