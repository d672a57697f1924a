/**
 * The bench calendar's series (bench/series.ts): stored as the series service stores them, with
 * every occurrence where the rule puts it, and the single events unchanged by their presence.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { indexes } from '../../indexes/index.js';
import { generateCalendar } from '../../bench/calendar.js';
import { parseSeriesOption } from '../../bench/series.js';
import { formatWallClock } from '../../src/lib/dates/index.js';
import { occurrenceDates } from '../../src/lib/recurrence/index.js';
import { seriesClock } from '../../src/services/recurrence/schedule.js';
import { createEmbeddedStorage } from '../../src/storage/embedded/index.js';
import { type Storage } from '../../src/storage/port.js';

const NOW = new Date('2026-06-15T10:00:00Z');
const storages: Storage[] = [];
afterEach(async () => {
  for (const storage of storages.splice(0)) await storage.close();
});

async function calendar(series?: string) {
  const storage = createEmbeddedStorage({ indexes, reason: 'test' });
  storages.push(storage);
  const facts = await generateCalendar(storage, {
    events: 500,
    now: NOW,
    ...(series === undefined ? {} : { series: { ...parseSeriesOption(series), horizonDays: 730 } }),
  });
  return { storage, facts };
}

describe('bench series', () => {
  it('parses <series>x<occurrences>', () => {
    expect(parseSeriesOption('1000x100')).toEqual({ count: 1000, occurrences: 100 });
    expect(() => parseSeriesOption('1000')).toThrow(/--series/);
    expect(() => parseSeriesOption('0x5')).toThrow(/--series/);
  });

  it('writes each series and one event per date of its rule, as the series service does', async () => {
    const { storage, facts } = await calendar('8x30');
    expect(facts.seriesIds).toHaveLength(8);
    expect(facts.occurrences).toBe(8 * 30);
    const rules = new Set<string>();
    for (const id of facts.seriesIds) {
      const series = (await storage.series.findById(id))!;
      rules.add(series.recurrence.rrule.split(';')[0]!);
      expect(series.nextDate).toBeNull();
      const { startDate, startTime } = seriesClock(series);
      const occurrences = await storage.events.find({ filter: { postParent: id }, sort: [['startUtc', 1]] });
      expect(occurrences.map((o) => o.occurrenceDate)).toEqual(occurrenceDates(series.recurrence, startDate));
      for (const occurrence of occurrences) {
        expect(occurrence).toMatchObject({ seriesId: id, slug: `${series.slug}-${occurrence.occurrenceDate}`, isException: false, title: series.title });
        // On its own date, at the series' local start time, whatever the zone's offset that day.
        expect(formatWallClock(occurrence.startUtc, series.timezone)).toBe(`${occurrence.occurrenceDate} ${startTime}`);
        expect(occurrence.startUtc.getTime()).toBeGreaterThanOrEqual(facts.from.getTime() - 86_400_000);
        expect(occurrence.startUtc.getTime()).toBeLessThanOrEqual(facts.to.getTime() + 86_400_000);
      }
    }
    expect([...rules].sort()).toEqual(['FREQ=DAILY', 'FREQ=MONTHLY', 'FREQ=WEEKLY']);
  });

  it('leaves the single events as they are without series', async () => {
    const plain = await calendar();
    const withSeries = await calendar('4x10');
    const singles = async (storage: Storage) =>
      (await storage.events.find({ filter: { seriesId: { $exists: false } }, sort: [['_id', 1]] })).map((e) => [e._id, e.slug, e.startUtc.getTime()]);
    expect(await singles(withSeries.storage)).toEqual(await singles(plain.storage));
    expect(withSeries.facts.eventIds).toEqual(plain.facts.eventIds);
  });
});
