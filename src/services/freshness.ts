/**
 * How long an answer stays true while nothing is written. Besides writes (the storage's change
 * version), only the clock changes what a read answers, at two kinds of instants:
 *
 * - local midnight in the site's zone: the event list's default window and inclusive date bounds
 *   are whole local days (src/query/events.ts);
 * - the next scheduled publication: a `future` event, venue or organizer becomes public, which also
 *   changes term counts and `has_events`.
 *
 * Reads whose answer moves with the clock between those instants (relative dates such as `now`,
 * `only_with_upcoming`) are not kept at all; the routes say which (src/plugins/http-cache.ts).
 */
import { endOfLocalDay } from '../lib/dates/index.js';
import { type Storage } from '../storage/port.js';

export interface FreshnessDeps {
  storage: Pick<Storage, 'events' | 'venues' | 'organizers' | 'changeVersion'>;
  siteTimezone: string;
  now: () => Date;
}

const SCHEDULED = ['events', 'venues', 'organizers'] as const;

export function createFreshness({ storage, siteTimezone, now }: FreshnessDeps) {
  /** The first scheduled publication after `at` (ms; Infinity: none), as of one change version. */
  let memo: { version: number; next: Promise<number> } | null = null;

  async function nextPublication(at: Date): Promise<number> {
    const filter = { status: 'future', dateUtc: { $gt: at } };
    const firsts = await Promise.all(
      SCHEDULED.map((name) =>
        storage[name].find({
          filter,
          sort: [
            ['dateUtc', 1],
            ['_id', 1],
          ],
          limit: 1,
        }),
      ),
    );
    return Math.min(...firsts.flat().map((doc) => doc.dateUtc.getTime()));
  }

  return {
    /**
     * The instant (ms) until which an answer computed now stays true if nothing is written: the
     * next local midnight or the next scheduled publication, whichever comes first.
     */
    async validUntil(): Promise<number> {
      const at = now();
      const version = storage.changeVersion();
      let next = memo !== null && memo.version === version ? await memo.next : -Infinity;
      if (next <= at.getTime()) {
        const pending = nextPublication(at);
        memo = { version, next: pending };
        // A failed look-up must not be remembered.
        pending.catch(() => {
          if (memo?.next === pending) memo = null;
        });
        next = await pending;
      }
      return Math.min(endOfLocalDay(at, siteTimezone).getTime() + 1, next);
    },
  };
}

export type Freshness = ReturnType<typeof createFreshness>;
