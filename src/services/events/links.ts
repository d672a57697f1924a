/**
 * An event write's references: the venue, the organizers, the terms and the parent event, each
 * checked to exist (or, for venues and organizers, validated as a nested new record), then linked
 * once the whole write has passed every check.
 */
import { type EventDoc, type Storage } from '../../storage/port.js';
import { type Caller } from '../access.js';
import { type Hold, heldFields, releaseOf } from '../holds.js';
import { type ParamErrors, toId, toList } from '../input.js';
import { type OrganizersService } from '../organizers.js';
import { type TermRef, type TermsService } from '../terms.js';
import { type VenuesService } from '../venues.js';
import { type EventInput } from './fields.js';

/** A linked record named in an event write: an existing id, or one to create once all is valid. */
export type LinkRef = { id: number } | { create: Record<string, unknown>; description: string | undefined };

/** The linked records of a write, resolved (undefined: the write leaves that link alone). */
export interface EventLinks {
  venue: LinkRef | null | undefined;
  organizers: LinkRef[] | undefined;
  categories: TermRef[] | undefined;
  tags: TermRef[] | undefined;
}

/** A write's references as resolveLinks reads them; `postParent` null unlinks. */
export interface ResolvedLinks {
  links: EventLinks;
  postParent: number | null | undefined;
}

export interface EventLinksDeps {
  storage: Pick<Storage, 'events' | 'venues' | 'organizers'>;
  /** Linked venues and organizers can be created inside an event write. */
  venues: VenuesService;
  organizers: OrganizersService;
  /** Terms are named by id, slug or name; unknown names are created. */
  categories: Pick<TermsService, 'resolveForEvent' | 'commitRefs'>;
  tags: Pick<TermsService, 'resolveForEvent' | 'commitRefs'>;
}

type Released = NonNullable<ReturnType<typeof releaseOf>>;

export const isEmptyLink = (value: unknown) => value === 0 || value === '' || value === '0' || (Array.isArray(value) && value.length === 0);

/** A write names one venue; a list gives it first. */
export const venueItem = (value: unknown): unknown => (Array.isArray(value) ? value[0] : value);

/** Whether a write's `venue` unlinks the venue: nothing named, 0, '' or an empty list. */
export function unlinksVenue(value: unknown): boolean {
  const single = venueItem(value);
  return single === undefined || isEmptyLink(single);
}

/** A write names organizers as a list, one nested record, or ids in a string. */
export const organizerItems = (value: unknown): readonly unknown[] =>
  Array.isArray(value) ? value : typeof value === 'object' && value !== null ? [value] : toList(value as string | number, 'organizer');

/** `post_parent` 0, '' or zeros unlinks the parent. */
export const isNoParent = (value: number | string): boolean => value === 0 || value === '' || /^0+$/.test(String(value));

/** Links a write whose every reference names an existing record (nothing to create); false otherwise, nothing set. */
export function linkExisting(set: Partial<EventDoc>, links: EventLinks): boolean {
  const all = [links.venue ?? null, ...(links.organizers ?? []), ...(links.categories ?? []), ...(links.tags ?? [])];
  if (!all.every((ref) => ref === null || 'id' in ref)) return false;
  const ids = (refs: ReadonlyArray<{ id: number }>) => [...new Set(refs.map((ref) => ref.id))];
  if (links.categories !== undefined) set.categoryIds = ids(links.categories as Array<{ id: number }>);
  if (links.tags !== undefined) set.tagIds = ids(links.tags as Array<{ id: number }>);
  if (links.venue !== undefined) set.venueId = links.venue === null ? null : (links.venue as { id: number }).id;
  if (links.organizers !== undefined) set.organizerIds = ids(links.organizers as Array<{ id: number }>);
  return true;
}

/** Releasing the held records events use (src/services/holds.ts). */
function heldReleases(venues: Pick<VenuesService, 'release'>, organizers: Pick<OrganizersService, 'release'>) {
  /**
   * Stored events that are published or scheduled release the held venues and organizers they
   * use (src/services/holds.ts): one query per collection for all the published ones.
   */
  async function releaseHeld(events: readonly EventDoc[]): Promise<void> {
    const published = { venues: new Set<number>(), organizers: new Set<number>() };
    // The events' own writes: the release leaves them as written (src/services/linked-posts.ts).
    let written = 0;
    for (const event of events) {
      const to = releaseOf(event);
      if (to === null) continue;
      if (to.status === 'publish') {
        if (event.venueId !== null) published.venues.add(event.venueId);
        for (const id of event.organizerIds) published.organizers.add(id);
        written = Math.max(written, event.modifiedUtc.getTime());
      } else await releaseLinks(event, to);
    }
    const to: Released = { status: 'publish' };
    const at = new Date(written);
    await Promise.all([venues.release([...published.venues], to, at), organizers.release([...published.organizers], to, at)]);
  }

  async function releaseLinks(event: EventDoc, to: Released): Promise<void> {
    await Promise.all([
      venues.release(event.venueId === null ? [] : [event.venueId], to, event.modifiedUtc),
      organizers.release(event.organizerIds, to, event.modifiedUtc),
    ]);
  }

  return { releaseHeld };
}

export function createEventLinks({ storage, venues, organizers, categories, tags }: EventLinksDeps) {
  /** References: every id must exist; problems go to `errors`. */
  async function resolveLinks(input: EventInput, current: EventDoc | null, errors: ParamErrors): Promise<ResolvedLinks> {
    const [venue, organizerRefs, categoryRefs, tagRefs, postParent] = await Promise.all([
      input.venue === undefined ? undefined : resolveVenue(input.venue, errors),
      input.organizer === undefined ? undefined : resolveOrganizers(input.organizer, errors),
      input.categories === undefined ? undefined : categories.resolveForEvent(input.categories, errors),
      input.tags === undefined ? undefined : tags.resolveForEvent(input.tags, errors),
      input.post_parent === undefined ? undefined : resolveParent(input.post_parent, current, errors),
    ]);
    return { links: { venue, organizers: organizerRefs, categories: categoryRefs, tags: tagRefs }, postParent };
  }

  /**
   * Creates the nested venues, organizers and terms of a write that has passed every check (a
   * rejected write leaves no new record behind), and links them. `hold`: the event is not public,
   * so what the write creates is held back with it (src/services/holds.ts).
   */
  async function commitLinks(set: Partial<EventDoc>, links: EventLinks, caller: Caller, hold: Hold | null): Promise<void> {
    if (linkExisting(set, links)) return;
    if (links.categories !== undefined) set.categoryIds = await categories.commitRefs(links.categories, hold !== null);
    if (links.tags !== undefined) set.tagIds = await tags.commitRefs(links.tags, hold !== null);
    if (links.venue !== undefined) set.venueId = links.venue === null ? null : await commitLink(venues, links.venue, caller, hold);
    if (links.organizers !== undefined) {
      const ids: number[] = [];
      for (const ref of links.organizers) {
        const id = await commitLink(organizers, ref, caller, hold);
        if (!ids.includes(id)) ids.push(id);
      }
      set.organizerIds = ids;
    }
  }

  async function commitLink(service: VenuesService | OrganizersService, ref: LinkRef, caller: Caller, hold: Hold | null): Promise<number> {
    if ('id' in ref) return ref.id;
    const { doc } = await service.commitCreate(heldFields(ref.create, hold), caller, ref.description);
    return doc._id;
  }

  /** One linked entry: an id, `{ id, … }`, or a new record's fields (validated now, created later). */
  async function linkRef(
    service: VenuesService | OrganizersService,
    item: unknown,
    param: 'venue' | 'organizer',
    errors: ParamErrors,
  ): Promise<LinkRef | undefined> {
    if (typeof item === 'object' && item !== null && !('id' in item)) {
      const fields = item as Record<string, unknown>;
      const create = service.prepare(fields as never, null, errors, param) as Record<string, unknown>;
      const description = typeof fields.description === 'string' ? fields.description : undefined;
      return { create, description };
    }
    const id = toId(typeof item === 'object' && item !== null ? (item as { id: unknown }).id : item);
    const found = id === null ? null : await storage[service.definition.collection].findById(id);
    if (!found) {
      errors.add(param, `${param} must reference an existing ${param} (by id) or describe a new one.`);
      return undefined;
    }
    return { id: found._id };
  }

  async function resolveVenue(value: unknown, errors: ParamErrors): Promise<LinkRef | null | undefined> {
    if (unlinksVenue(value)) return null;
    return linkRef(venues, venueItem(value), 'venue', errors);
  }

  async function resolveOrganizers(value: unknown, errors: ParamErrors): Promise<LinkRef[] | undefined> {
    const refs: LinkRef[] = [];
    for (const item of organizerItems(value)) {
      if (isEmptyLink(item)) continue;
      const ref = await linkRef(organizers, item, 'organizer', errors);
      if (ref === undefined) return undefined;
      refs.push(ref);
    }
    return refs;
  }

  async function resolveParent(value: number | string, current: EventDoc | null, errors: ParamErrors) {
    if (isNoParent(value)) return null;
    const id = toId(value);
    const parent = id === null ? null : await storage.events.findById(id);
    if (!parent || (current !== null && parent._id === current._id)) {
      errors.add('post_parent', 'post_parent must be the id of another existing event.');
      return undefined;
    }
    return parent._id;
  }

  return { resolveLinks, commitLinks, ...heldReleases(venues, organizers) };
}

export type EventLinkResolver = ReturnType<typeof createEventLinks>;
