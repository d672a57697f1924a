/**
 * The one lock of the project: async tasks run one at a time per key, in arrival order (tasks of
 * different keys run freely). A task runs once the one before it has settled, fulfilled or not, so
 * a failed task never blocks the queue.
 *
 * The services' updates are read-modify-write: fields derived from several stored fields (search
 * terms from the title and description, all-day bounds from the dates and the time zone) must be
 * computed from the version the write replaces, or two concurrent updates of different fields
 * leave them stale. A store whose writes must reach its log in the order they changed memory
 * queues them under a `Mutex`, the same lock with a single key.
 */
export class KeyedLock<K> {
  private readonly tails = new Map<K, Promise<void>>();

  async run<T>(key: K, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => done);
    this.tails.set(key, tail);
    await previous;
    try {
      return await task();
    } finally {
      release();
      // The last task of a key leaves nothing behind.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Settles once every task of the key queued so far has settled (never rejects). */
  idle(key: K): Promise<void> {
    return this.tails.get(key) ?? Promise.resolve();
  }
}

/** Tasks one at a time, in call order: a KeyedLock with one key. */
export class Mutex {
  private readonly lock = new KeyedLock<null>();

  run<T>(task: () => Promise<T>): Promise<T> {
    return this.lock.run(null, task);
  }

  /** Settles once every task queued so far has settled (never rejects). */
  idle(): Promise<void> {
    return this.lock.idle(null);
  }
}
