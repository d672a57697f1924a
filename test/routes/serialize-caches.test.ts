/**
 * The serialization caches belong to an app (src/serialize/caches.ts): buildApp creates them from
 * SERIALIZATION_ARENA_MB and SERIALIZATION_MEMO_ENTRIES, off on the mongodb engine, and two apps
 * never share one. Off, every representation is built anew — the same bytes as with them on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexes } from '../../indexes/index.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { NO_CACHES, createSerializeCaches, serializeCacheSizes } from '../../src/serialize/caches.js';
import { type SerializeContext, contextKey } from '../../src/serialize/context.js';
import { serializeEventJson } from '../../src/serialize/events.js';
import { serializeOrganizer } from '../../src/serialize/organizers.js';
import { serializeVenue } from '../../src/serialize/venues.js';
import { seedIfEmpty } from '../../src/import/seed-on-start.js';
import { createEmbeddedStorage } from '../../src/storage/embedded/index.js';
import { type Storage } from '../../src/storage/port.js';
import { API } from '../helpers/app.js';
import { makeEventDoc, makeOrganizerDoc, makeVenueDoc } from '../helpers/factories.js';

const fields = { apiBase: 'http://localhost/calendar/events/v1', siteUrl: 'http://localhost', siteTimezone: 'UTC', single: false };
const contextWith = (caches: SerializeContext['caches']): SerializeContext => ({ ...fields, now: new Date(), key: contextKey(fields), caches });

describe('serializeCacheSizes', () => {
  const config = loadConfig({});

  it('takes the configured sizes on the embedded engine', () => {
    expect(serializeCacheSizes(config, 'embedded')).toEqual({ arenaBytes: 64 * 2 ** 20, memoEntries: 25_000 });
    const small = loadConfig({ SERIALIZATION_ARENA_MB: '8', SERIALIZATION_MEMO_ENTRIES: '500' });
    expect(serializeCacheSizes(small, 'embedded')).toEqual({ arenaBytes: 8 * 2 ** 20, memoEntries: 500 });
  });

  it('turns every cache off on the mongodb engine, whose reads are new objects', () => {
    expect(serializeCacheSizes(config, 'mongodb')).toEqual(NO_CACHES);
  });
});

describe('an app’s caches', () => {
  const venue = Object.freeze(makeVenueDoc());
  const organizer = Object.freeze(makeOrganizerDoc());

  it('are its own: a representation remembered by one is built anew by another', () => {
    const one = contextWith(createSerializeCaches({ arenaBytes: 2 ** 20, memoEntries: 10 }));
    const other = contextWith(createSerializeCaches({ arenaBytes: 2 ** 20, memoEntries: 10 }));
    const first = serializeVenue(venue, one);
    expect(serializeVenue(venue, one)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    const elsewhere = serializeVenue(venue, other);
    expect(elsewhere).not.toBe(first);
    expect(elsewhere).toEqual(first);
    expect(serializeOrganizer(organizer, other)).toBe(serializeOrganizer(organizer, other));
    expect(serializeOrganizer(organizer, one)).not.toBe(serializeOrganizer(organizer, other));
  });

  it('off, keep nothing and build the same representations', () => {
    const on = contextWith(createSerializeCaches({ arenaBytes: 2 ** 20, memoEntries: 10 }));
    const off = contextWith(createSerializeCaches(NO_CACHES));
    const built = serializeVenue(venue, off);
    expect(serializeVenue(venue, off)).not.toBe(built);
    expect(built).toEqual(serializeVenue(venue, on));
    const event = Object.freeze(makeEventDoc());
    const relations = { venue, organizers: [organizer], categories: [], tags: [] };
    expect(serializeEventJson(event, relations, off).toString()).toBe(serializeEventJson(event, relations, on).toString());
    expect(off.caches.eventJsons.size).toBe(0);
    expect(on.caches.eventJsons.size).toBe(1);
  });
});

describe('apps with and without caches on one store', () => {
  let storage: Storage;
  const apps: Array<ReturnType<typeof buildApp>> = [];
  beforeAll(async () => {
    storage = createEmbeddedStorage({ indexes, reason: 'test' });
    await storage.ensureIndexes();
    await seedIfEmpty({ storage, config: { seedOnStart: true, siteTimezone: 'UTC', perPageMax: 50 }, log: { info: () => undefined } });
    // The response cache off: the second read must be serialized again, from the caches under test.
    const base = { RATE_LIMIT_READS: '0', MAX_EVENT_LOOP_DELAY_MS: '0', RESPONSE_CACHE_BYTES: '0' };
    for (const env of [
      base,
      { ...base, SERIALIZATION_ARENA_MB: '0', SERIALIZATION_MEMO_ENTRIES: '0' },
      { ...base, SERIALIZATION_ARENA_MB: '1', SERIALIZATION_MEMO_ENTRIES: '3' },
    ]) {
      const app = buildApp({ config: loadConfig(env), storage, logger: false });
      await app.ready();
      apps.push(app);
    }
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await storage.close();
  });

  it.each([
    '/events?per_page=50&start_date=2000-01-01&end_date=2100-01-01',
    '/events?per_page=50&page=2&start_date=2000-01-01&end_date=2100-01-01',
    '/events?geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=500&geoloc_unit=km&orderby=distance&start_date=2000-01-01',
    '/venues?per_page=50',
    '/organizers?per_page=50',
    '/categories?per_page=50',
  ])('%s: the same bytes, read twice, whatever the cache sizes', async (path) => {
    const bodies: string[] = [];
    for (let round = 0; round < 2; round++) {
      for (const app of apps) {
        const response = await app.inject({ url: `${API}${path}` });
        expect(response.statusCode).toBe(200);
        bodies.push(response.body);
      }
    }
    expect(bodies[0]!.length).toBeGreaterThan(100);
    expect(new Set(bodies).size).toBe(1);
  });
});
