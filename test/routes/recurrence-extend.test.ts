/**
 * Occurrences up to the horizon, and written as time passes: extendSeries with a moved clock
 * writes the dates that entered the horizon, once however often and however concurrently it runs,
 * and completes a series whose occurrence writes were interrupted half-way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createServices } from '../../src/services/index.js';
import { type Storage } from '../../src/storage/port.js';
import { API, EDITOR, type TestApp, createEvent, createEventOk, json, openTestApp, testConfig } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';
import { createFaultyStorage } from '../helpers/faulty-storage.js';

const { engines } = await routeEnginesUnderTest();

type Body = Record<string, unknown>;
const DAY_MS = 86_400_000;
const ENV = { RECURRENCE_HORIZON_DAYS: '30' };

describe.each(engines)('$name engine: occurrences written as time passes', (engine) => {
  let clock = new Date('2026-01-05T09:00:00Z');
  const now = () => clock;
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine, ENV, undefined, now);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The services of another process on the same storage (their own locks), on the same clock. */
  const otherProcess = (storage: Storage = t.storage) => createServices({ storage, config: testConfig(ENV), now }).events;
  const occurrenceDates = async (seriesId: unknown, storage: Storage = t.storage) =>
    (await storage.events.find({ filter: { postParent: seriesId as number }, sort: [['startUtc', 1]] })).map((e) => e.occurrenceDate);
  const weekly = (title: string, count: number) => ({
    title,
    start_date: '2026-01-06 19:00:00',
    end_date: '2026-01-06 20:00:00',
    recurrence: { rrule: `FREQ=WEEKLY;COUNT=${count}` },
  });

  it('writes occurrences up to the horizon, and the rest as the clock moves', async () => {
    clock = new Date('2026-01-05T09:00:00Z');
    const series = await createEventOk(t.app, weekly('Weekly beyond the horizon', 10));
    // Today plus 30 days: 6 January to 4 February.
    expect(await occurrenceDates(series.id)).toEqual(['2026-01-06', '2026-01-13', '2026-01-20', '2026-01-27', '2026-02-03']);
    expect(series.occurrences).toBe(10);
    expect((await t.storage.series.findById(series.id as number))?.nextDate).toBe('2026-02-10');

    clock = new Date(clock.getTime() + 21 * DAY_MS);
    expect(await otherProcess().extendSeries()).toBe(3);
    expect(await occurrenceDates(series.id)).toHaveLength(8);
    // Nothing more is due: a second pass writes nothing.
    expect(await otherProcess().extendSeries()).toBe(0);

    clock = new Date(clock.getTime() + 60 * DAY_MS);
    const passes = await Promise.all([otherProcess().extendSeries(), otherProcess().extendSeries(), otherProcess().extendSeries()]);
    expect(passes.reduce((a, b) => a + b, 0)).toBe(2);
    const dates = await occurrenceDates(series.id);
    expect(dates).toHaveLength(10);
    expect(new Set(dates).size).toBe(10);
    expect((await t.storage.series.findById(series.id as number))?.nextDate).toBeNull();
    const list = json(await t.app.inject({ method: 'GET', url: `${API}/events?post_parent=${String(series.id)}&start_date=2026-01-01&per_page=50` }));
    expect((list.events as Body[]).map((e) => e.slug)).toEqual(dates.map((d) => `weekly-beyond-the-horizon-${String(d)}`));
  });

  it('writes nothing for a series that starts beyond the horizon until it comes within it', async () => {
    clock = new Date('2026-01-05T09:00:00Z');
    const series = await createEventOk(t.app, { ...weekly('Far away', 3), start_date: '2026-06-02 19:00:00', end_date: '2026-06-02 20:00:00' });
    expect(await occurrenceDates(series.id)).toEqual([]);
    expect(series.next_occurrences).toEqual([]);
    clock = new Date('2026-05-20T09:00:00Z');
    await otherProcess().extendSeries();
    expect(await occurrenceDates(series.id)).toEqual(['2026-06-02', '2026-06-09', '2026-06-16']);
  });

  it('the app writes due occurrences once it is ready', async () => {
    clock = new Date('2026-01-05T09:00:00Z');
    const series = await createEventOk(t.app, weekly('Written at start', 8));
    expect(await occurrenceDates(series.id)).toHaveLength(5);
    clock = new Date('2026-03-30T09:00:00Z');
    const app = buildApp({ config: testConfig(ENV), storage: { ...t.storage, close: async () => undefined }, logger: false, now });
    await app.ready();
    await app.close();
    expect(await occurrenceDates(series.id)).toHaveLength(8);
  });
});

describe.each(engines)('$name engine: interrupted occurrence writes', (engine) => {
  it('a series whose occurrence inserts failed is completed by extendSeries, without duplicates', async () => {
    const clock = new Date('2026-01-05T09:00:00Z');
    const storage = createFaultyStorage(await engine.open());
    const app = buildApp({ config: testConfig(ENV), storage, logger: false, now: () => clock });
    await app.ready();
    try {
      // The occurrences' insert fails after storing them (an unknown outcome), so the request
      // fails and the series' next date stays where it was.
      storage.inject({ kind: 'lost-ack', only: (name) => name === 'events.insertMany' });
      const { response } = await createEvent(app, {
        title: 'Interrupted',
        start_date: '2026-01-06 19:00:00',
        end_date: '2026-01-06 20:00:00',
        recurrence: { rrule: 'FREQ=DAILY;COUNT=5' },
      });
      expect(response.statusCode).toBe(503);
      storage.clear();
      const [series] = await storage.series.find({ filter: { slug: 'interrupted' } });
      expect(series?.nextDate).toBe('2026-01-06');

      // A second failure, before anything is stored this time.
      storage.inject({ kind: 'unavailable', only: (name) => name === 'series.updateById' });
      await createServices({ storage, config: testConfig(ENV), now: () => clock })
        .events.extendSeries()
        .catch(() => 0);
      storage.clear();

      const written = await createServices({ storage, config: testConfig(ENV), now: () => clock }).events.extendSeries();
      expect(written).toBe(0);
      const occurrences = await storage.events.find({ filter: { postParent: series!._id }, sort: [['startUtc', 1]] });
      expect(occurrences.map((o) => o.occurrenceDate)).toEqual(['2026-01-06', '2026-01-07', '2026-01-08', '2026-01-09', '2026-01-10']);
      expect((await storage.series.findById(series!._id))?.nextDate).toBeNull();
      const read = await app.inject({ method: 'GET', url: `${API}/series/${series!._id}`, headers: EDITOR });
      expect(json(read).next_occurrences).toHaveLength(5);
    } finally {
      await app.close();
      await storage.close();
    }
  });

  it('a series stored before any occurrence was written gets them all', async () => {
    const clock = new Date('2026-01-05T09:00:00Z');
    const storage = createFaultyStorage(await engine.open());
    const app = buildApp({ config: testConfig(ENV), storage, logger: false, now: () => clock });
    await app.ready();
    try {
      storage.inject({ kind: 'unavailable', only: (name) => name === 'events.insertMany' });
      const { response } = await createEvent(app, {
        title: 'Never written',
        start_date: '2026-01-06 19:00:00',
        end_date: '2026-01-06 20:00:00',
        recurrence: { rrule: 'FREQ=DAILY;COUNT=3' },
      });
      expect(response.statusCode).toBe(503);
      storage.clear();
      const [series] = await storage.series.find({ filter: { slug: 'never-written' } });
      expect(await storage.events.count({ postParent: series!._id })).toBe(0);
      expect(await createServices({ storage, config: testConfig(ENV), now: () => clock }).events.extendSeries()).toBe(3);
      expect(await storage.events.count({ postParent: series!._id })).toBe(3);
    } finally {
      await app.close();
      await storage.close();
    }
  });
});
