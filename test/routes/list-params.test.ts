/**
 * A list parameter's cap holds in both forms: `include[]=…` repeated and `include=1,2,…` as one
 * comma-separated value are refused past MAX_LIST_ITEMS items with a 400 naming the parameter, on
 * lists and writes alike; at the cap they are served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LIST_ITEMS } from '../../src/query/list-input.js';
import { API, EDITOR, type TestApp, json, makeEventInput, openTestApp } from '../helpers/app.js';
import { enginesUnderTest } from '../helpers/engines.js';

const { engines } = await enginesUnderTest();
// The cap is applied before any storage call: one engine is enough.
const engine = engines[0]!;

const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('list parameters: one cap for both forms', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(['include', 'venue', 'organizer', 'categories', 'tags'])(
    '%s: comma-separated past the cap is a 400 naming it; at the cap it is read',
    async (param) => {
      const over = await t.app.inject({ method: 'GET', url: `${API}/events?${param}=${ids(1_000).join(',')}` });
      expect(over.statusCode).toBe(400);
      expect(json(over)).toMatchObject({ code: 'rest_invalid_param', data: { params: { [param]: `${param} must have at most ${MAX_LIST_ITEMS} items.` } } });
      const repeated = await t.app.inject({
        method: 'GET',
        url: `${API}/events?${ids(MAX_LIST_ITEMS + 1)
          .map((id) => `${param}[]=${id}`)
          .join('&')}`,
      });
      expect(repeated.statusCode).toBe(400);
      expect(Object.keys((json(repeated).data as { params: object }).params)).toEqual([param]);
      // At the cap the list is read (names no existing record: a 400 of another kind, or an empty page).
      const atCap = await t.app.inject({ method: 'GET', url: `${API}/events?${param}=${ids(MAX_LIST_ITEMS).join(',')}` });
      expect(JSON.stringify(json(atCap))).not.toContain('at most');
    },
  );

  it('an event write naming more terms than the cap in one string is a 400, and stores nothing', async () => {
    const names = Array.from({ length: MAX_LIST_ITEMS + 1 }, (_, i) => `term ${i}`).join(',');
    const response = await t.app.inject({ method: 'POST', url: `${API}/events`, headers: EDITOR, payload: makeEventInput({ categories: names }) });
    expect(response.statusCode).toBe(400);
    expect(json(response)).toMatchObject({ data: { params: { categories: `categories must have at most ${MAX_LIST_ITEMS} items.` } } });
    expect(await t.storage.categories.count({})).toBe(0);
    expect(await t.storage.events.count({})).toBe(0);
  });
});
