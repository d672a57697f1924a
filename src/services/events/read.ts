/**
 * Reading events: finding one by id or slug, who may read it (trash, unpublished, password), and
 * the linked records a representation embeds.
 */
import { AccessDeniedError, NotFoundError } from '../../errors.js';
import { type EventRelations } from '../../serialize/events.js';
import { type EventDoc, type OrganizerDoc, type Storage, type TermDoc } from '../../storage/port.js';
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
   * and organizers follow their own visibility: drafts are not shown to anonymous callers.
   */
  async function relationsOfMany(docs: EventDoc[], caller: Caller | null): Promise<EventRelations[]> {
    const unique = (ids: number[]) => [...new Set(ids)];
    const venueIds = unique(docs.flatMap((d) => (d.venueId === null ? [] : [d.venueId])));
    const organizerIds = unique(docs.flatMap((d) => d.organizerIds));
    const categoryIds = unique(docs.flatMap((d) => d.categoryIds));
    const tagIds = unique(docs.flatMap((d) => d.tagIds));
    const byIds = <T extends { _id: number }>(ids: number[], load: () => Promise<T[]>) => (ids.length === 0 ? Promise.resolve([]) : load());
    const [venueDocs, organizerDocs, categoryDocs, tagDocs, categoryCounts, tagCounts] = await Promise.all([
      byIds(venueIds, () => storage.venues.find({ filter: { _id: { $in: venueIds } } })),
      byIds(organizerIds, () => storage.organizers.find({ filter: { _id: { $in: organizerIds } } })),
      byIds(categoryIds, () => storage.categories.find({ filter: { _id: { $in: categoryIds } } })),
      byIds(tagIds, () => storage.tags.find({ filter: { _id: { $in: tagIds } } })),
      categoryIds.length === 0 ? new Map<number, number>() : categories.counts(countAudienceOf(caller)),
      tagIds.length === 0 ? new Map<number, number>() : tags.counts(countAudienceOf(caller)),
    ]);
    // Embedded like the standalone reads: a scheduled record whose date has passed is published.
    const at = now();
    const venueById = new Map(venueDocs.filter((v) => venues.visibleTo(v, caller)).map((v) => [v._id, asSeen(v, at)]));
    const organizerById = new Map(organizerDocs.filter((o) => organizers.visibleTo(o, caller)).map((o) => [o._id, asSeen(o, at)]));
    const termsOf = (ids: number[], all: TermDoc[], counts: Map<number, number>) =>
      all.filter((t) => ids.includes(t._id)).map((doc) => ({ doc, count: counts.get(doc._id) ?? 0 }));
    return docs.map((doc) => ({
      venue: doc.venueId === null ? null : (venueById.get(doc.venueId) ?? null),
      // Keep the order the organizers were linked in.
      organizers: doc.organizerIds.map((id) => organizerById.get(id)).filter((o): o is OrganizerDoc => o !== undefined),
      categories: termsOf(doc.categoryIds, categoryDocs, categoryCounts),
      tags: termsOf(doc.tagIds, tagDocs, tagCounts),
    }));
  }

  async function relationsOf(doc: EventDoc, caller: Caller | null): Promise<EventRelations> {
    return (await relationsOfMany([doc], caller))[0] as EventRelations;
  }

  return { findEvent, assertReadable, relationsOfMany, relationsOf };
}

export type EventReads = ReturnType<typeof createEventReads>;
