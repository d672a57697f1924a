/**
 * Storage wrappers for reliability (issue 10):
 * - `withStorageDeadline` (production, applied once in buildApp): every storage call that does not
 *   settle within `timeoutMs` rejects with StorageUnavailableError, so a hung engine answers
 *   503 `storage-unavailable` well before the request timeout.
 * - `createFaultyStorage` (tests): injects faults into any engine — connection loss, failing the
 *   n-th call, calls that never settle, slow calls, and writes that succeed but report a failure.
 */
import { StorageUnavailableError, StorageWriteUnconfirmedError } from '../errors.js';
import { COLLECTION_NAMES, type Collection, type CollectionName, type Storage } from './port.js';

type AnyCollection = Collection<{ _id: number }>;
type Method = keyof AnyCollection;

const COLLECTION_METHODS = [
  'insertOne',
  'insertMany',
  'findById',
  'findOne',
  'find',
  'findPage',
  'count',
  'distinct',
  'countValues',
  'updateById',
  'updateMany',
  'near',
  'deleteById',
  'explain',
] as const satisfies readonly Method[];

const WRITE_METHODS: ReadonlySet<string> = new Set(['insertOne', 'insertMany', 'updateById', 'updateMany', 'deleteById', 'nextId']);

/** The name of an intercepted call: `events.find`, `nextId`, `ping`. */
export type CallName = `${CollectionName}.${Method}` | 'nextId' | 'ping';

type Intercept = (name: CallName, call: () => Promise<unknown>) => Promise<unknown>;

/** A Storage whose collection methods, nextId and ping go through `intercept`; the rest is passed on. */
function wrapStorage(inner: Storage, intercept: Intercept): Storage {
  const wrapCollection = (collectionName: CollectionName): AnyCollection => {
    const target = inner[collectionName] as unknown as AnyCollection;
    const wrapped: Record<string, unknown> = {};
    for (const method of COLLECTION_METHODS) {
      const fn = target[method] as (...args: unknown[]) => Promise<unknown>;
      wrapped[method] = (...args: unknown[]) => intercept(`${collectionName}.${method}`, () => fn.apply(target, args));
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
    ensureIndexes: () => inner.ensureIndexes(),
    close: () => inner.close(),
  };
}

/**
 * Every storage call (collections, nextId, ping) must settle within `timeoutMs`, else it rejects
 * with StorageUnavailableError (503 + Retry-After). 0 turns the deadline off. A write that timed out
 * may still complete later: it is reported as a 503, never as a success.
 */
export function withStorageDeadline(inner: Storage, timeoutMs: number): Storage {
  if (timeoutMs <= 0) return inner;
  return wrapStorage(inner, (_name, call) => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StorageUnavailableError('errorMessage.storage-unavailable.timeout')), timeoutMs);
      timer.unref();
    });
    const work = call();
    // A late rejection of the abandoned call must not become an unhandled rejection.
    work.catch(() => undefined);
    return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
  });
}

export type FaultKind =
  /** Throw StorageUnavailableError before the call reaches storage (connection lost). */
  | 'unavailable'
  /** Never settle (a hung connection): only a deadline can end the request. */
  | 'hang'
  /** Answer correctly after `delayMs`. */
  | 'slow'
  /** Let the call reach storage and succeed, then throw StorageUnavailableError (unknown outcome). */
  | 'lost-ack'
  /** Let the call reach storage and succeed, then throw StorageWriteUnconfirmedError (a write-concern timeout). */
  | 'unconfirmed';

export interface FaultPlan {
  kind: FaultKind;
  /** Only these calls are faulted (default: all). `writes` = insertOne, updateById, updateMany, deleteById, nextId. */
  only?: 'all' | 'reads' | 'writes' | ((name: CallName) => boolean);
  /** Fault only the n-th matching call (1-based), counting from when the plan was set; else every matching call. */
  nth?: number;
  /** For `slow`. */
  delayMs?: number;
}

export interface FaultyStorage extends Storage {
  /** Set (or replace) the active fault; resets the call counter. */
  inject(plan: FaultPlan): void;
  /** Clear the fault: every call behaves normally again (hung calls stay hung). */
  clear(): void;
  /** How many calls were faulted since the last inject. */
  readonly faulted: number;
  /** Every call name seen, in order (for assertions). */
  readonly calls: readonly CallName[];
}

function matches(plan: FaultPlan, name: CallName): boolean {
  const only = plan.only ?? 'all';
  if (typeof only === 'function') return only(name);
  if (only === 'all') return true;
  const method = name.includes('.') ? name.slice(name.indexOf('.') + 1) : name;
  const isWrite = WRITE_METHODS.has(method);
  return only === 'writes' ? isWrite : !isWrite;
}

export function createFaultyStorage(inner: Storage, initial: FaultPlan | null = null): FaultyStorage {
  let plan: FaultPlan | null = initial;
  let seen = 0;
  let faulted = 0;
  const calls: CallName[] = [];
  const storage = wrapStorage(inner, async (name, call) => {
    calls.push(name);
    const active = plan;
    if (active === null || !matches(active, name)) return call();
    seen += 1;
    if (active.nth !== undefined && seen !== active.nth) return call();
    faulted += 1;
    switch (active.kind) {
      case 'unavailable':
        throw new StorageUnavailableError();
      case 'hang':
        return new Promise<never>(() => undefined);
      case 'slow':
        await new Promise((resolve) => setTimeout(resolve, active.delayMs ?? 100));
        return call();
      case 'lost-ack':
        await call();
        throw new StorageUnavailableError();
      case 'unconfirmed':
        await call();
        throw new StorageWriteUnconfirmedError();
    }
  });
  const controls = {
    inject(next: FaultPlan) {
      plan = next;
      seen = 0;
      faulted = 0;
    },
    clear() {
      plan = null;
    },
    calls,
  };
  const result = Object.assign(storage, controls);
  Object.defineProperty(result, 'faulted', { get: () => faulted, enumerable: true });
  return result as unknown as FaultyStorage;
}
