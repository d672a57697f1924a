/**
 * The storage deadline, applied once in buildApp: every storage call that does not settle within
 * STORAGE_TIMEOUT_MS rejects with StorageUnavailableError, so a hung engine answers 503
 * `storage-unavailable` well before the request timeout.
 */
import { StorageUnavailableError } from '../errors.js';
import { WRITE_METHODS } from './change-version.js';
import { COLLECTION_METHODS, COLLECTION_NAMES, type Collection, type CollectionName, type Storage } from './port.js';

type AnyCollection = Collection<{ _id: number }>;
type Method = keyof AnyCollection;

/** The name of an intercepted call: `events.find`, `nextId`, `ping`. */
export type CallName = `${CollectionName}.${Method}` | 'nextId' | 'ping';

export type Intercept = (name: CallName, call: () => Promise<unknown>) => Promise<unknown>;

const WRITES: ReadonlySet<string> = new Set(WRITE_METHODS);

/**
 * A Storage whose collection methods, nextId and ping go through `intercept`; ensureIndexes and
 * close are passed on (they run at start and stop, outside any request). `passReads`: the
 * collections' reads are the inner storage's own, not intercepted. The result never claims
 * `readsSettleAtOnce`: `intercept` may delay a call.
 */
export function interceptStorage(inner: Storage, intercept: Intercept, { passReads = false } = {}): Storage {
  const wrapCollection = (collectionName: CollectionName): AnyCollection => {
    const target = inner[collectionName] as unknown as AnyCollection;
    const wrapped: Record<string, unknown> = {};
    for (const method of COLLECTION_METHODS) {
      // eslint-disable-next-line @typescript-eslint/unbound-method -- called through `apply` on its own collection
      const fn = target[method] as (...args: unknown[]) => Promise<unknown>;
      wrapped[method] =
        passReads && !WRITES.has(method) ? fn.bind(target) : (...args: unknown[]) => intercept(`${collectionName}.${method}`, () => fn.apply(target, args));
    }
    return wrapped as unknown as AnyCollection;
  };
  const collections = Object.fromEntries(COLLECTION_NAMES.map((name) => [name, wrapCollection(name)]));
  return {
    engine: inner.engine,
    reason: inner.reason,
    ...(collections as Pick<Storage, CollectionName>),
    nextId: (sequence, count) => intercept('nextId', () => inner.nextId(sequence, count)) as Promise<number>,
    ping: () => intercept('ping', () => inner.ping()) as Promise<void>,
    changeVersion: () => inner.changeVersion(),
    ensureIndexes: () => inner.ensureIndexes(),
    close: () => inner.close(),
  };
}

/**
 * Every storage call (collections, nextId, ping) must settle within `timeoutMs`, else it rejects
 * with StorageUnavailableError (503 + Retry-After). 0 turns the deadline off. A write that timed out
 * may still complete later: it is reported as a 503, never as a success. The reads of a storage
 * whose reads settle at once (`readsSettleAtOnce`: the embedded engines) go without a timer, which
 * could never fire before they settle; its writes keep the deadline (the durable engine's wait
 * for their commit).
 */
export function withStorageDeadline(inner: Storage, timeoutMs: number): Storage {
  if (timeoutMs <= 0) return inner;
  return interceptStorage(inner, deadline(timeoutMs), { passReads: inner.readsSettleAtOnce === true });
}

function deadline(timeoutMs: number): Intercept {
  return (_name, call) => {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StorageUnavailableError('errorMessage.storage-unavailable.timeout')), timeoutMs);
      timer.unref();
    });
    const work = call();
    // A late rejection of the abandoned call must not become an unhandled rejection.
    work.catch(() => undefined);
    return Promise.race([work, expired]).finally(() => clearTimeout(timer));
  };
}
