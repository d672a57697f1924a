/**
 * The serializers' caches, one set per app: buildApp creates them and the serialize context
 * carries them to every serializer, so two apps in one process (tests, a CLI beside a server)
 * neither share nor evict each other's entries, and each is sized by its own configuration.
 *
 * Each cache is keyed by the stored document object (memo.ts), so it only hits on an engine that
 * hands out the same object for the same stored version: the embedded engine does. The MongoDB
 * driver builds new objects on every read, so there every lookup would miss and every entry would
 * only cost memory until evicted: the caches are off on the `mongodb` engine.
 */
import { type OrganizerResponse } from '../schemas/organizers.js';
import { type EventTerm } from '../schemas/terms.js';
import { type VenueResponse } from '../schemas/venues.js';
import { type EngineName, type EventDoc, type OrganizerDoc, type TermDoc, type VenueDoc } from '../storage/port.js';
import type { EventRelations } from './events.js';
import { JsonArena } from './json-arena.js';
import { DocumentMemo } from './memo.js';

export interface SerializeCaches {
  /** Events' UTF-8 JSON for the event list, per stored version and linked records (json-arena.ts). */
  readonly eventJsons: JsonArena<EventDoc, EventRelations>;
  /** Venue and organizer representations: one is embedded in many events. */
  readonly venues: DocumentMemo<VenueDoc, VenueResponse>;
  readonly organizers: DocumentMemo<OrganizerDoc, OrganizerResponse>;
  /** Event terms, per term, context and event count. */
  readonly eventTerms: DocumentMemo<TermDoc, EventTerm>;
}

export interface SerializeCacheSizes {
  /** The event JSON arena; 0 = off. */
  arenaBytes: number;
  /** Documents each memo keeps; 0 = off. */
  memoEntries: number;
}

/**
 * Terms are few beside venues and organizers (a calendar's categories and tags): this many hold
 * every term of a large calendar, so the term memo stops there whatever the venues' size.
 */
export const TERM_MEMO_MAX = 2_000;

export const NO_CACHES: SerializeCacheSizes = { arenaBytes: 0, memoEntries: 0 };

/** The sizes SERIALIZATION_ARENA_MB and SERIALIZATION_MEMO_ENTRIES ask for, or none on the `mongodb` engine. */
export function serializeCacheSizes(config: { serializationArenaMb: number; serializationMemoEntries: number }, engine: EngineName): SerializeCacheSizes {
  if (engine === 'mongodb') return NO_CACHES;
  return { arenaBytes: config.serializationArenaMb * 2 ** 20, memoEntries: config.serializationMemoEntries };
}

export function createSerializeCaches(sizes: SerializeCacheSizes): SerializeCaches {
  return {
    eventJsons: new JsonArena(sizes.arenaBytes),
    venues: new DocumentMemo(sizes.memoEntries),
    organizers: new DocumentMemo(sizes.memoEntries),
    eventTerms: new DocumentMemo(Math.min(sizes.memoEntries, TERM_MEMO_MAX)),
  };
}
