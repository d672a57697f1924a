/**
 * Fault injection into any engine, for the reliability tests: connection loss, failing the n-th
 * call, calls that never settle, slow calls, and writes that succeed but report a failure. Built on
 * the same interception as the production storage deadline (src/storage/deadline.ts), so a fault
 * reaches the app exactly where a real engine's failure would.
 */
import { StorageUnavailableError, StorageWriteUnconfirmedError } from '../../src/errors.js';
import { type CallName, interceptStorage } from '../../src/storage/deadline.js';
import { type Storage } from '../../src/storage/port.js';

export type { CallName };

const WRITE_METHODS: ReadonlySet<string> = new Set(['insertOne', 'insertMany', 'updateById', 'updateMany', 'deleteById', 'nextId']);

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
  const storage = interceptStorage(inner, async (name, call) => {
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
