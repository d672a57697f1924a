/**
 * The events service: single-event use cases (create, read, update — truly partial — and trash),
 * the list, and the import's bulk writes, built from modules of one job each:
 * read.ts (finding and access), fields.ts, links.ts and prepare.ts (resolving a write), writes.ts (one
 * event's writes), bulk.ts (many creates at once), list.ts (GET /events), feed.ts (GET /events.ics),
 * geo.ts (geolocation). Recurring series and their occurrences: src/services/recurrence/.
 */
import { invalidParam } from '../../errors.js';
import { KeyedLock } from '../../lib/keyed-lock.js';
import { type EventCreate } from '../../schemas/events.js';
import { type EventRelations } from '../../serialize/events.js';
import { type EventDoc, type Storage } from '../../storage/port.js';
import { asSeen, type Caller } from '../access.js';
import { type OrganizersService } from '../organizers.js';
import { type TermsService } from '../terms.js';
import { type TombstoneRecorder } from '../tombstones.js';
import { type VenuesService } from '../venues.js';
import { createEventBulk } from './bulk.js';
import { createEventFeed } from './feed.js';
import { type EventInput } from './fields.js';
import { createEventGeo } from './geo.js';
import { createEventLinks } from './links.js';
import { createEventList } from './list.js';
import { createEventReads, type EventKey, type ReadOptions } from './read.js';
import { createEventWrites } from './writes.js';
import { createRecurrence, type Scope } from '../recurrence/index.js';
import { type RecurrenceInput } from '../../lib/recurrence/index.js';

export { type EventKey, type ReadOptions } from './read.js';

/** A check of the current event as its caller reads it (null: none to read), throwing to refuse the write. */
export type EventPrecondition = (current: { doc: EventDoc; relations: EventRelations } | null) => void;

export interface EventsServiceDeps {
  storage: Pick<Storage, 'events' | 'series' | 'venues' | 'organizers' | 'categories' | 'tags' | 'nextId'>;
  siteTimezone: string;
  perPageMax: number;
  /** ICS_MAX_EVENTS: the most events a feed holds; left out, a page's worth (the import serves no feeds). */
  feedMax?: number;
  /** GEOLOC_ENABLED: without it the geolocation parameters have no effect. */
  geolocEnabled?: boolean;
  /** Linked venues and organizers can be created inside an event write. */
  venues: VenuesService;
  organizers: OrganizersService;
  /** Terms are named by id, slug or name; unknown names are created. */
  categories: TermsService;
  tags: TermsService;
  /** Writes that take an event out of a list leave a tombstone. */
  tombstones: TombstoneRecorder;
  /** RECURRENCE_HORIZON_DAYS and RECURRENCE_MAX_OCCURRENCES; left out, their defaults. */
  recurrenceHorizonDays?: number;
  recurrenceMaxOccurrences?: number;
  now?: () => Date;
}

/** A single event has no series: only scope `this`, and no `recurrence` (400 naming the parameter). */
function refuseSeriesScope(scope: Scope, input: EventInput): void {
  if (scope !== 'this') throw invalidParam('scope', 'scope must be this: the event is not an occurrence of a recurring series.');
  if (input.recurrence !== undefined)
    throw invalidParam('recurrence', 'recurrence can be given when creating an event, or with scope=all or scope=following on an occurrence.');
}

/** A write of one event: an occurrence's through its series, a single event's under its own lock. */
function writeOf(
  locks: KeyedLock<number>,
  found: EventDoc,
  scope: Scope,
  input: EventInput,
  occurrence: () => Promise<EventDoc>,
  single: () => Promise<EventDoc>,
): Promise<EventDoc> {
  if (found.seriesId !== undefined) return occurrence();
  refuseSeriesScope(scope, input);
  return locks.run(found._id, single);
}

export function createEventsService({
  storage,
  siteTimezone,
  perPageMax,
  feedMax = perPageMax,
  geolocEnabled = true,
  venues,
  organizers,
  categories,
  tags,
  tombstones,
  recurrenceHorizonDays = 730,
  recurrenceMaxOccurrences = 1000,
  now = () => new Date(),
}: EventsServiceDeps) {
  const reads = createEventReads({ storage, venues, organizers, categories, tags, now });
  const links = createEventLinks({ storage, venues, organizers, categories, tags });
  const writes = createEventWrites({ storage, siteTimezone, links, categories, tags, tombstones, now });
  const bulk = createEventBulk({ storage, siteTimezone, links, writes, now });
  const geo = createEventGeo({ storage, geolocEnabled, now });
  const listDeps = { storage, venues, organizers, categories, tags, siteTimezone, perPageMax, geolocEnabled, reads, geo, now };
  const { list } = createEventList(listDeps);
  // The feed is the list with ICS_MAX_EVENTS as its largest page.
  const { feed } = createEventFeed({ storage, list: createEventList({ ...listDeps, perPageMax: feedMax }).list, feedMax, reads, now });
  const { findEvent, assertReadable, relationsOf } = reads;

  /** Updates and trashing of one event, one at a time (see `update`); of a series, too. */
  const locks = new KeyedLock<number>();
  const recurrenceDeps = { storage, writes, reads, locks, horizonDays: recurrenceHorizonDays, maxOccurrences: recurrenceMaxOccurrences, now };
  const recurrence = createRecurrence(recurrenceDeps);

  /**
   * The event as stored, once `precondition` (a request's `If-Match`) has accepted it as the
   * caller reads it; a trashed event has no representation.
   */
  async function checked(id: number, caller: Caller, precondition: EventPrecondition | undefined): Promise<EventDoc> {
    const current = await findEvent({ id });
    precondition?.(current.status === 'trash' ? null : { doc: asSeen(current, now()), relations: await relationsOf(current, caller) });
    return current;
  }

  return {
    /** GET /events: validates and resolves every parameter, then one page query. */
    list,
    /** GET /events.ics: the list's first ICS_MAX_EVENTS events. */
    feed,

    async get(key: EventKey, options: ReadOptions) {
      const doc = await findEvent(key);
      assertReadable(doc, options);
      return { doc: asSeen(doc, now()), relations: await relationsOf(doc, options.caller) };
    },

    /** `reservedId`: see createDoc (writes.ts). */
    async create(input: EventCreate, caller: Caller, reservedId?: number) {
      const stored = await writes.createDoc(input, caller, reservedId);
      return { doc: stored, relations: await relationsOf(stored, caller) };
    },

    /** POST /events with `recurrence`: the series as its creator reads it (GET /series/{id}). */
    async createSeries(input: EventCreate & { recurrence: RecurrenceInput }, caller: Caller, reservedId?: number) {
      const series = await recurrence.createSeries(input, caller, reservedId);
      return recurrence.getSeries(series._id, { caller, context: 'edit' });
    },

    /** GET /series/{id}; a whole series changed as itself (the seed command); the occurrences that entered the horizon (run at start and hourly). */
    getSeries: recurrence.getSeries,
    updateSeries: recurrence.updateSeries,
    extendSeries: recurrence.extendSeries,

    /**
     * Per-field last writer wins: an update writes only the fields it changes, read-modify-write
     * under the event's lock (KeyedLock) so derived fields follow the latest version.
     */
    async update(key: EventKey, input: EventInput, caller: Caller, precondition?: EventPrecondition, scope: Scope = 'this') {
      const found = await findEvent(key);
      const current = () => checked(found._id, caller, precondition);
      const occurrence = () => recurrence.updateOccurrence(found, current, input, caller, scope);
      const updated = await writeOf(locks, found, scope, input, occurrence, async () => writes.updateDoc(await current(), input, caller));
      return { doc: updated, relations: await relationsOf(updated, caller) };
    },

    /** Moves the event to the trash (an occurrence: with `scope`); a second delete is 410. */
    async trash(key: EventKey, caller: Caller, precondition?: EventPrecondition, scope: Scope = 'this') {
      const found = await findEvent(key);
      const current = () => checked(found._id, caller, precondition);
      const occurrence = () => recurrence.trashOccurrence(found, current, scope);
      const updated = await writeOf(locks, found, scope, {}, occurrence, async () => writes.trashDoc(await current()));
      return { doc: updated, relations: await relationsOf(updated, caller) };
    },

    /** Bulk loading (the seed import): the writes above without the relations, and change detection. */
    createDoc: writes.createDoc,
    createDocs: bulk.createDocs,
    updateDoc: writes.updateDoc,
    trashDoc: writes.trashDoc,
    changes: writes.changes,
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
