/**
 * The change version of a storage (port `changeVersion`): a number that grows with every write, so
 * that whatever was computed from the data at one version is known current while the version
 * stands. Each engine counts its own writes here, once per storage instance, so every app sharing
 * one storage sees the same number; an engine several processes share (MongoDB) also counts the
 * writes of the others (src/storage/mongodb/change-version.ts).
 */
import { COLLECTION_METHODS, type Collection } from './port.js';

/** The collection methods that change data; every other method only reads. */
export const WRITE_METHODS = ['insertOne', 'insertMany', 'updateById', 'updateMany', 'deleteById'] as const;

/**
 * `collection` whose writes call `written` once they have settled — succeeded or failed, as a
 * failed write may have changed something (a partial bulk insert, an unconfirmed update) — and
 * before the caller learns the outcome. Every other method is the collection's own.
 */
export function trackWrites<T extends { _id: number }>(collection: Collection<T>, written: () => void | Promise<void>): Collection<T> {
  const tracked: Record<string, unknown> = {};
  for (const method of COLLECTION_METHODS) {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called through `apply` on its own collection
    const own = collection[method] as (...args: unknown[]) => Promise<unknown>;
    tracked[method] = (WRITE_METHODS as readonly string[]).includes(method)
      ? async (...args: unknown[]) => {
          try {
            return await own.apply(collection, args);
          } finally {
            await written();
          }
        }
      : (...args: unknown[]) => own.apply(collection, args);
  }
  return tracked as unknown as Collection<T>;
}
