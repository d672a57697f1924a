/**
 * statusFilter (src/query/status.ts): which stored documents it selects, and its shape.
 *
 * Semantics: the filter, run by the embedded engine over documents of random stored statuses and
 * publication dates, selects exactly those whose status as a reader sees it (effectiveStatus, at
 * `now` taken to the whole second) is one of the wanted statuses — for every set of wanted
 * statuses, on both sides of `now` and exactly at it.
 *
 * Shape: what MongoDB can serve in index order. Every filter holds one `$in` on `status` at its top
 * level (index bounds on the leading field of events_status_start, one point per status) and
 * never an `$or`; the exclusion of scheduled posts is a `$nor`, tested on fetched documents.
 * (The filter for each set of statuses is spelled out in events-query.test.ts.)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexes } from '../../indexes/index.js';
import { compileEventList } from '../../src/query/events.js';
import { NON_TRASH_STATUSES, statusFilter } from '../../src/query/status.js';
import { effectiveStatus } from '../../src/services/access.js';
import { createEmbeddedStorage } from '../../src/storage/embedded/index.js';
import { type EventDoc, type Filter, POST_STATUSES, type PostStatus } from '../../src/storage/port.js';
import { makeEventDoc } from '../helpers/factories.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const SECOND = 1000;

/** Publication dates around `now`, often exactly on it or within a second of it. */
const offset = fc.oneof(
  fc.constantFrom(0, -1, 1, -SECOND, SECOND, -SECOND + 1, SECOND - 1),
  fc.integer({ min: -3 * SECOND, max: 3 * SECOND }),
  fc.integer({ min: -400 * 86_400_000, max: 400 * 86_400_000 }),
);
const status = fc.constantFrom(...POST_STATUSES);
const wantedSet = fc.uniqueArray(status, { minLength: 1, maxLength: POST_STATUSES.length });

describe('statusFilter: selects the statuses readers see', () => {
  it('matches exactly the documents whose effective status is wanted (random documents, wanted sets and instants)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ status, offset }), { minLength: 1, maxLength: 25 }),
        wantedSet,
        // Sub-second instants too: the filter takes `now` to the whole second.
        fc.integer({ min: 0, max: SECOND - 1 }),
        async (drafts, wanted, milliseconds) => {
          const at = new Date(NOW.getTime() + milliseconds);
          const storage = createEmbeddedStorage({ indexes, reason: 'test' });
          await storage.ensureIndexes();
          const docs: EventDoc[] = drafts.map((d, i) =>
            makeEventDoc({ _id: i + 1, slug: `s-${i + 1}`, status: d.status, dateUtc: new Date(NOW.getTime() + d.offset) }),
          );
          for (const doc of docs) await storage.events.insertOne(doc);
          const found = (await storage.events.find({ filter: statusFilter(wanted, at), sort: [['_id', 1]] })).map((d) => d._id);
          const expected = docs.filter((d) => wanted.includes(effectiveStatus(d, NOW))).map((d) => d._id);
          await storage.close();
          expect(found).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('moves a scheduled post from future to publish at its date, not a millisecond earlier', async () => {
    const storage = createEmbeddedStorage({ indexes, reason: 'test' });
    await storage.ensureIndexes();
    await storage.events.insertOne(makeEventDoc({ _id: 1, slug: 'due', status: 'future', dateUtc: NOW }));
    const ids = async (statuses: PostStatus[], at: Date) => (await storage.events.find({ filter: statusFilter(statuses, at) })).map((d) => d._id);
    expect(await ids(['publish'], new Date(NOW.getTime() - 1))).toEqual([]);
    expect(await ids(['future'], new Date(NOW.getTime() - 1))).toEqual([1]);
    expect(await ids(['publish'], NOW)).toEqual([1]);
    expect(await ids(['future'], NOW)).toEqual([]);
    expect(await ids(['publish', 'future'], new Date(NOW.getTime() - 1))).toEqual([1]);
    expect(await ids(['draft'], NOW)).toEqual([]);
    await storage.close();
  });
});

describe('statusFilter: its shape', () => {
  const topLevelIn = (filter: Filter): unknown => (filter.status as { $in?: unknown } | undefined)?.$in;

  it('takes now to the whole second', () => {
    expect(statusFilter(['publish'], new Date(NOW.getTime() + 999))).toEqual(statusFilter(['publish'], NOW));
  });

  it('always has one top-level $in on status, at most one $nor, and never an $or (any wanted set)', () => {
    fc.assert(
      fc.property(wantedSet, (wanted) => {
        const filter = statusFilter(wanted, NOW);
        expect(Object.keys(filter).sort()).toEqual(Object.keys(filter).length === 1 ? ['status'] : ['$nor', 'status']);
        const stored = topLevelIn(filter);
        const expected = POST_STATUSES.filter((s) => wanted.includes(s) || (s === 'future' && wanted.includes('publish')));
        expect(stored).toEqual(expected);
        expect(filter.$nor === undefined).toBe(wanted.includes('publish') === wanted.includes('future'));
        expect(JSON.stringify(filter)).not.toContain('$or');
      }),
    );
  });

  it('reaches the compiled event list as its first clause, the list holding no $or', () => {
    for (const statuses of [['publish'], [...NON_TRASH_STATUSES], ['future'], ['draft', 'publish']] as PostStatus[][]) {
      const { query } = compileEventList({ dates: {}, statuses }, { now: NOW, siteTimezone: 'UTC', perPageMax: 50 });
      expect(query.filter.$and?.[0]).toEqual(statusFilter(statuses, NOW));
      expect(JSON.stringify(query.filter)).not.toContain('$or');
    }
  });
});
