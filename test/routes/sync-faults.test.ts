/**
 * A trash whose tombstone write fails: the DELETE answers 503 (its outcome unknown to the caller),
 * the record is trashed, and the retried DELETE — 410, the record being gone already — writes the
 * missing tombstone, so an offline client's next `/deleted` call still drops the record. On every
 * engine, for events and for venues and organizers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, EDITOR, type TestApp, createEventOk, json, openTestApp } from '../helpers/app.js';
import { enginesUnderTest, withFaults } from '../helpers/engines.js';
import { type FaultyStorage } from '../helpers/faulty-storage.js';

const { engines } = await enginesUnderTest();

describe.each(engines)('$name engine: a trash whose tombstone was not written', (engine) => {
  let t: TestApp;
  let faulty: FaultyStorage;
  beforeAll(async () => {
    const wrapped = withFaults(engine);
    t = await openTestApp(wrapped.engine);
    faulty = wrapped.faulty();
  });
  afterAll(async () => {
    faulty.clear();
    await t?.close();
  });

  // An hour back, in the site's zone (UTC here): well inside TOMBSTONE_DAYS.
  const since = new Date(Date.now() - 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
  const deleted = async () =>
    (
      json(await t.app.inject({ method: 'GET', url: `${API}/deleted?since=${encodeURIComponent(since)}&per_page=50`, headers: EDITOR })).deleted as Array<{
        type: string;
        id: number;
      }>
    ).map((d) => `${d.type}:${d.id}`);

  it.each([
    ['event', '/events'],
    ['venue', '/venues'],
    ['organizer', '/organizers'],
  ] as const)('%s: the retried DELETE answers 410 and writes the tombstone', async (type, path) => {
    const body = type === 'event' ? undefined : type === 'venue' ? { venue: `Faulty hall ${engine.name}` } : { organizer: `Faulty office ${engine.name}` };
    const id = (
      body === undefined
        ? (await createEventOk(t.app)).id
        : json(await t.app.inject({ method: 'POST', url: `${API}${path}`, headers: EDITOR, payload: body })).id
    ) as number;

    faulty.inject({ kind: 'unavailable', only: (name) => name === 'tombstones.insertOne' });
    const first = await t.app.inject({ method: 'DELETE', url: `${API}${path}/${id}`, headers: EDITOR });
    faulty.clear();
    expect(first.statusCode, first.body).toBe(503);
    expect(await deleted()).not.toContain(`${type}:${id}`);

    const retried = await t.app.inject({ method: 'DELETE', url: `${API}${path}/${id}`, headers: EDITOR });
    expect(retried.statusCode, retried.body).toBe(410);
    expect(await deleted()).toContain(`${type}:${id}`);
    // Asked once more: the tombstone stands as written, not moved on.
    const stone = await t.storage.tombstones.find({ filter: { recordId: id, type } });
    expect(stone).toHaveLength(1);
    expect((await t.app.inject({ method: 'DELETE', url: `${API}${path}/${id}`, headers: EDITOR })).statusCode).toBe(410);
    expect(await t.storage.tombstones.find({ filter: { recordId: id, type } })).toEqual(stone);
  });
});
