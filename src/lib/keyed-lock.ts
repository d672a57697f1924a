/**
 * Runs async tasks one at a time per key, in arrival order (tasks of different keys run freely).
 * Updates are read-modify-write: fields derived from several stored fields (search terms from the
 * title and description, all-day bounds from the dates and the time zone) must be computed from
 * the version the write replaces, or two concurrent updates of different fields leave them stale.
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
}
