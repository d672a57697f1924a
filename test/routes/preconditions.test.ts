/**
 * Lost-update protection: `If-Match` on the writes of one event, venue, organizer, category or tag
 * lets a write through only while the record still has the representation the client read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, EDITOR, type TestApp, json, makeEventInput, openTestApp } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();

type Body = Record<string, unknown>;
type Method = 'POST' | 'PUT' | 'PATCH' | 'DELETE';

describe.each(engines)('$name engine: If-Match', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  const send = (method: Method | 'GET', path: string, headers: Record<string, string> = {}, payload?: Body) =>
    t.app.inject({ method, url: `${API}${path}`, headers: { ...EDITOR, ...headers }, ...(payload ? { payload } : {}) });
  const etagOf = async (path: string) => (await send('GET', path)).headers.etag as string;
  async function created(path: string, payload: Body): Promise<number> {
    const response = await send('POST', path, {}, payload);
    expect(response.statusCode, response.body).toBe(201);
    return json(response).id as number;
  }

  /** Each kind of record: its path once created, and a change of one field. */
  const kinds: Array<[string, () => Promise<string>, Body]> = [
    ['event by id', async () => `/events/${await created('/events', makeEventInput({ title: 'Matched' }))}`, { title: 'Changed' }],
    [
      'event by slug',
      async () => {
        await created('/events', makeEventInput({ title: 'Slugged match' }));
        return '/events/by-slug/slugged-match';
      },
      { excerpt: 'x' },
    ],
    ['venue', async () => `/venues/${await created('/venues', { venue: 'Matched hall' })}`, { city: 'Oslo' }],
    ['organizer', async () => `/organizers/${await created('/organizers', { organizer: 'Matched org' })}`, { phone: '1' }],
    ['category', async () => `/categories/${await created('/categories', { name: 'Matched category' })}`, { description: 'd' }],
    ['tag', async () => `/tags/${await created('/tags', { name: 'matched-tag' })}`, { description: 'd' }],
  ];

  describe.each(kinds)('%s', (_kind, make, change) => {
    it('writes with the current tag or *, refuses a stale or weak one with 412 and changes nothing', async () => {
      const path = await make();
      const etag = await etagOf(path);
      for (const method of ['PATCH', 'PUT', 'POST'] as const) {
        const current = await etagOf(path);
        expect((await send(method, path, { 'if-match': `W/${current}` }, change)).statusCode).toBe(412);
        const ok = await send(method, path, { 'if-match': `"other", ${current}` }, { ...change, description: `${method} ${current}` });
        expect(ok.statusCode, ok.body).toBe(200);
      }
      const before = (await send('GET', path)).body;
      const stale = await send('PATCH', path, { 'if-match': etag }, change);
      expect(stale.statusCode).toBe(412);
      expect(json(stale)).toMatchObject({ code: 'rest_precondition_failed', data: { status: 412 } });
      expect((await send('GET', path)).body).toBe(before);
      expect((await send('PATCH', path, { 'if-match': '*' }, change)).statusCode).toBe(200);
      expect((await send('DELETE', path, { 'if-match': etag })).statusCode).toBe(412);
      expect((await send('DELETE', path, { 'if-match': await etagOf(path) })).statusCode).toBe(200);
    });
  });

  it('refuses If-Match on a record that does not exist, or has no representation (a trashed event)', async () => {
    for (const path of ['/events/999999', '/venues/999999', '/organizers/999999', '/categories/999999', '/tags/999999']) {
      expect((await send('PATCH', path, { 'if-match': '*' }, {})).statusCode, path).toBe(412);
      expect((await send('PATCH', path, {}, {})).statusCode, path).toBe(404);
    }
    const id = await created('/events', makeEventInput({ title: 'Trashed match' }));
    expect((await send('DELETE', `/events/${id}`)).statusCode).toBe(200);
    expect((await send('PATCH', `/events/${id}`, { 'if-match': '*' }, { status: 'draft' })).statusCode).toBe(412);
    expect((await send('DELETE', `/events/${id}`, { 'if-match': '*' })).statusCode).toBe(412);
  });

  it('lets exactly one of two concurrent writes with the same tag through', async () => {
    const path = `/events/${await created('/events', makeEventInput({ title: 'Raced' }))}`;
    const etag = await etagOf(path);
    const answers = await Promise.all(['One', 'Two', 'Three'].map((title) => send('PATCH', path, { 'if-match': etag }, { title })));
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 412, 412]);
  });

  it('compares with what GET answers, whichever language root the tag came from', async () => {
    const id = await created('/venues', { venue: 'Rooted hall' });
    const german = (await t.app.inject({ method: 'GET', url: `/de${API}/venues/${id}`, headers: EDITOR })).headers.etag as string;
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/de${API}/venues/${id}`,
      headers: { ...EDITOR, 'if-match': german },
      payload: { city: 'Bonn' },
    });
    expect(response.statusCode, response.body).toBe(200);
  });
});
