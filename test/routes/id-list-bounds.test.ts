/**
 * Id lists the services derive from stored data are bounded (src/query/id-lists.ts): a list filter
 * whose derived list would pass MAX_FILTER_IDS is refused with 400 naming its parameter, on every
 * engine, instead of sending MongoDB a query past its 16 MB document limit. One just at the cap is
 * served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FILTER_IDS } from '../../src/query/id-lists.js';
import { API, type TestApp, json, openTestApp } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';
import { makeEventDoc } from '../helpers/factories.js';

const { engines } = await routeEnginesUnderTest();

const START = new Date('2030-01-01T10:00:00Z');

describe.each(engines.map((engine) => ({ engine, label: `${engine.name} engine` })))('$label: derived id lists', ({ engine }) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine);
    // One published event per venue id: has_events derives MAX_FILTER_IDS venue ids, then one more.
    const docs = Array.from({ length: MAX_FILTER_IDS }, (_, i) =>
      makeEventDoc({ _id: i + 1, slug: `e-${i + 1}`, status: 'publish', venueId: 1_000_000 + i, startUtc: START, endUtc: START }),
    );
    expect(await t.storage.events.insertMany(docs)).toEqual([]);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('serves has_events at the cap, and refuses it one past, naming the parameter', async () => {
    const atCap = await t.app.inject({ method: 'GET', url: `${API}/venues?has_events=false` });
    expect(atCap.statusCode).toBe(200);

    const one = makeEventDoc({ _id: MAX_FILTER_IDS + 1, slug: 'one-more', status: 'publish', venueId: 5, startUtc: START, endUtc: START });
    await t.storage.events.insertOne(one);
    for (const url of [`${API}/venues?has_events=true`, `${API}/venues?has_events=false`]) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(400);
      expect(json(response)).toMatchObject({
        code: 'rest_invalid_param',
        data: { status: 400, params: { has_events: expect.stringContaining(String(MAX_FILTER_IDS)) } },
      });
    }
    const upcoming = await t.app.inject({ method: 'GET', url: `${API}/venues?only_with_upcoming=true` });
    expect(upcoming.statusCode).toBe(400);
    expect(json(upcoming)).toMatchObject({ data: { params: { only_with_upcoming: expect.any(String) } } });
  });
});
