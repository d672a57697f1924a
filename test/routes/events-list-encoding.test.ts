/**
 * The event list is sent pre-encoded (src/serialize/list.ts `jsonEnvelope`, events remembered as
 * JSON per stored version): these tests hold it to exactly what Fastify's serializer for the
 * route's response schema writes for the same list, over the whole seed calendar, and check that
 * remembered encodings follow every change of an event and of what it embeds.
 */
import fastJsonStringify from 'fast-json-stringify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventListResponseSchema } from '../../src/schemas/events.js';
import { bodySlabsAllocated } from '../../src/serialize/list.js';
import { seedIfEmpty } from '../../src/import/seed-on-start.js';
import { API, EDITOR, type TestApp, openTestApp } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();

const schemaSerializer = fastJsonStringify(EventListResponseSchema);

/** What these tests read of a listed event. */
interface ListedEvent {
  id: number;
  title: string;
  venue: { id: number; venue: string };
  categories: Array<{ id: number; count: number }>;
}
interface EventList {
  events: ListedEvent[];
}

for (const engine of engines) {
  describe(`${engine.name} engine: pre-encoded event lists`, () => {
    let t: TestApp;
    beforeAll(async () => {
      // The response cache off: these tests are about encoding each answer, not serving it again.
      t = await openTestApp(engine, { RESPONSE_CACHE_BYTES: '0' });
      await seedIfEmpty({ storage: t.storage, config: { seedOnStart: true, siteTimezone: 'UTC', perPageMax: 50 }, log: { info: () => undefined } });
    });
    afterAll(async () => {
      await t.close();
    });

    const list = async (query: string, headers: Record<string, string> = {}) => {
      const response = await t.app.inject({ url: `${API}/events?${query}`, headers });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Number(response.headers['content-length'])).toBe(response.rawPayload.length);
      return response;
    };

    it.each([
      'per_page=50&start_date=2000-01-01&end_date=2100-01-01',
      'per_page=50&page=2&start_date=2000-01-01&end_date=2100-01-01',
      'per_page=50&page=3&start_date=2000-01-01&end_date=2100-01-01',
      'per_page=50&page=7&start_date=2000-01-01&end_date=2100-01-01',
      'search=music&start_date=2000-01-01',
      'featured=true&per_page=50',
      'geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=500&geoloc_unit=km&orderby=distance&start_date=2000-01-01',
    ])('%s: the bytes the schema serializer writes, read twice', async (query) => {
      const first = await list(query);
      const body = first.json<EventList>();
      expect(body.events.length).toBeGreaterThan(0);
      expect(first.body).toBe(schemaSerializer(body));
      // The second read comes from remembered encodings.
      expect((await list(query)).body).toBe(first.body);
    });

    it('token holders (every status, protected events in full) get the same encoding', async () => {
      const response = await list('per_page=50&status=publish,draft,pending,private,future&start_date=2000-01-01', EDITOR);
      expect(response.body).toBe(schemaSerializer(response.json()));
    });

    it('follows an update of the event and of the venue it embeds', async () => {
      const before = (await list('per_page=1&venue=' + (await firstVenueId()))).json<EventList>();
      const event = before.events[0]!;
      const venueId = event.venue.id;
      const renamed = await t.app.inject({
        method: 'POST',
        url: `${API}/events/${event.id}`,
        headers: EDITOR,
        payload: { title: 'Renamed for the memo test' },
      });
      expect(renamed.statusCode).toBe(200);
      const venue = await t.app.inject({
        method: 'POST',
        url: `${API}/venues/${venueId}`,
        headers: EDITOR,
        payload: { venue: 'Venue renamed for the memo test' },
      });
      expect(venue.statusCode).toBe(200);
      const after = (await list(`per_page=1&venue=${venueId}`)).json<EventList>();
      expect(after.events[0]?.id).toBe(event.id);
      expect(after.events[0]?.title).toBe('Renamed for the memo test');
      expect(after.events[0]?.venue.venue).toBe('Venue renamed for the memo test');
    });

    it('follows term counts (an event embeds its terms with their event counts)', async () => {
      const before = (await list('per_page=50&start_date=2000-01-01')).json<EventList>();
      const withCategory = before.events.find((e) => e.categories.length > 0)!;
      const category = withCategory.categories[0]!;
      const created = await t.app.inject({
        method: 'POST',
        url: `${API}/events`,
        headers: EDITOR,
        payload: {
          title: 'One more in the category',
          start_date: '2030-01-01 10:00:00',
          end_date: '2030-01-01 11:00:00',
          categories: [category.id],
          status: 'publish',
        },
      });
      expect(created.statusCode).toBe(201);
      const after = (await list('per_page=50&start_date=2000-01-01')).json<EventList>();
      const again = after.events.find((e) => e.id === withCategory.id);
      expect(again?.categories.find((c) => c.id === category.id)?.count).toBe(category.count + 1);
    });

    it('over HTTP, with many responses in flight, sends every body whole and reuses body memory', async () => {
      const queries = [
        ...Array.from({ length: 7 }, (_, i) => `per_page=50&page=${i + 1}&start_date=2000-01-01&end_date=2100-01-01`),
        'search=music&start_date=2000-01-01',
        'per_page=3&start_date=2000-01-01',
        'featured=true&per_page=50',
      ];
      const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
      // One at a time first (links and global ids name the host the request came to).
      const expected = new Map<string, string>();
      for (const query of queries) expected.set(query, await (await fetch(`${base}${API}/events?${query}`)).text());
      const slabsBefore = bodySlabsAllocated();
      let bytes = 0;
      let next = 0;
      // 24 connections at once, each sending its next request as soon as a response is read.
      await Promise.all(
        Array.from({ length: 24 }, async () => {
          while (next < 400) {
            const query = queries[next++ % queries.length]!;
            const response = await fetch(`${base}${API}/events?${query}`);
            const text = await response.text();
            expect(response.status).toBe(200);
            expect(text).toBe(expected.get(query));
            bytes += text.length;
          }
        }),
      );
      // Ten 4 MB slabs' worth of bodies went out; a few slabs carried them.
      expect(bytes).toBeGreaterThan(40 * 2 ** 20);
      expect(bodySlabsAllocated() - slabsBefore).toBeLessThanOrEqual(6);
    });

    async function firstVenueId(): Promise<number> {
      const venues = await t.app.inject({ url: `${API}/venues?per_page=1` });
      return venues.json<{ venues: Array<{ id: number }> }>().venues[0]!.id;
    }
  });
}
