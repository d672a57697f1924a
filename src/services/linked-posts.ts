/**
 * Venues and organizers ("linked posts" in the reference) share their whole life cycle: validation,
 * de-duplication on create, slugs, visibility, trash, lists. Each resource supplies a definition of
 * what differs (src/services/venues.ts, src/services/organizers.ts).
 */
import { createHash } from 'node:crypto';
import { parseDateInput } from '../lib/dates/index.js';
import { slugFrom } from '../lib/slug.js';
import { searchTermsOf } from '../lib/text.js';
import { AccessDeniedError, ConflictError, DuplicateKeyError, GoneError, InvalidParamsError, NotFoundError } from '../errors.js';
import { type Collection, type Filter, type OrganizerDoc, type PostStatus, type Storage, type VenueDoc } from '../storage/port.js';
import { asSeen, type Caller, effectiveStatus, scheduleIfFuture } from './access.js';
import { changedFields } from './changes.js';
import { insertWithUniqueSlug } from './unique-slug.js';
import { KeyedLock } from '../lib/keyed-lock.js';
import { ParamErrors, resolveImage, resolveWebsite, toId } from './input.js';
import { linkedPostLists } from './linked-post-lists.js';
import { linkedPostVisibility, type TombstoneRecorder } from './tombstones.js';

export type LinkedPostDoc = VenueDoc | OrganizerDoc;
export type LinkedPostKey = { id: number } | { slug: string };

/** Fields every linked-post write may carry (the resource's own fields come through `resolveOwn`). */
export interface LinkedPostInput {
  author?: number | string;
  date?: string | number;
  date_utc?: string | number;
  description?: string;
  status?: PostStatus;
  website?: string;
  image?: string | number;
}

export interface LinkedPostDefinition<D extends LinkedPostDoc, I extends LinkedPostInput> {
  kind: 'venue' | 'organizer';
  collection: 'venues' | 'organizers';
  /** The body field holding the name: `venue` or `organizer`. */
  nameField: 'venue' | 'organizer';
  slugIndex: string;
  /** How events point at this resource, for `event`/`has_events` filters and unlinking on trash. */
  eventField: 'venueId' | 'organizerIds';
  /** The resource's own fields with their defaults. */
  blank(): Omit<D, keyof LinkedPostCommon>;
  /** Validates and applies the resource's own fields of `input` onto `set`. */
  resolveOwn(input: I, current: D | null, set: Partial<D>, errors: ParamErrors): void;
  /** The texts indexed for search, in the order of the text index (indexes/). */
  searchTexts(doc: D): Array<string | null | undefined>;
}

type LinkedPostCommon = Pick<
  LinkedPostDoc,
  '_id' | 'slug' | 'status' | 'authorId' | 'dateUtc' | 'modifiedUtc' | 'description' | 'excerpt' | 'image' | 'searchTerms' | 'name' | 'nameKey' | 'website'
>;

export { type LinkedPostListParams } from './linked-post-lists.js';

export interface LinkedPostServiceDeps {
  storage: Pick<Storage, 'events' | 'venues' | 'organizers' | 'nextId'>;
  siteTimezone: string;
  perPageMax: number;
  /** Writes that take a record out of a list leave a tombstone. */
  tombstones: TombstoneRecorder;
  now?: () => Date;
}

/** What the parts of one linked-post service share. */
export interface LinkedPostContext<D extends LinkedPostDoc, I extends LinkedPostInput> {
  def: LinkedPostDefinition<D, I>;
  storage: LinkedPostServiceDeps['storage'];
  collection: Collection<D>;
  siteTimezone: string;
  tombstones: TombstoneRecorder;
  now: () => Date;
}

/** Bodies into stored fields: validation, new records, search terms. */
function linkedPostFields<D extends LinkedPostDoc, I extends LinkedPostInput>({ def, siteTimezone, now }: LinkedPostContext<D, I>) {
  /** Validates a body into stored fields; errors are collected under `param` (nested) or per field. */
  function prepare(input: I & { [name: string]: unknown }, current: D | null, errors: ParamErrors, param?: string): Partial<D> {
    const where = (field: string) => param ?? field;
    const set: Partial<D> = {};
    const name = input[def.nameField];
    if (typeof name === 'string') {
      if (name.trim() === '') errors.add(where(def.nameField), `${def.nameField} must not be empty.`);
      else Object.assign(set, { name: name.trim(), nameKey: name.trim().toLowerCase() });
    }
    if (input.description !== undefined) set.description = input.description;
    if (input.author !== undefined) set.authorId = toId(input.author) ?? 0;
    if (input.status !== undefined) set.status = input.status;
    for (const [field, zone] of [
      ['date_utc', 'UTC'],
      ['date', siteTimezone],
    ] as const) {
      const raw = input[field];
      if (raw === undefined || set.dateUtc !== undefined) continue;
      const parsed = parseDateInput(raw, { timezone: zone, now: now() });
      if (parsed === null) errors.add(where(field), `${field} is not a valid date.`);
      else set.dateUtc = parsed;
    }
    if (input.website !== undefined) {
      const website = resolveWebsite(input.website, errors, where('website'));
      if (website !== undefined) set.website = website;
    }
    if (input.image !== undefined) {
      const image = resolveImage(input.image, errors, where('image'));
      if (image !== undefined) set.image = image;
    }
    const own = new ParamErrors();
    def.resolveOwn(input, current, set, own);
    for (const [field, message] of Object.entries(own.params)) errors.add(where(field), message);

    const at = now();
    scheduleIfFuture(set, current, at);
    set.modifiedUtc = at;
    return set;
  }

  /** A new record: the stored defaults, the type's blank fields, then the written ones. */
  function newDoc(id: number, slug: string, set: Partial<D>, caller: Caller): D {
    const at = now();
    return withSearchTerms({
      _id: id,
      slug,
      status: 'publish',
      authorId: caller.authorId,
      dateUtc: at,
      modifiedUtc: at,
      description: '',
      excerpt: '',
      image: null,
      searchTerms: [],
      name: '',
      nameKey: '',
      website: '',
      ...def.blank(),
      ...set,
    } as unknown as D);
  }

  function withSearchTerms(doc: D): D {
    return { ...doc, searchTerms: searchTermsOf(...def.searchTexts(doc)) };
  }

  /** Bulk loading: the stored fields an update of `current` with `input` would change (empty: none). Writes nothing. */
  function changes(current: D, input: I & { [name: string]: unknown }): Partial<D> {
    const errors = new ParamErrors();
    const set = prepare(input, current, errors);
    if (!errors.empty) throw new InvalidParamsError(errors.params);
    const next = withSearchTerms({ ...current, ...set });
    return changedFields(current, { ...set, searchTerms: next.searchTerms }, ['modifiedUtc']);
  }

  return { prepare, newDoc, withSearchTerms, changes };
}

/** Creates, de-duplicated by name (the API) or under a given slug (bulk loading), and the write of an update. */
function linkedPostCreates<D extends LinkedPostDoc, I extends LinkedPostInput>(
  { def, storage, collection }: LinkedPostContext<D, I>,
  { prepare, newDoc, withSearchTerms }: ReturnType<typeof linkedPostFields<D, I>>,
) {
  /**
   * The reference's de-duplication: same name, case-insensitively, and the same description
   * when one is given. Trashed records are not revived.
   */
  async function findDuplicate(nameKey: string, description: string | undefined): Promise<D | null> {
    const candidates = await collection.find({ filter: { nameKey, status: { $ne: 'trash' } }, sort: [['_id', 1]] });
    const wanted = description?.trim().toLowerCase();
    return candidates.find((c) => wanted === undefined || c.description.trim().toLowerCase() === wanted) ?? null;
  }

  async function applyUpdate(current: D, set: Partial<D>, unset: Array<keyof D & string> = []): Promise<D> {
    const next = withSearchTerms({ ...current, ...set });
    const updated = await collection.updateById(current._id, {
      $set: { ...set, searchTerms: next.searchTerms },
      ...(unset.length > 0 ? { $unset: unset } : {}),
    });
    if (!updated) throw new NotFoundError(def.kind, current._id);
    return updated;
  }

  /**
   * Creates from prepared fields, or returns the duplicate it matches, unchanged: a shared record
   * changes only through its own update, never as a side effect of naming it (the reference
   * overwrites the duplicate with the sent fields, so any event write could rewrite or unpublish a
   * venue other events use). Race-free: identical names derive the same slug, so of two concurrent
   * creates one insert fails on the unique slug index and then finds the other's record.
   */
  async function commitCreate(set: Partial<D>, caller: Caller, description: string | undefined, reservedId?: number): Promise<{ doc: D; created: boolean }> {
    const nameKey = set.nameKey as string;
    const existing = await findDuplicate(nameKey, description);
    if (existing) return { doc: existing, created: false };

    const id = reservedId ?? (await storage.nextId('posts'));
    // The fallback (a name without a Latin slug) must also be the same for identical names, or
    // two concurrent creates would not collide on the slug index and both be inserted.
    const base = slugFrom(set.name as string, `${def.kind}-${createHash('sha256').update(nameKey).digest('hex').slice(0, 12)}`);
    const doc = newDoc(id, base, set, caller);
    return insertWithUniqueSlug<{ doc: D; created: boolean }>({
      base,
      id,
      slugIndex: def.slugIndex,
      insert: async (slug) => {
        const candidate = { ...doc, slug };
        await collection.insertOne(candidate);
        return { doc: candidate, created: true };
      },
      afterClash: async () => {
        const raced = await findDuplicate(nameKey, description);
        return raced ? { doc: raced, created: false } : undefined;
      },
      exhausted: () => new Error(`Could not find a free slug for ${def.kind} "${base}"`),
    });
  }

  /**
   * Bulk loading (the seed import): creates with the slug the seed names the record by, without the
   * API's de-duplication by name (the slug is the seed's identity). A taken slug is a conflict.
   */
  async function createWithSlug(input: I & { [name: string]: unknown }, caller: Caller, slug: string): Promise<D> {
    const errors = new ParamErrors();
    const set = prepare(input, null, errors);
    if (!errors.empty) throw new InvalidParamsError(errors.params);
    const id = await storage.nextId('posts');
    const doc = newDoc(id, slug, set, caller);
    try {
      await collection.insertOne(doc);
    } catch (err) {
      if (err instanceof DuplicateKeyError && err.index === def.slugIndex) {
        throw new ConflictError(
          'rest_slug_conflict',
          { key: `errorMessage.rest_slug_conflict.${def.kind}`, values: { slug } },
          { params: { slug: 'slug is already in use.' } },
        );
      }
      throw err;
    }
    return doc;
  }

  return { applyUpdate, commitCreate, createWithSlug };
}

/** Updates, trash and the release of held records: one write at a time per record. */
function linkedPostWrites<D extends LinkedPostDoc, I extends LinkedPostInput>(
  { def, storage, collection, tombstones, now }: LinkedPostContext<D, I>,
  { prepare }: ReturnType<typeof linkedPostFields<D, I>>,
  applyUpdate: (current: D, set: Partial<D>, unset?: Array<keyof D & string>) => Promise<D>,
  find: (key: LinkedPostKey) => Promise<D>,
) {
  /** Updates and trashing of one record, one at a time (see `update`). */
  const writes = new KeyedLock<number>();

  /**
   * The events that embed the record change with it, so their modified time moves too (an
   * incremental sync then brings them again, docs/api.md); a trashed record leaves them.
   * `unchangedSince`: events modified at that instant or later are left alone (the event whose
   * write released the record has just been written).
   */
  async function touchEvents(doc: D, at: Date, unchangedSince?: Date): Promise<void> {
    const id = doc._id;
    const trashed = doc.status === 'trash';
    const filter: Filter = { [def.eventField]: id, ...(unchangedSince === undefined ? {} : { modifiedUtc: { $lt: unchangedSince } }) };
    if (def.eventField === 'venueId') await storage.events.updateMany(filter, { $set: trashed ? { venueId: null, modifiedUtc: at } : { modifiedUtc: at } });
    else await storage.events.updateMany(filter, { $set: { modifiedUtc: at }, ...(trashed ? { $pull: { organizerIds: id } } : {}) });
  }

  /** Tombstones and linked events after a write that took the record from `before` to `after`. */
  async function afterWrite(before: D, after: D, unchangedSince?: Date): Promise<void> {
    const at = now();
    await tombstones.recordChange(def.kind, after._id, linkedPostVisibility(before, at), linkedPostVisibility(after, at));
    await touchEvents(after, unchangedSince ?? after.modifiedUtc, unchangedSince);
  }

  return {
    /**
     * Per-field last writer wins, read-modify-write under the record's lock (as for events). An
     * edit ends a hold (src/services/holds.ts): the record is published unless the edit names a
     * status. Moving to the trash here has the effects of `trash`.
     */
    async update(key: LinkedPostKey, input: I & { [name: string]: unknown }, precondition?: (current: D) => void) {
      const { _id } = await find(key);
      return writes.run(_id, async () => {
        const current = await find({ id: _id });
        precondition?.(asSeen(current, now()));
        const errors = new ParamErrors();
        const set = prepare(input, current, errors);
        if (!errors.empty) throw new InvalidParamsError(errors.params);
        if (current.held === true && set.status === undefined) {
          set.status = 'publish';
          scheduleIfFuture(set, current, now());
        }
        const updated = await applyUpdate(current, set, current.held === true ? ['held'] : []);
        await afterWrite(current, updated);
        return updated;
      });
    },

    /** Trash, then unlink from every event; a second delete is 410. */
    async trash(key: LinkedPostKey, precondition?: (current: D) => void): Promise<D> {
      const { _id } = await find(key);
      return writes.run(_id, async () => {
        const current = await find({ id: _id });
        precondition?.(asSeen(current, now()));
        if (current.status === 'trash') {
          await tombstones.ensureGone(def.kind, current._id, current.modifiedUtc);
          throw new GoneError(def.kind);
        }
        const trashed = await collection.updateById(current._id, { $set: { status: 'trash', modifiedUtc: now() } as Partial<D> });
        if (!trashed) throw new NotFoundError(def.kind, current._id);
        await afterWrite(current, trashed);
        return trashed;
      });
    },

    /**
     * Publishes (or schedules, `to.dateUtc`) the held records among `ids`: an event using them has
     * just been published (src/services/holds.ts). Records that are not held are left alone.
     * `written`: when the releasing events were written; they are not touched again.
     */
    async release(ids: readonly number[], to: { status: PostStatus; dateUtc?: Date }, written: Date): Promise<void> {
      if (ids.length === 0) return;
      const held = await collection.find({ filter: { _id: { $in: [...ids] }, held: true } });
      for (const doc of held) {
        await writes.run(doc._id, async () => {
          // Re-read under the lock: an edit through the record's own route may have ended the hold.
          const current = await collection.findById(doc._id);
          if (current?.held !== true) return;
          const set = { status: to.status, modifiedUtc: now(), ...(to.dateUtc === undefined ? {} : { dateUtc: to.dateUtc }) } as Partial<D>;
          const released = await collection.updateById(doc._id, { $set: set, $unset: ['held'] as Array<keyof D & string> });
          if (released) await afterWrite(current, released, written);
        });
      }
    },
  };
}

export function createLinkedPostService<D extends LinkedPostDoc, I extends LinkedPostInput>(
  def: LinkedPostDefinition<D, I>,
  { storage, siteTimezone, perPageMax, tombstones, now = () => new Date() }: LinkedPostServiceDeps,
) {
  const collection = storage[def.collection] as unknown as Collection<D>;
  const context: LinkedPostContext<D, I> = { def, storage, collection, siteTimezone, tombstones, now };
  const fields = linkedPostFields(context);
  const { prepare, changes } = fields;
  const { applyUpdate, commitCreate, createWithSlug } = linkedPostCreates(context, fields);

  async function find(key: LinkedPostKey): Promise<D> {
    const doc = 'id' in key ? await collection.findById(key.id) : await collection.findOne({ slug: key.slug });
    if (!doc) throw 'id' in key ? new NotFoundError(def.kind, key.id) : new NotFoundError(def.kind, key.slug, 'slug');
    return doc;
  }

  /** Anyone sees published records; token holders see every status. */
  function visibleTo(doc: D, caller: Caller | null): boolean {
    return caller !== null || effectiveStatus(doc, now()) === 'publish';
  }

  return {
    definition: def,
    visibleTo,
    prepare,

    async get(key: LinkedPostKey, caller: Caller | null): Promise<D> {
      const doc = await find(key);
      if (!visibleTo(doc, caller)) {
        throw new AccessDeniedError(`${def.kind}-not-accessible`, `errorMessage.${def.kind}-not-accessible`);
      }
      return asSeen(doc, now());
    },

    /**
     * Validates a whole body (top-level create) and creates or de-duplicates. `reservedId` (an
     * Idempotency-Key's create, src/services/idempotency.ts): the id to create under; a record
     * already stored under it was stored by an earlier attempt of the same request, and is the answer.
     */
    async create(input: I & { [name: string]: unknown }, caller: Caller, reservedId?: number) {
      const earlier = reservedId === undefined ? null : await collection.findById(reservedId);
      if (earlier) return { doc: earlier, created: false };
      const errors = new ParamErrors();
      const set = prepare(input, null, errors);
      if (!errors.empty) throw new InvalidParamsError(errors.params);
      try {
        return await commitCreate(set, caller, input.description, reservedId);
      } catch (err) {
        // The earlier attempt's insert landed after the look-up above.
        const landed = reservedId !== undefined && err instanceof DuplicateKeyError && err.index === '_id_' ? await collection.findById(reservedId) : null;
        if (landed) return { doc: landed, created: false };
        throw err;
      }
    },

    /** Second half of a nested create: `set` came from `prepare` without errors. */
    commitCreate,

    /** Bulk loading (src/import/apply.ts): create under a given slug, and change detection. */
    createWithSlug,
    changes,

    ...linkedPostWrites(context, fields, applyUpdate, find),
    ...linkedPostLists(context, perPageMax),
  };
}

export type LinkedPostService<D extends LinkedPostDoc, I extends LinkedPostInput> = ReturnType<typeof createLinkedPostService<D, I>>;
