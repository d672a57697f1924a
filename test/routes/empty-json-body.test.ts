/**
 * An empty body with a JSON content type is no body, on every method: many clients send
 * `Content-Type: application/json` on every request. The route answers exactly as it does when no
 * body and no content type are sent. Whitespace alone is not JSON and stays a 400, and the other
 * JSON errors (malformed, poisoned, too large) are unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InjectOptions } from 'fastify';
import { API, EDITOR, type TestApp, createEventOk, insertVenue, json, openTestApp } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8'];
/** No payload at all, an empty one, and an explicit `Content-Length: 0`. */
const EMPTY_BODIES: Array<{ name: string; options: Partial<InjectOptions> }> = [
  { name: 'no payload', options: {} },
  { name: 'an empty payload', options: { payload: '' } },
  { name: 'Content-Length: 0', options: { payload: '', headers: { 'content-length': '0' } } },
];
const cases = JSON_TYPES.flatMap((type) => EMPTY_BODIES.map((body) => ({ ...body, type })));

describe.each(engines)('$name engine: empty JSON bodies', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The request with the content type and the empty body of a case, as the editor. */
  const send = (method: InjectOptions['method'], url: string, { type, options }: (typeof cases)[number]) =>
    t.app.inject({ method, url, ...options, headers: { ...EDITOR, 'content-type': type, ...(options.headers ?? {}) } });

  it.each(cases)('DELETE /events/{id} trashes the event ($type, $name)', async (c) => {
    const created = await createEventOk(t.app);
    const response = await send('DELETE', `${API}/events/${created.id as number}`, c);
    expect(response.statusCode, response.body).toBe(200);
    expect(json(response)).toMatchObject({ id: created.id, status: 'trash' });
  });

  it.each(cases)('POST /events names the missing parameters, as without a body ($type, $name)', async (c) => {
    const without = await t.app.inject({ method: 'POST', url: `${API}/events`, headers: EDITOR });
    const response = await send('POST', `${API}/events`, c);
    expect(response.statusCode, response.body).toBe(400);
    expect(json(response)).toEqual(json(without));
    expect(json(response)).toMatchObject({ code: 'rest_missing_callback_param', data: { params: ['title', 'start_date', 'end_date'] } });
  });

  it.each(cases)('PUT and PATCH /venues/{id} answer the venue, as without a body ($type, $name)', async (c) => {
    const venue = await insertVenue(t.storage, { name: 'Harbour hall' });
    // An update without a body still touches the modification date, so that is left out of the comparison.
    const {
      modified: _m,
      modified_utc: _mu,
      ...unchanged
    } = await t.app.inject({ method: 'PATCH', url: `${API}/venues/${venue._id}`, headers: EDITOR }).then((r) => json(r));
    expect(unchanged).toMatchObject({ id: venue._id, venue: 'Harbour hall' });
    for (const method of ['PUT', 'PATCH'] as const) {
      const response = await send(method, `${API}/venues/${venue._id}`, c);
      expect(response.statusCode, `${method}: ${response.body}`).toBe(200);
      expect(json(response)).toEqual({ ...unchanged, modified: expect.any(String), modified_utc: expect.any(String) });
    }
  });

  it.each(cases)('GET /events lists as without the header ($type, $name)', async (c) => {
    await createEventOk(t.app, { title: 'Listed' });
    const without = await t.app.inject({ method: 'GET', url: `${API}/events`, headers: EDITOR });
    const response = await send('GET', `${API}/events`, c);
    expect(response.statusCode, response.body).toBe(200);
    expect(json(response)).toEqual(json(without));
  });

  it.each(JSON_TYPES)('still refuses a body of whitespace only: it is not JSON (%s)', async (type) => {
    for (const payload of [' ', '\n', '\r\n\t ']) {
      const response = await t.app.inject({ method: 'DELETE', url: `${API}/events/1`, headers: { ...EDITOR, 'content-type': type }, payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(json(response)).toMatchObject({ code: 'rest_invalid_json', data: { status: 400 } });
    }
  });

  it('still refuses malformed and poisoned JSON with 400 rest_invalid_json', async () => {
    for (const payload of ['{', 'nope', '{"__proto__": {"polluted": true}, "title": "x"}', '{"constructor": {"prototype": {"polluted": true}}}']) {
      const response = await t.app.inject({ method: 'POST', url: `${API}/events`, headers: { ...EDITOR, 'content-type': 'application/json' }, payload });
      expect(response.statusCode, payload).toBe(400);
      expect(json(response)).toMatchObject({ code: 'rest_invalid_json', data: { status: 400 } });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('still applies the body limit to JSON (BODY_LIMIT=2048): 413, on a declared or an undeclared length', async () => {
    const small = await openTestApp(engine, { BODY_LIMIT: '2048' });
    try {
      const payload = JSON.stringify({ title: 'y'.repeat(3000) });
      for (const headers of [{}, { 'transfer-encoding': 'chunked' }]) {
        const response = await small.app.inject({
          method: 'POST',
          url: `${API}/events`,
          headers: { ...EDITOR, 'content-type': 'application/json', ...headers },
          payload,
        });
        expect(response.statusCode, JSON.stringify(headers)).toBe(413);
        expect(json(response)).toMatchObject({ code: 'rest_request_too_large', data: { status: 413 } });
      }
    } finally {
      await small.close();
    }
  });
});
