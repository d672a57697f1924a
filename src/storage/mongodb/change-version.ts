/**
 * The change version of a MongoDB storage that other processes share: a counter document
 * (`counters`, `_id: "changes"`) that every write increments once it has settled, and that each
 * process reads every POLL_MS. The version is this process's own write count plus the counter as
 * last seen: both only grow, so the sum changes with every write of this process at once, and with
 * the writes of the others within POLL_MS plus one read. An increment that fails (the server
 * unreachable for a moment) is retried by the next poll, so other processes still learn of the write.
 */
import { type Collection as DriverCollection } from 'mongodb';
import { type CounterDoc } from './counters.js';

/** How often the shared counter is read: the longest another process's write stays unseen, less one read. */
export const POLL_MS = 500;
const ID = 'changes' as CounterDoc['_id'];

export interface SharedChangeVersion {
  version(): number;
  /** Counts one write of this process (awaited by the write, so its caller sees the count). */
  written(): Promise<void>;
  /** Reads the shared counter now (the poll's step; also for tests). */
  refresh(): Promise<void>;
  stop(): void;
}

export function createSharedChangeVersion(counters: DriverCollection<CounterDoc>, limits: { operationMS: number }): SharedChangeVersion {
  let own = 0;
  let shared = 0;
  let unsent = 0;
  let polling = false;
  const seen = (value: number | undefined) => {
    if (value !== undefined && value > shared) shared = value;
  };

  async function send(count: number): Promise<void> {
    try {
      const after = await counters.findOneAndUpdate(
        { _id: ID },
        { $inc: { value: count } },
        { upsert: true, returnDocument: 'after', maxTimeMS: limits.operationMS },
      );
      seen(after?.value);
    } catch {
      // The write itself stands; the next poll sends the increment again.
      unsent += count;
    }
  }

  async function refresh(): Promise<void> {
    if (unsent > 0) {
      const count = unsent;
      unsent = 0;
      await send(count);
    }
    try {
      seen((await counters.findOne({ _id: ID }, { maxTimeMS: limits.operationMS }))?.value);
    } catch {
      // Unreachable for now: the next poll tries again.
    }
  }

  const timer = setInterval(() => {
    if (polling) return;
    polling = true;
    void refresh().finally(() => {
      polling = false;
    });
  }, POLL_MS);
  timer.unref();

  return {
    version: () => own + shared,
    async written() {
      own++;
      await send(1);
    },
    refresh,
    stop: () => clearInterval(timer),
  };
}
