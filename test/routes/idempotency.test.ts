/**
 * The Idempotency-Key header on the five create routes, on every engine: a retry with the same key
 * and body answers the first response again and creates nothing; another body is a 422; keys are
 * the caller's own; an attempt still running is a 409; the key is forgotten after 24 hours (an
 * injected clock, no waiting); and a create whose write was applied but not confirmed (503
 * `storage-write-unconfirmed`) can be retried without a second record — which a retry without the
 * key does create.
 */
import { type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultyStorage } from '../helpers/faulty-storage.js';
import { type Storage } from '../../src/storage/port.js';
import { API, EDITOR, EDITOR_TOKEN, NS, type TestApp, VIEWER_TOKEN, countAll, json, makeEventInput, openTestApp } from '../helpers/app.js';
import { type EngineUnderTest, routeEnginesUnderTest, withFaults } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();

const OTHER_EDITOR_TOKEN = 'other-editor-token-0123456789abcdef';
const OTHER_EDITOR = { authorization: `Bearer ${OTHER_EDITOR_TOKEN}` } as const;
const TOKENS = `editor:${EDITOR_TOKEN},editor:${OTHER_EDITOR_TOKEN},viewer:${VIEWER_TOKEN}`;
const DAY_MS = 24 * 60 * 60 * 1000;
const REQUEST_TIMEOUT_MS = 30_000;

type Body = Record<string, unknown>;
type ErrorBody = { code: string; message: string; data: { status: number; params?: Record<string, string> } };

/** A valid create body of each create route (a name made unique by `n`). */
const CREATES: ReadonlyArray<{ path: string; body: (n: number) => Body }> = [
  { path: '/events', body: (n) => makeEventInput({ title: `Idempotent event ${n}` }) },
  { path: '/venues', body: (n) => ({ venue: `Idempotent hall ${n}`, city: 'Bremen' }) },
  { path: '/organizers', body: (n) => ({ organizer: `Idempotent friends ${n}` }) },
  { path: '/categories', body: (n) => ({ name: `Idempotent category ${n}` }) },
  { path: '/tags', body: (n) => ({ name: `Idempotent tag ${n}` }) },
];

/** A held storage call: `reached` resolves when the call arrives, `release` lets it go on. */
interface Hold {
  reached: Promise<void>;
  release(): void;
}

/**
 * The engine's storage with a gate on `events.insertOne`: `hold()` stops the next such call until
 * released, so a test decides what happens while a create is between its claim and its insert.
 */
function gatedEngine(engine: EngineUnderTest, onOpen: (storage: Storage, hold: () => Hold) => void): EngineUnderTest {
  return {
    name: engine.name,
    async open() {
      const inner = await engine.open();
      let pending: { arrived: () => void; gate: Promise<void> } | null = null;
      const hold = (): Hold => {
        let arrived!: () => void;
        let release!: () => void;
        const reached = new Promise<void>((resolve) => (arrived = resolve));
        const gate = new Promise<void>((resolve) => (release = resolve));
        pending = { arrived, gate };
        return { reached, release };
      };
      const events = new Proxy(inner.events, {
        get(target, property) {
          if (property === 'insertOne') {
            return async (doc: Parameters<Storage['events']['insertOne']>[0]) => {
              const held = pending;
              pending = null;
              if (held !== null) {
                held.arrived();
                await held.gate;
              }
              return target.insertOne(doc);
            };
          }
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
      const storage: Storage = { ...inner, events };
      onOpen(storage, hold);
      return storage;
    },
  };
}

describe.each(engines)('$name engine: Idempotency-Key on creates', (engine) => {
  let t: TestApp;
  let hold!: () => Hold;
  /** The services' clock runs with real time, plus `offset`. */
  let offset = 0;
  let n = 0;

  beforeAll(async () => {
    t = await openTestApp(
      gatedEngine(engine, (_storage, h) => (hold = h)),
      { API_TOKENS: TOKENS, REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) },
      undefined,
      () => new Date(Date.now() + offset),
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (path: string, body: Body, key?: string, headers: Record<string, string> = EDITOR, root = ''): Promise<LightMyRequestResponse> =>
    t.app.inject({ method: 'POST', url: `${root}${API}${path}`, headers: key === undefined ? headers : { ...headers, 'idempotency-key': key }, payload: body });
  const newKey = () => `key-${engine.name}-${++n}-${Math.random().toString(36).slice(2)}`;

  it.each(CREATES)('$path: the same key and body answer the first response again and create nothing', async ({ path, body }) => {
    const payload = body(++n);
    const key = newKey();
    const first = await post(path, payload, key);
    expect(first.statusCode, first.body).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const before = await countAll(t.storage);

    // The same body with its keys in another order is the same request.
    const reordered = Object.fromEntries(Object.entries(payload).reverse());
    for (const again of [payload, reordered]) {
      const replay = await post(path, again, key);
      expect(replay.statusCode).toBe(201);
      expect(replay.body).toBe(first.body);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.headers['content-type']).toBe(first.headers['content-type']);
    }
    expect(await countAll(t.storage)).toEqual(before);
  });

  it('replays the first response, not the resource as it is now', async () => {
    const key = newKey();
    const first = await post('/events', makeEventInput({ title: 'Replayed as first sent' }), key);
    expect(first.statusCode).toBe(201);
    const id = json(first).id as number;
    const updated = await t.app.inject({ method: 'POST', url: `${API}/events/${id}`, headers: EDITOR, payload: { title: 'Renamed since' } });
    expect(updated.statusCode).toBe(200);
    const replay = await post('/events', makeEventInput({ title: 'Replayed as first sent' }), key);
    expect(replay.body).toBe(first.body);
    expect(json(replay).title).toBe('Replayed as first sent');
  });

  it('refuses the same key with another body, or on another route, root or the drop-in path, with 422 and creates nothing', async () => {
    const key = newKey();
    const first = await post('/events', makeEventInput({ title: 'Original body' }), key);
    expect(first.statusCode).toBe(201);
    const before = await countAll(t.storage);
    for (const response of [
      await post('/events', makeEventInput({ title: 'Another body' }), key),
      await post('/venues', { venue: 'Original body' }, key),
      await post('/events', makeEventInput({ title: 'Original body' }), key, EDITOR, '/de'),
      await t.app.inject({
        method: 'POST',
        url: '/wp-json/tribe/events/v1/events',
        headers: { ...EDITOR, 'idempotency-key': key },
        payload: makeEventInput({ title: 'Original body' }),
      }),
    ]) {
      expect(response.statusCode, response.body).toBe(422);
      const error = json<ErrorBody>(response);
      expect(error.code).toBe('rest_idempotency_key_mismatch');
      expect(error.data.status).toBe(422);
    }
    expect(await countAll(t.storage)).toEqual(before);
    // The first request still replays.
    expect((await post('/events', makeEventInput({ title: 'Original body' }), key)).body).toBe(first.body);
  });

  it('keeps the keys of different callers apart', async () => {
    const key = newKey();
    const payload = makeEventInput({ title: 'Two callers, one key' });
    const mine = await post('/events', payload, key);
    const theirs = await post('/events', payload, key, OTHER_EDITOR);
    expect(mine.statusCode).toBe(201);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(json(theirs).id).not.toBe(json(mine).id);
    expect(json(theirs).slug).toBe(`${json(mine).slug as string}-2`);
    // Each replays its own response.
    expect((await post('/events', payload, key)).body).toBe(mine.body);
    expect((await post('/events', payload, key, OTHER_EDITOR)).body).toBe(theirs.body);
  });

  it('answers 409 with Retry-After while the first request runs, then replays its response', async () => {
    const key = newKey();
    const payload = makeEventInput({ title: 'Concurrent pair' });
    const before = await countAll(t.storage);
    const held = hold();
    const first = post('/events', payload, key);
    await held.reached;
    const second = await post('/events', payload, key);
    expect(second.statusCode, second.body).toBe(409);
    expect(json<ErrorBody>(second).code).toBe('rest_idempotency_in_progress');
    expect(Number(second.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(second.headers['retry-after'])).toBeLessThanOrEqual(REQUEST_TIMEOUT_MS / 1000);
    held.release();
    const done = await first;
    expect(done.statusCode).toBe(201);
    const third = await post('/events', payload, key);
    expect(third.body).toBe(done.body);
    expect(third.headers['idempotent-replayed']).toBe('true');
    expect((await countAll(t.storage)).events).toBe(before.events + 1);
  });

  it('lets a retry take over an attempt that outlived the request timeout; both answer the one event', async () => {
    const key = newKey();
    const payload = makeEventInput({ title: 'Outlived its lock' });
    const before = await countAll(t.storage);
    const held = hold();
    const stuck = post('/events', payload, key);
    await held.reached;
    offset += REQUEST_TIMEOUT_MS + 1000;
    const retry = await post('/events', payload, key);
    expect(retry.statusCode, retry.body).toBe(201);
    held.release();
    const late = await stuck;
    expect(late.statusCode, late.body).toBe(201);
    expect(json(late).id).toBe(json(retry).id);
    expect((await countAll(t.storage)).events).toBe(before.events + 1);
  });

  it('forgets a key after 24 hours: the same request then creates again', async () => {
    const key = newKey();
    const payload = makeEventInput({ title: 'A day later' });
    const first = await post('/events', payload, key);
    expect(first.statusCode).toBe(201);
    offset += DAY_MS - 60_000;
    expect((await post('/events', payload, key)).body).toBe(first.body);
    offset += 60_000;
    const later = await post('/events', payload, key);
    expect(later.statusCode).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(json(later).id).not.toBe(json(first).id);
    // The new record replays from now on.
    expect((await post('/events', payload, key)).body).toBe(later.body);
  });

  it('forgets a key whose request was refused (4xx): a corrected body may use it again', async () => {
    const key = newKey();
    const refused = await post('/events', makeEventInput({ title: 'Refused first', start_date: 'not a date at all' }), key);
    expect(refused.statusCode).toBe(400);
    const corrected = await post('/events', makeEventInput({ title: 'Refused first' }), key);
    expect(corrected.statusCode, corrected.body).toBe(201);
    expect(corrected.headers['idempotent-replayed']).toBeUndefined();
    // The key is now the corrected request's.
    const replay = await post('/events', makeEventInput({ title: 'Refused first' }), key);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(corrected.body);
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['with a space', 'two words'],
    ['with a control character', 'tab\there'],
  ])('refuses a key that is %s with 400 naming Idempotency-Key, creating nothing', async (_label, key) => {
    const before = await countAll(t.storage);
    const response = await post('/events', makeEventInput({ title: 'Bad key' }), key);
    expect(response.statusCode, response.body).toBe(400);
    const error = json<ErrorBody>(response);
    expect(error.code).toBe('rest_invalid_param');
    expect(Object.keys(error.data.params ?? {})).toEqual(['Idempotency-Key']);
    expect(await countAll(t.storage)).toEqual(before);
  });

  it('accepts a key of 255 visible ASCII characters', async () => {
    const key = newKey().padEnd(255, '~');
    expect(key).toHaveLength(255);
    const response = await post('/tags', { name: `Long key ${++n}` }, key);
    expect(response.statusCode, response.body).toBe(201);
    expect((await post('/tags', { name: `Long key ${n}` }, key)).headers['idempotent-replayed']).toBe('true');
  });

  it('documents the header on the five create operations only, and their 422', async () => {
    const doc = json<{ paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }>; responses: Record<string, unknown> }>> }>(
      await t.app.inject({ method: 'GET', url: `/fr/${NS}/doc` }),
    );
    const withHeader: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if ((operation.parameters ?? []).some((p) => p.in === 'header' && p.name === 'Idempotency-Key')) {
          withHeader.push(`${method} ${path}`);
          expect(operation.responses['422']).toBeDefined();
        }
      }
    }
    expect(withHeader.sort()).toEqual(CREATES.map((c) => `post ${c.path}`).sort());
  });
});

describe.each(engines)('$name engine: Idempotency-Key across origins', (engine) => {
  it('lets an allowlisted browser origin send the header and read Idempotent-Replayed', async () => {
    const t = await openTestApp(engine, { CORS_ORIGINS: 'https://app.example' });
    try {
      const preflight = await t.app.inject({
        method: 'OPTIONS',
        url: `${API}/events`,
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'Authorization, Content-Type, Idempotency-Key',
        },
      });
      expect(preflight.statusCode).toBe(204);
      expect(
        String(preflight.headers['access-control-allow-headers'])
          .toLowerCase()
          .split(/\s*,\s*/),
      ).toContain('idempotency-key');
      const created = await t.app.inject({
        method: 'POST',
        url: `${API}/events`,
        headers: { ...EDITOR, origin: 'https://app.example', 'idempotency-key': 'cors-key' },
        payload: makeEventInput(),
      });
      expect(created.statusCode).toBe(201);
      expect(
        String(created.headers['access-control-expose-headers'])
          .toLowerCase()
          .split(/\s*,\s*/),
      ).toContain('idempotent-replayed');
    } finally {
      await t.close();
    }
  });
});

describe.each(engines)('$name engine: a create whose write is not confirmed', (engine) => {
  let t: TestApp;
  let faulty: FaultyStorage;

  beforeAll(async () => {
    const wrapped = withFaults(engine);
    t = await openTestApp(wrapped.engine);
    faulty = wrapped.faulty();
  });
  afterAll(async () => {
    faulty?.clear();
    await t?.close();
  });

  const post = (body: Body, key?: string) =>
    t.app.inject({ method: 'POST', url: `${API}/events`, headers: key === undefined ? EDITOR : { ...EDITOR, 'idempotency-key': key }, payload: body });
  const eventsTitled = (title: string) => t.storage.events.find({ filter: { title }, sort: [['_id', 1]] });

  /** The event insert is applied, then reported as unconfirmed (a write-concern timeout). */
  const unconfirmInsert = () => faulty.inject({ kind: 'unconfirmed', only: (name) => name === 'events.insertOne', nth: 1 });

  function expectUnconfirmed(response: LightMyRequestResponse): void {
    expect(response.statusCode, response.body).toBe(503);
    const error = json<ErrorBody>(response);
    expect(error.code).toBe('storage-write-unconfirmed');
    expect(error.message).toMatch(/may have been applied/);
    expect(response.headers['retry-after']).toMatch(/^\d+$/);
  }

  it('without a key, the retry creates a second event (the `-2` slug)', async () => {
    const payload = makeEventInput({ title: 'Unconfirmed without a key' });
    unconfirmInsert();
    expectUnconfirmed(await post(payload));
    faulty.clear();
    const retry = await post(payload);
    expect(retry.statusCode).toBe(201);
    expect(json(retry).slug).toBe('unconfirmed-without-a-key-2');
    expect(await eventsTitled('Unconfirmed without a key')).toHaveLength(2);
  });

  it('with a key, the retry answers 201 with the event the first attempt stored, and there is one event', async () => {
    const payload = makeEventInput({ title: 'Unconfirmed with a key' });
    const key = 'unconfirmed-with-a-key';
    unconfirmInsert();
    expectUnconfirmed(await post(payload, key));
    faulty.clear();
    const [stored] = await eventsTitled('Unconfirmed with a key');
    expect(stored).toBeDefined();

    const retry = await post(payload, key);
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(json(retry).id).toBe(stored!._id);
    expect(json(retry).slug).toBe('unconfirmed-with-a-key');
    expect(await eventsTitled('Unconfirmed with a key')).toHaveLength(1);

    // From now on the success is replayed.
    const again = await post(payload, key);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(retry.body);
    expect(await eventsTitled('Unconfirmed with a key')).toHaveLength(1);
  });

  it('with a key, a retry after a failure that stored nothing creates the event once, under the reserved id', async () => {
    const payload = makeEventInput({ title: 'Failed before the insert' });
    const key = 'failed-before-the-insert';
    faulty.inject({ kind: 'unavailable', only: (name) => name === 'events.insertOne', nth: 1 });
    const failed = await post(payload, key);
    expect(failed.statusCode).toBe(503);
    faulty.clear();
    expect(await eventsTitled('Failed before the insert')).toHaveLength(0);
    const retry = await post(payload, key);
    expect(retry.statusCode, retry.body).toBe(201);
    expect(json(retry).slug).toBe('failed-before-the-insert');
    expect(await eventsTitled('Failed before the insert')).toHaveLength(1);
    // Created under the id the key reserved before the first attempt.
    expect(await t.storage.idempotency.find({ filter: { reservedId: json(retry).id as number } })).toHaveLength(1);
  });

  it('with a key, the retry of an unconfirmed create of each other kind answers the stored record', async () => {
    const cases = [
      { path: '/venues', body: { venue: 'Unconfirmed hall' }, collection: 'venues' as const },
      { path: '/organizers', body: { organizer: 'Unconfirmed friends' }, collection: 'organizers' as const },
      { path: '/categories', body: { name: 'Unconfirmed category' }, collection: 'categories' as const },
      { path: '/tags', body: { name: 'Unconfirmed tag' }, collection: 'tags' as const },
    ];
    for (const { path, body, collection } of cases) {
      const key = `unconfirmed-${collection}`;
      const send = () => t.app.inject({ method: 'POST', url: `${API}${path}`, headers: { ...EDITOR, 'idempotency-key': key }, payload: body });
      faulty.inject({ kind: 'unconfirmed', only: (name) => name === `${collection}.insertOne`, nth: 1 });
      expectUnconfirmed(await send());
      faulty.clear();
      const before = await t.storage[collection].count({});
      const retry = await send();
      expect(retry.statusCode, `${path}: ${retry.body}`).toBe(201);
      expect(await t.storage[collection].count({}), path).toBe(before);
      const stored = await t.storage[collection].findById(json(retry).id as number);
      expect(stored, path).not.toBeNull();
    }
  });
});
