/**
 * The order and the fate of the durable storage's writes: a mutex applies and queues them one at a
 * time, each waits for its commit, and a failed commit stops the storage for good (see the module
 * comment of index.ts).
 */
import { StorageUnavailableError } from '../../errors.js';
import { Mutex } from '../../lib/keyed-lock.js';

export type WriteQueue = ReturnType<typeof createWriteQueue>;

export function createWriteQueue(
  log: { warn(msg: string): void },
  /** A seam for tests: given the commit of each write, returns what is awaited instead (LmdbStorageOptions.hooks). */
  hooks: { commit?(committed: Promise<unknown>): Promise<unknown> } | undefined,
) {
  let closed = false;
  let failure: Error | null = null;
  /** The commit of the last write queued: every earlier one is committed once it is. */
  let last: Promise<unknown> = Promise.resolve();
  /** Applies writes and queues them one at a time, in call order. */
  const mutex = new Mutex();

  const unavailable = (): StorageUnavailableError =>
    failure !== null && !closed
      ? new StorageUnavailableError({ key: 'errorMessage.storage-unavailable.notWritable', values: { detail: failure.message } })
      : new StorageUnavailableError('errorMessage.storage-unavailable.durableClosed');
  const assertUsable = (): void => {
    if (closed || failure !== null) throw unavailable();
  };
  /** Stops the storage when memory and disk may disagree. */
  const failWith = (error: unknown): StorageUnavailableError => {
    if (failure === null) {
      failure = error instanceof Error ? error : new Error(String(error));
      log.warn(`durable storage: stopped, writes are refused until restart: ${failure.message}`);
    }
    return unavailable();
  };
  /** Tracks the commit of a write's last put or remove (those before it are in its transaction or an earlier one). */
  const queued = (write: Promise<unknown>): Promise<unknown> => {
    const committed = (hooks?.commit?.(write) ?? write).catch((error: unknown) => {
      throw failWith(error);
    });
    // Callers that do not wait (nextId, a bulk load) must not turn a failure into an unhandled rejection.
    committed.catch(() => undefined);
    return (last = committed);
  };

  /**
   * Applies a write and queues it under the mutex, then waits outside it (so writes share commits)
   * for its commit, or for what is queued if it changed nothing (its answer may rest on that).
   */
  async function mutate<R>(bulk: boolean, apply: () => Promise<{ result: R; committed: Promise<unknown> | null }>): Promise<R> {
    assertUsable();
    const { result, committed } = await mutex.run(() => {
      if (failure !== null) throw unavailable();
      return apply();
    });
    if (!bulk) await (committed ?? last).catch(() => Promise.reject(unavailable()));
    return result;
  }

  return {
    unavailable,
    assertUsable,
    failWith,
    queued,
    mutate,
    /** Waits for the last commit; rejects when the storage is stopped. */
    settle: async (): Promise<void> => void (assertUsable(), await last.catch(() => Promise.reject(unavailable()))),
    /** Refuses every later call, then waits for the writes already queued on the mutex and their commits. */
    async close(): Promise<void> {
      closed = true;
      await mutex.idle();
      await last.catch(() => undefined);
    },
    /** Whether a commit failed (writes not acknowledged may then be missing). */
    failed: (): boolean => failure !== null,
  };
}
