/**
 * Upkeep done beside other work instead of by a job someone must run (expired records, old
 * tombstones): started by `poke`, at most once per `intervalMs` of the caller's clock, never two
 * runs at once, a failure reported to `onError` rather than thrown into the work that poked it.
 * A run that left work behind (a full batch) calls `again()`, and the next poke starts another.
 */
export interface Chore {
  poke: (at: Date) => void;
  /** The next poke runs the chore whatever the interval says. */
  again: () => void;
  /** The run in progress, if any (tests and shutdown wait for it). */
  running: () => Promise<number> | null;
}

export function createChore(intervalMs: number, run: (at: Date) => Promise<number>, onError: (error: unknown) => void): Chore {
  let nextAt = 0;
  let current: Promise<number> | null = null;
  return {
    poke: (at) => {
      if (current !== null || at.getTime() < nextAt) return;
      nextAt = at.getTime() + intervalMs;
      current = run(at);
      current
        .catch((error: unknown) => {
          onError(error);
          return 0;
        })
        .finally(() => {
          current = null;
        });
    },
    again: () => {
      nextAt = 0;
    },
    running: () => current,
  };
}
