/**
 * Storage contract: `explain` (port.ts) — the main shapes of the event list, compiled by the real
 * compiler (src/query/events.ts), are served by the indexes declared for them in indexes/events.ts
 * and never by a collection scan, on every engine (issue 5). MongoDB's answer comes from its
 * `queryPlanner` (IXSCAN / TEXT / COLLSCAN / SORT stages); the embedded engine reports the access
 * paths its planner chose. Each query runs twice first: the embedded engine keeps recurring clauses
 * as bitsets, which explain reports under the index they were built from.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileEventList, type EventListInput } from '../../src/query/events.js';
import { type Storage } from '../../src/storage/port.js';
import { enginesUnderTest } from '../helpers/engines.js';
import { makeEventDoc } from '../helpers/factories.js';

const { engines } = await enginesUnderTest();

const NOW = new Date('2026-06-01T12:00:00Z');
const DAY = 86_400_000;
const WORDS = ['harbour', 'jazz', 'market', 'lecture', 'garden', 'opera', 'family', 'winter'];

/** 4,000 events over two years around NOW: 40 venues, 25 organizers, 30 categories, 20 tags, series. */
function calendar() {
  return Array.from({ length: 4000 }, (_, i) =>
    makeEventDoc({
      _id: i + 1,
      slug: `plan-${i + 1}`,
      status: i % 10 === 0 ? 'draft' : 'publish',
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
    }),
  );
}

const SHAPES: Array<[name: string, input: Partial<EventListInput>, index: string]> = [
  ['the default list', {}, 'events_status_start'],
  ['a date window', { dates: { start_date: '2026-07-01', end_date: '2026-07-31' } }, 'events_status_start'],
  ['a category', { categoryIds: [305] }, 'events_categories_start'],
  ['a tag', { tagIds: [407] }, 'events_tags_start'],
  ['a venue', { venueIds: [112] }, 'events_venue_start'],
  ['an organizer', { organizerIds: [211] }, 'events_organizers_start'],
  ['a text search', { search: 'harbour' }, 'events_text'],
  ['include', { include: [5, 17, 2900] }, '_id_'],
  ['a series (post_parent)', { postParent: 2951 }, 'events_post_parent'],
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

    it.each(SHAPES.map(([name, shape, index]) => ({ name, shape, index })))('$name is served by $index, never by a collection scan', async ({ shape, index }) => {
      const input: EventListInput = { dates: {}, statuses: ['publish'], ...shape };
      const { query } = compileEventList(input, { now: NOW, siteTimezone: 'UTC', perPageMax: 50 });
      await storage.events.findPage(query);
      await storage.events.findPage(query);
      const plan = await storage.events.explain(query);
      expect(plan.collectionScan).toBe(false);
      expect(plan.indexes).toContain(index);
      expect(plan.sort).not.toBe('none');
    });

    it('reports a collection scan for a filter no index serves', async () => {
      const plan = await storage.events.explain({ filter: { allDay: true, showMapLink: false }, sort: [['_id', 1]] });
      expect(plan.collectionScan).toBe(true);
      expect(plan.indexes.filter((name) => name !== '_id_')).toEqual([]);
    });

    it('reports an ordered walk of the start-date index for the first page of the default list', async () => {
      const { query } = compileEventList({ dates: {}, statuses: ['publish'] }, { now: NOW, siteTimezone: 'UTC', perPageMax: 50 });
      const plan = await storage.events.explain(query);
      expect(plan.sort).toBe('index');
    });
  });
}
