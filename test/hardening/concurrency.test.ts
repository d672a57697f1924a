/**
 * Concurrency: many writers and readers at once through the HTTP layer.
 *
 * - Updates are per-field last-writer-wins: a write changes only the fields it names, and updates
 *   of one record run read-modify-write one at a time (src/lib/keyed-lock.ts), so concurrent
 *   updates of different fields lose none of them and derived fields (search terms) follow the
 *   latest title.
 * - Concurrent creates under one title get distinct slugs.
 * - Totals and term counts agree with the store after the load.
 *
 * Storage calls go through ../helpers/latency.ts so requests interleave at every call.
 * 50 clients at once: 25 writers, each owning one field of one of five events and writing it
 * WRITES times, and 25 readers listing, searching and reading single events READS times each.
 * Counted, not timed: a busy machine does the same work, only slower.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API, EDITOR, type TestApp, createEventOk, insertCategory, json, openTestApp } from '../helpers/app.js';
import { enginesUnderTest } from '../helpers/engines.js';
import { slowEngine } from '../helpers/latency.js';

const { engines } = await enginesUnderTest();

const WRITES = 8;
const READS = 8;
/** The events lie in 2030, past the default window (now to +24 months). */
const WINDOW = 'start_date=2030-01-01&end_date=2031-01-01';
const FIELDS = ['title', 'description', 'excerpt', 'website', 'cost'] as const;

for (const engine of engines) {
  describe(`${engine.name} engine: concurrent writers and readers`, () => {
    let t: TestApp;
    beforeEach(async () => {
      // Every storage call yields to the event loop (as a round trip to MongoDB does), so
      // concurrent requests really interleave between reading a record and writing it.
      t = await openTestApp(slowEngine(engine));
    });
    afterEach(async () => {
      await t.close();
    });

    it('loses no field, keeps derived fields current, and keeps totals and counts consistent', async () => {
      const category = await insertCategory(t.storage, { name: 'Concurrency', slug: 'concurrency' });
      const ids: number[] = [];
      for (let i = 0; i < 5; i++)
        ids.push(
          (
            await createEventOk(t.app, {
              title: `Startword${i}`,
              categories: [category._id],
              start_date: `2030-06-1${i} 19:00:00`,
              end_date: `2030-06-1${i} 21:00:00`,
            })
          ).id as number,
        );

      /** The last value each writer saw acknowledged, per event and field. */
      const acknowledged = new Map<string, string>();
      const failures: string[] = [];
      const value = (field: (typeof FIELDS)[number], event: number, n: number): string => {
        const word = `w${event}x${FIELDS.indexOf(field)}n${n}`;
        if (field === 'website') return `https://example.org/${word}`;
        if (field === 'cost') return String(n);
        return field === 'title' ? `Title${word}` : `Text ${word}`;
      };

      const writer = async (event: number, field: (typeof FIELDS)[number]): Promise<void> => {
        for (let n = 1; n <= WRITES; n++) {
          const response = await t.app.inject({ method: 'POST', url: `${API}/events/${event}`, headers: EDITOR, payload: { [field]: value(field, event, n) } });
          if (response.statusCode !== 200) failures.push(`write ${field} of ${event}: ${response.statusCode} ${response.body}`);
          else acknowledged.set(`${event}:${field}`, value(field, event, n));
        }
      };
      const reader = async (k: number): Promise<void> => {
        for (let n = 0; n < READS; n++) {
          // inject() of a GET settles in microtasks alone; a real client's next request arrives
          // through I/O, which lets the writers' request bodies be read in between.
          await new Promise((resolve) => setImmediate(resolve));
          const url =
            k % 3 === 0
              ? `${API}/events?per_page=50&${WINDOW}`
              : k % 3 === 1
                ? `${API}/events/${ids[k % ids.length]}`
                : `${API}/events?categories=${category._id}&${WINDOW}`;
          const response = await t.app.inject({ url });
          if (response.statusCode !== 200) failures.push(`read ${url}: ${response.statusCode}`);
          else if (k % 3 !== 1 && json<{ total: number }>(response).total !== ids.length)
            failures.push(`read ${url}: total ${json<{ total: number }>(response).total}`);
        }
      };

      const writers = ids.flatMap((event) => FIELDS.map((field) => writer(event, field)));
      const readers = Array.from({ length: 25 }, (_, k) => reader(k));
      await Promise.all([...writers, ...readers]);
      expect(failures.slice(0, 5)).toEqual([]);

      for (const event of ids) {
        const body = json<Record<string, unknown>>(await t.app.inject({ url: `${API}/events/${event}` }));
        expect(body.title).toBe(acknowledged.get(`${event}:title`));
        expect(body.description).toBe(`<p>${acknowledged.get(`${event}:description`)}</p>`);
        expect(body.excerpt).toBe(`<p>${acknowledged.get(`${event}:excerpt`)}</p>`);
        expect(body.website).toBe(acknowledged.get(`${event}:website`));
        expect((body.cost_details as { values: string[] }).values).toEqual([acknowledged.get(`${event}:cost`)]);
        // Search terms were derived from the final title, not from a version another writer replaced.
        const title = acknowledged.get(`${event}:title`)!;
        const found = json<{ events: Array<{ id: number }> }>(await t.app.inject({ url: `${API}/events?search=${encodeURIComponent(title)}&${WINDOW}` }));
        expect(found.events.map((e) => e.id)).toEqual([event]);
        const stale = json<{ events: unknown[] }>(await t.app.inject({ url: `${API}/events?search=Startword${ids.indexOf(event)}&${WINDOW}` }));
        expect(stale.events).toEqual([]);
      }

      const list = await t.app.inject({ url: `${API}/events?per_page=50&${WINDOW}` });
      expect(json<{ total: number }>(list).total).toBe(ids.length);
      expect(list.headers['x-tec-total']).toBe(String(ids.length));
      const term = json<{ count: number }>(await t.app.inject({ url: `${API}/categories/${category._id}` }));
      expect(term.count).toBe(ids.length);
    });

    it('gives concurrent creates under one title distinct slugs', async () => {
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          t.app.inject({
            method: 'POST',
            url: `${API}/events`,
            headers: EDITOR,
            payload: { title: 'Same title', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' },
          }),
        ),
      );
      expect(responses.map((r) => r.statusCode)).toEqual(Array.from({ length: 20 }, () => 201));
      const slugs = responses.map((r) => json<{ slug: string }>(r).slug);
      expect(new Set(slugs).size).toBe(20);
      expect(slugs).toContain('same-title');
    });
  });
}
