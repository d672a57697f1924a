/**
 * The embedded engine: an in-process `Storage` with MongoDB semantics for the port's query
 * language, built from the same index definitions as the mongodb engine.
 */
import { StorageUnavailableError } from '../../errors.js';
import {
  assertIdCount,
  COLLECTION_NAMES,
  type CategoryDoc,
  type CollectionName,
  type EventDoc,
  type IdempotencyDoc,
  type IndexSet,
  type OrganizerDoc,
  type SequenceName,
  type Storage,
  type TagDoc,
  type SeriesDoc,
  type TombstoneDoc,
  type VenueDoc,
} from '../port.js';
import { trackWrites } from '../change-version.js';
import { EmbeddedCollection } from './collection.js';

export interface EmbeddedStorageOptions {
  indexes: IndexSet;
  /** Why this engine was chosen (shown at start-up and by the readiness route). */
  reason: string;
}

export function createEmbeddedStorage(options: EmbeddedStorageOptions): Storage {
  let closed = false;
  const assertOpen = (): void => {
    if (closed) throw new StorageUnavailableError('errorMessage.storage-unavailable.embeddedClosed');
  };
  const open = <T extends { _id: number }>(name: CollectionName): EmbeddedCollection<T> =>
    new EmbeddedCollection<T>({ name, definitions: options.indexes[name], assertOpen });

  const events = open<EventDoc>('events');
  const venues = open<VenueDoc>('venues');
  const organizers = open<OrganizerDoc>('organizers');
  const categories = open<CategoryDoc>('categories');
  const tags = open<TagDoc>('tags');
  const idempotency = open<IdempotencyDoc>('idempotency');
  const tombstones = open<TombstoneDoc>('tombstones');
  const series = open<SeriesDoc>('series');
  const collections: Record<CollectionName, EmbeddedCollection<{ _id: number }>> = {
    events,
    venues,
    organizers,
    categories,
    tags,
    idempotency,
    tombstones,
    series,
  };
  const sequences = new Map<SequenceName, number>();
  // One process holds the data: its own writes are all the writes there are.
  let version = 0;
  const track = <T extends { _id: number }>(collection: EmbeddedCollection<T>) =>
    trackWrites(collection, () => {
      version++;
    });

  return {
    engine: 'embedded',
    reason: options.reason,
    // Every read is answered from memory, synchronously, in the collection's methods.
    readsSettleAtOnce: true,
    events: track(events),
    venues: track(venues),
    organizers: track(organizers),
    categories: track(categories),
    tags: track(tags),
    idempotency: track(idempotency),
    tombstones: track(tombstones),
    series: track(series),
    changeVersion: () => version,
    async nextId(sequence, count = 1) {
      assertOpen();
      assertIdCount(count);
      const first = (sequences.get(sequence) ?? 0) + 1;
      sequences.set(sequence, first + count - 1);
      return first;
    },
    async ensureIndexes() {
      assertOpen();
      for (const name of COLLECTION_NAMES) collections[name].ensureIndexes();
    },
    async ping() {
      assertOpen();
    },
    async close() {
      closed = true;
    },
  };
}
