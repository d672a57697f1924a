/**
 * Storage contract: `explain` (port.ts) — the main shapes of the event list, compiled by the real
 * compiler (src/query/events.ts), are served by the indexes declared for them in indexes/events.ts,
 * never by a collection scan, and — but for two shapes — in the order of that index, so a page is
 * read without sorting the matches. MongoDB's answer comes from its `queryPlanner` (IXSCAN / TEXT /
 * COLLSCAN / SORT / SORT_MERGE stages); the embedded engine reports the access paths its planner
 * chose and the index its ordered walk reads. Each query runs twice first: the embedded engine
 * keeps recurring clauses as bitsets, which explain reports under the index they were built from.
 *
 * Why each shape comes in index order on MongoDB: the list sorts by [startUtc, _id] (either
 * direction), and each shape's index is {f, startUtc, _id} where the filter pins f to points —
 * status (an `$in`, statusFilter), a venue, an organizer, a category, a tag, a series. One point
 * gives the order directly; several (the `$in` of statuses, a category with its descendants) are
 * read as one index scan per point merged by SORT_MERGE (explode-for-sort). The other conditions
 * (hidden, end date, the `$nor` of scheduled posts) are tested on the fetched documents.
 *
 * Two shapes are sorted in memory on MongoDB, over their matches only (no collection scan):
 * - text search: the TEXT stage returns its matches in no index order, so no index can give the
 *   start order — a blocking sort of the matching documents;
 * - include: at most 100 ids, found through `_id_` and sorted — cheaper than walking a start-date
 *   index for them.
 * For those the test asks for no collection scan and an order that is not left out (the embedded
 * engine may still walk an index).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileEventList, type EventListInput } from '../../src/query/events.js';
import { modifiedClauses } from '../../src/query/modified.js';
import { type Storage } from '../../src/storage/port.js';
import { enginesUnderTest } from '../helpers/engines.js';
import { makeEventDoc } from '../helpers/factories.js';

const { engines } = await enginesUnderTest();

const NOW = new Date('2026-06-01T12:00:00Z');
const DAY = 86_400_000;
const WORDS = ['harbour', 'jazz', 'market', 'lecture', 'garden', 'opera', 'family', 'winter'];

/**
 * 4,000 events over two years around NOW: 40 venues, 25 organizers, 30 categories, 20 tags, series;
 * drafts, and scheduled posts — half of them due (read as published), half still ahead.
 */
function calendar() {
  return Array.from({ length: 4000 }, (_, i) =>
    makeEventDoc({
      _id: i + 1,
      slug: `plan-${i + 1}`,
      status: i % 10 === 0 ? 'draft' : i % 10 === 5 ? 'future' : 'publish',
      dateUtc: new Date(NOW.getTime() + (i % 20 === 5 ? 30 : -30) * DAY),
      title: `${WORDS[i % WORDS.length]} evening ${i}`,
      startUtc: new Date(NOW.getTime() - 365 * DAY + i * 4.4 * 3_600_000),
      endUtc: new Date(NOW.getTime() - 365 * DAY + i * 4.4 * 3_600_000 + 7_200_000),
      venueId: 100 + (i % 40),
      organizerIds: [200 + (i % 25)],
      categoryIds: [300 + (i % 30)],
      tagIds: [400 + (i % 20)],
      featured: i % 13 === 0,
      postParent: i % 50 === 0 ? null : 1 + 50 * Math.floor(i / 50),
      hideFromListings: i % 97 === 0,
      // Ten minutes apart, the newest last: a sync pass of a day reads the last 144.
      modifiedUtc: new Date(NOW.getTime() - (4000 - i) * 600_000),
    }),
  );
}

/** The shapes served in index order: name, input, the index that serves them. */
const INDEX_ORDER: Array<[name: string, input: Partial<EventListInput>, index: string]> = [
  ['the default list', {}, 'events_status_start'],
  ['the default list, latest first', { order: -1 }, 'events_status_start'],
  ['a date window', { dates: { start_date: '2026-07-01', end_date: '2026-07-31' } }, 'events_status_start'],
  ['a date window, latest first', { dates: { start_date: '2026-07-01', end_date: '2026-07-31' }, order: -1 }, 'events_status_start'],
  ['a category', { categoryIds: [305] }, 'events_categories_start_id'],
  ['a category with its descendants', { categoryIds: [305, 306, 307] }, 'events_categories_start_id'],
  ['a tag', { tagIds: [407] }, 'events_tags_start_id'],
  ['a venue', { venueIds: [112] }, 'events_venue_start_id'],
  ['an organizer', { organizerIds: [211] }, 'events_organizers_start_id'],
  ['a series (post_parent)', { postParent: 2951 }, 'events_post_parent_start_id'],
  ['every status but trash (a token holder)', { statuses: ['publish', 'future', 'draft', 'pending', 'private'] }, 'events_status_start'],
  ['a sync pass (modified_after, orderby=modified)', syncPass(false), 'events_status_modified_id'],
  ['a sync pass of a token holder', { ...syncPass(false), statuses: ['publish', 'future', 'draft', 'pending', 'private'] }, 'events_status_modified_id'],
];

/**
 * A sync pass over the last day: modified_after and modified_before, ordered by modification time;
 * `late`: with the clauses of records whose scheduled publication fell within the window, as the
 * services add them when there are any (src/query/modified.ts).
 */
function syncPass(late: boolean): Partial<EventListInput> {
  const bounds = { after: new Date(NOW.getTime() - DAY), before: new Date(NOW.getTime() - 60_000) };
  const clauses = late ? { after: [{ _id: { $in: [6, 26] } }, { venueId: { $in: [105] } }], before: [{ _id: { $in: [46] } }] } : {};
  return { orderBy: 'modified', modifiedWindow: true, extra: modifiedClauses(bounds, clauses) };
}

/** The shapes sorted in memory on MongoDB, over their matches only (see the header). */
const MATCHES_SORTED: Array<[name: string, input: Partial<EventListInput>, index: string]> = [
  ['a text search', { search: 'harbour' }, 'events_text'],
  ['include', { include: [5, 17, 2900] }, '_id_'],
];

for (const engine of engines) {
  describe(`${engine.name} engine: explain`, () => {
    let storage: Storage;
    beforeAll(async () => {
      storage = await engine.open();
      await storage.ensureIndexes();
      for (const doc of calendar()) await storage.events.insertOne(doc);
    });
    afterAll(async () => {
      await storage.close();
    });

    const planOf = async (shape: Partial<EventListInput>) => {
      const input: EventListInput = { dates: {}, statuses: ['publish'], ...shape };
      const { query } = compileEventList(input, { now: NOW, siteTimezone: 'UTC', perPageMax: 50 });
      await storage.events.findPage(query);
      await storage.events.findPage(query);
      return storage.events.explain(query);
    };

    it.each(INDEX_ORDER.map(([name, shape, index]) => ({ name, shape, index })))('$name is read in the order of $index', async ({ shape, index }) => {
      const plan = await planOf(shape);
      expect(plan.collectionScan).toBe(false);
      expect(plan.indexes).toContain(index);
      expect(plan.sort).toBe('index');
    });

    it.each(MATCHES_SORTED.map(([name, shape, index]) => ({ name, shape, index })))(
      '$name is found through $index, never by a collection scan',
      async ({ shape, index }) => {
        const plan = await planOf(shape);
        expect(plan.collectionScan).toBe(false);
        expect(plan.indexes).toContain(index);
        expect(['index', 'memory']).toContain(plan.sort);
      },
    );

    it('finds a sync pass with scheduled publications in its window without a collection scan', async () => {
      // The `$or` of the window and the ids: whichever index the engine picks, never every document.
      const plan = await planOf(syncPass(true));
      expect(plan.collectionScan).toBe(false);
    });

    it('reports a collection scan for a filter no index serves', async () => {
      const plan = await storage.events.explain({ filter: { allDay: true, showMapLink: false }, sort: [['_id', 1]] });
      expect(plan.collectionScan).toBe(true);
      expect(plan.indexes.filter((name) => name !== '_id_')).toEqual([]);
    });

    it('reports no collection scan when the index finds nothing, whatever the unindexed conditions', async () => {
      // No trashed event: nothing is left for the unindexed date condition to be tested on.
      const plan = await storage.events.explain({
        filter: { status: 'trash', dateUtc: { $gt: NOW } },
        sort: [
          ['startUtc', 1],
          ['_id', 1],
        ],
      });
      expect(plan.collectionScan).toBe(false);
      expect(plan.indexes).toContain('events_status_start');
    });

    it('reports an ordered walk of the start-date index for the first page of the default list, before any run', async () => {
      // A different instant than the other tests': nothing of this filter is cached yet.
      const now = new Date(NOW.getTime() + 3_600_000);
      const { query } = compileEventList({ dates: {}, statuses: ['publish'] }, { now, siteTimezone: 'UTC', perPageMax: 50 });
      const plan = await storage.events.explain(query);
      expect(plan.collectionScan).toBe(false);
      expect(plan.indexes).toContain('events_status_start');
      expect(plan.sort).toBe('index');
    });
  });
}
