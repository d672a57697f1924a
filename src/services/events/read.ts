/**
 * Reading events: finding one by id or slug, who may read it (trash, unpublished, password), and
 * the linked records a representation embeds.
 */
import { AccessDeniedError, NotFoundError } from '../../errors.js';
import { type EventRelations } from '../../serialize/events.js';
import { type Collection, type EventDoc, type OrganizerDoc, type Storage, type TermDoc, type VenueDoc } from '../../storage/port.js';
import { asSeen, type Caller, countAudienceOf, effectiveStatus, passwordMatches } from '../access.js';
import { type OrganizersService } from '../organizers.js';
import { type TermsService } from '../terms.js';
import { type VenuesService } from '../venues.js';

export type EventKey = { id: number } | { slug: string };

export interface ReadOptions {
  caller: Caller | null;
  password?: string | undefined;
  context?: string | undefined;
}

export interface EventReadsDeps {
  storage: Pick<Storage, 'events' | 'venues' | 'organizers' | 'categories' | 'tags'>;
  /** Embedded venues and organizers follow their own visibility. */
  venues: Pick<VenuesService, 'visibleTo'>;
  organizers: Pick<OrganizersService, 'visibleTo'>;
  /** Embedded terms carry their counts. */
  categories: Pick<TermsService, 'counts'>;
  tags: Pick<TermsService, 'counts'>;
  now: () => Date;
}

/**
 * A protected event is shown in full with its password, or to an editor asking `context=edit`;
 * a single read and a list apply the same rule.
 */
export function unlocks(password: string, request: { password?: string | undefined; context?: string | undefined }, caller: Caller | null): boolean {
  return readsInFull(request, caller) || passwordMatches(password, request.password);
}

/** Whether the request reads every protected event in full: an editor asking `context=edit`. */
export function readsInFull(request: { context?: string | undefined }, caller: Caller | null): boolean {
  return request.context === 'edit' && caller?.role === 'editor';
}

type TermEntry = EventRelations['categories'][number];

/** The page's loaded terms as relation entries, one per term, by id. */
function termEntries(all: readonly TermDoc[], counts: Map<number, number>): Map<number, TermEntry> {
  const entries = new Map<number, TermEntry>();
  for (let i = 0; i < all.length; i++) {
    const doc = all[i]!;
    entries.set(doc._id, { doc, count: counts.get(doc._id) ?? 0 });
  }
  return entries;
}

/**
 * An event's terms, each once, in the order the event lists them: the serializer sorts them by
 * name, and the same stored event always gives the same order (what its memo compares).
 */
function termsOf(ids: readonly number[], entries: Map<number, TermEntry>): TermEntry[] {
  const found: TermEntry[] = [];
  for (let i = 0; i < ids.length; i++) {
    const term = entries.get(ids[i]!);
    if (term !== undefined && !found.includes(term)) found.push(term);
  }
  return found;
}

export function createEventReads({ storage, venues, organizers, categories, tags, now }: EventReadsDeps) {
  async function findEvent(key: EventKey): Promise<EventDoc> {
    const doc = 'id' in key ? await storage.events.findById(key.id) : await storage.events.findOne({ slug: key.slug });
    if (!doc) throw 'id' in key ? new NotFoundError('event', key.id) : new NotFoundError('event', key.slug, 'slug');
    return doc;
  }

  /** Reads follow trash is gone for everyone, unpublished needs a token. */
  function assertReadable(doc: EventDoc, options: ReadOptions): void {
    if (doc.status === 'trash') {
      throw new AccessDeniedError('event-no-longer-available', 'errorMessage.event-no-longer-available');
    }
    if (effectiveStatus(doc, now()) !== 'publish' && options.caller === null) {
      throw new AccessDeniedError('event-not-accessible', 'errorMessage.event-not-accessible');
    }
    if (doc.password !== null && !unlocks(doc.password, options, options.caller)) {
      throw new AccessDeniedError('event-password-protected', 'errorMessage.event-password-protected');
    }
  }

  /**
   * The linked records of a page of events, loaded with one query per collection. Embedded venues
   * and organizers follow their own visibility: drafts are not shown to anonymous callers. Every
   * list request runs this for its whole page, so it loops rather than chaining array methods, and
   * builds one `{ doc, count }` entry per term for the page, shared by the events that carry it.
   */
  async function relationsOfMany(docs: EventDoc[], caller: Caller | null): Promise<EventRelations[]> {
    const venueIds = new Set<number>();
    const organizerIds = new Set<number>();
    const categoryIds = new Set<number>();
    const tagIds = new Set<number>();
    // Indexed loops: for…of over the stored documents' frozen arrays takes half as long again.
    const addAll = (ids: readonly number[], into: Set<number>): void => {
      for (let i = 0; i < ids.length; i++) into.add(ids[i]!);
    };
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i]!;
      if (doc.venueId !== null) venueIds.add(doc.venueId);
      addAll(doc.organizerIds, organizerIds);
      addAll(doc.categoryIds, categoryIds);
      addAll(doc.tagIds, tagIds);
    }
    const byIds = <T extends { _id: number }>(ids: Set<number>, collection: Pick<Collection<T>, 'find'>): Promise<T[]> =>
      ids.size === 0 ? Promise.resolve([]) : collection.find({ filter: { _id: { $in: [...ids] } } });
    const [venueDocs, organizerDocs, categoryDocs, tagDocs, categoryCounts, tagCounts] = await Promise.all([
      byIds<VenueDoc>(venueIds, storage.venues),
      byIds<OrganizerDoc>(organizerIds, storage.organizers),
      byIds<TermDoc>(categoryIds, storage.categories),
      byIds<TermDoc>(tagIds, storage.tags),
      categoryIds.size === 0 ? new Map<number, number>() : categories.counts(countAudienceOf(caller)),
      tagIds.size === 0 ? new Map<number, number>() : tags.counts(countAudienceOf(caller)),
    ]);
    // Embedded like the standalone reads: a scheduled record whose date has passed is published.
    const at = now();
    const venueById = new Map<number, VenueDoc>();
    for (const v of venueDocs) if (venues.visibleTo(v, caller)) venueById.set(v._id, asSeen(v, at));
    const organizerById = new Map<number, OrganizerDoc>();
    for (const o of organizerDocs) if (organizers.visibleTo(o, caller)) organizerById.set(o._id, asSeen(o, at));
    const categoryTerms = termEntries(categoryDocs, categoryCounts);
    const tagTerms = termEntries(tagDocs, tagCounts);
    const out = new Array<EventRelations>(docs.length);
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i]!;
      // Keep the order the organizers were linked in.
      const linked: OrganizerDoc[] = [];
      for (const id of doc.organizerIds) {
        const organizer = organizerById.get(id);
        if (organizer !== undefined) linked.push(organizer);
      }
      out[i] = {
        venue: doc.venueId === null ? null : (venueById.get(doc.venueId) ?? null),
        organizers: linked,
        categories: termsOf(doc.categoryIds, categoryTerms),
        tags: termsOf(doc.tagIds, tagTerms),
      };
    }
    return out;
  }

  async function relationsOf(doc: EventDoc, caller: Caller | null): Promise<EventRelations> {
    return (await relationsOfMany([doc], caller))[0] as EventRelations;
  }

  return { findEvent, assertReadable, relationsOfMany, relationsOf };
}

export type EventReads = ReturnType<typeof createEventReads>;
