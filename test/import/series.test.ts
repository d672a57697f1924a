/**
 * Event records with `recurrence` (src/import/series.ts): loaded as series through the series
 * service, stable when loaded again, updated as scope `all` when the file changes a stored one, checked like
 * every other record, pruned as a whole by --prune (never their occurrences on their own).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EventDoc, type Storage } from '../../src/storage/port.js';
import { openStorage, seed, seedDir, smallCalendar } from './fixtures.js';

let storage: Storage;
let dir: ReturnType<typeof seedDir>;

/** The run's clock: Friday 2026-03-06, 09:00 UTC (10:00 in Berlin, winter time). */
const NOW = new Date('2026-03-06T09:00:00Z');

/** A weekly Tuesday class in Berlin, 19:00–21:00, that crosses the change to summer time (2026-03-29). */
const CLASS = {
  slug: 'pottery-class',
  title: 'Pottery Class',
  start_date: '2026-03-10 19:00',
  end_date: '2026-03-10 21:00',
  timezone: 'Europe/Berlin',
  venue: 'hall',
  categories: ['jazz'],
  recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=TU;COUNT=5' },
};

function writeEvents(...extra: object[]): void {
  dir.write('events.json', [...smallCalendar()['events.json'], ...extra]);
}

async function occurrencesOf(seriesId: number): Promise<EventDoc[]> {
  return storage.events.find({ filter: { seriesId, status: { $ne: 'trash' } }, sort: [['startUtc', 1]] });
}

beforeEach(async () => {
  storage = await openStorage();
  dir = seedDir(smallCalendar());
});
afterEach(async () => {
  dir.remove();
  await storage.close();
});

describe('seed records with recurrence', () => {
  it('are loaded as series whose occurrences are events listed under the series id', async () => {
    writeEvents(CLASS);
    const { report, problems } = await seed(storage, [dir.dir], { now: NOW });
    expect(problems).toEqual([]);
    expect(report.outcome).toBe('ok');
    expect(report.counts.events).toMatchObject({ created: 4, failed: 0 });
    const series = await storage.series.findOne({ slug: 'pottery-class' });
    expect(series).toMatchObject({ title: 'Pottery Class', recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=TU;COUNT=5', exdates: [], rdates: [] }, nextDate: null });
    expect(series?.venueId).toBe((await storage.venues.findOne({ slug: 'hall' }))?._id);
    // No event carries the series' own slug: the series is not an event.
    expect(await storage.events.findOne({ slug: 'pottery-class' })).toBeNull();
    const occurrences = await occurrencesOf(series!._id);
    expect(occurrences.map((o) => [o.slug, o.occurrenceDate, o.postParent, o.startUtc.toISOString(), o.endUtc.toISOString()])).toEqual([
      ['pottery-class-2026-03-10', '2026-03-10', series!._id, '2026-03-10T18:00:00.000Z', '2026-03-10T20:00:00.000Z'],
      ['pottery-class-2026-03-17', '2026-03-17', series!._id, '2026-03-17T18:00:00.000Z', '2026-03-17T20:00:00.000Z'],
      ['pottery-class-2026-03-24', '2026-03-24', series!._id, '2026-03-24T18:00:00.000Z', '2026-03-24T20:00:00.000Z'],
      // Summer time from 2026-03-29: still 19:00–21:00 in Berlin.
      ['pottery-class-2026-03-31', '2026-03-31', series!._id, '2026-03-31T17:00:00.000Z', '2026-03-31T19:00:00.000Z'],
      ['pottery-class-2026-04-07', '2026-04-07', series!._id, '2026-04-07T17:00:00.000Z', '2026-04-07T19:00:00.000Z'],
    ]);
  });

  it('change nothing when the same file is loaded again: no new ids, no second occurrence', async () => {
    writeEvents({ ...CLASS, start_date: '+4 days 19:00', end_date: '+4 days 21:00' });
    await seed(storage, [dir.dir], { now: NOW });
    const series = await storage.series.findOne({ slug: 'pottery-class' });
    const before = (await occurrencesOf(series!._id)).map((o) => o._id);
    const events = await storage.events.count({});
    // Later: relative dates still count from the first load.
    const { report, problems } = await seed(storage, [dir.dir], { now: new Date('2026-04-20T12:00:00Z') });
    expect(problems).toEqual([]);
    expect(report.counts.events).toMatchObject({ created: 0, updated: 0, unchanged: 4 });
    expect(await storage.series.findOne({ slug: 'pottery-class' })).toEqual(series);
    expect((await occurrencesOf(series!._id)).map((o) => o._id)).toEqual(before);
    expect(await storage.events.count({})).toBe(events);
    expect(await storage.series.count({})).toBe(1);
  });

  it('resolve relative exdates and rdates to the local dates they fall on', async () => {
    writeEvents({
      ...CLASS,
      start_date: 'next tuesday 19:00',
      end_date: 'next tuesday 21:00',
      recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=TU;COUNT=4', exdates: ['next tuesday +1 week'], rdates: ['next tuesday +4 days', '2026-04-30'] },
    });
    const { problems } = await seed(storage, [dir.dir], { now: NOW });
    expect(problems).toEqual([]);
    const series = await storage.series.findOne({ slug: 'pottery-class' });
    expect(series?.recurrence).toEqual({ rrule: 'FREQ=WEEKLY;BYDAY=TU;COUNT=4', exdates: ['2026-03-17'], rdates: ['2026-03-14', '2026-04-30'] });
    expect((await occurrencesOf(series!._id)).map((o) => o.occurrenceDate)).toEqual(['2026-03-10', '2026-03-14', '2026-03-24', '2026-03-31', '2026-04-30']);
    const again = await seed(storage, [dir.dir], { now: new Date('2026-06-01T00:00:00Z') });
    expect(again.report.counts.events.unchanged).toBe(4);
  });

  it('report a bad rule like any invalid record, naming the record and recurrence, and write nothing', async () => {
    writeEvents(
      { ...CLASS, recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=TU' } },
      { ...CLASS, slug: 'nonsense', recurrence: { rrule: 'FREQ=SOMETIMES;COUNT=3' } },
      { ...CLASS, slug: 'bad-exdate', recurrence: { rrule: 'FREQ=DAILY;COUNT=3', exdates: ['not a date at all'] } },
      { ...CLASS, slug: 'with-parent', post_parent: 'jam' },
      { ...CLASS, slug: 'no-rule', recurrence: { exdates: [] } },
    );
    const { report, problems } = await seed(storage, [dir.dir], { now: NOW });
    expect(report.outcome).toBe('invalid');
    expect(report.invalidRecords).toBe(5);
    // Schema problems come as each record is read, rule problems with its batch: in index order once sorted.
    expect(problems.map((p) => [p.index, p.slug, p.field]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([
      [3, 'pottery-class', 'recurrence'],
      [4, 'nonsense', 'recurrence'],
      [5, 'bad-exdate', 'recurrence'],
      [6, 'with-parent', 'post_parent'],
      [7, 'no-rule', 'recurrence'],
    ]);
    const problemOf = (slug: string) => problems.find((p) => p.slug === slug)!;
    expect(problemOf('pottery-class').location).toContain('events.json');
    expect(problemOf('pottery-class').message).toMatch(/^recurrence: /);
    expect(problemOf('bad-exdate').message).toContain('"not a date at all"');
    expect(await storage.series.count({})).toBe(0);
    expect(await storage.events.count({})).toBe(0);
  });

  it('refuse an event record whose post_parent names a series record', async () => {
    writeEvents(CLASS, { slug: 'child', title: 'Child', start_date: '+1 day', end_date: '+1 day', post_parent: 'pottery-class' });
    const { report, problems } = await seed(storage, [dir.dir], { now: NOW });
    expect(report.outcome).toBe('invalid');
    expect(problems.map((p) => [p.slug, p.field])).toEqual([['child', 'post_parent']]);
  });

  it('update a stored series the record changes, as scope all: ids of surviving dates kept, removed ones trashed', async () => {
    writeEvents(CLASS);
    await seed(storage, [dir.dir], { now: NOW });
    const series = await storage.series.findOne({ slug: 'pottery-class' });
    const before = await occurrencesOf(series!._id);
    expect(before).toHaveLength(5);

    // A new title, and a rule that ends two weeks earlier.
    writeEvents({ ...CLASS, title: 'Pottery Evening', recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=TU;COUNT=3' } });
    const { report, problems } = await seed(storage, [dir.dir], { now: NOW });
    expect(problems).toEqual([]);
    expect(report.counts.events).toMatchObject({ failed: 0, unchanged: 3, updated: 1 });
    const stored = await storage.series.findById(series!._id);
    expect(stored).toMatchObject({ title: 'Pottery Evening', recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=TU;COUNT=3' } });
    const after = await occurrencesOf(series!._id);
    expect(after.map((o) => o._id)).toEqual(before.slice(0, 3).map((o) => o._id));
    expect(after.map((o) => o.title)).toEqual(['Pottery Evening', 'Pottery Evening', 'Pottery Evening']);
    // Same wall clock as before across the DST change: only the title moved.
    expect(after.map((o) => o.startUtc)).toEqual(before.slice(0, 3).map((o) => o.startUtc));
    for (const removed of before.slice(3)) expect((await storage.events.findById(removed._id))?.status).toBe('trash');

    // Loaded again: nothing left to change.
    const again = await seed(storage, [dir.dir], { now: NOW });
    expect(again.report.counts.events).toMatchObject({ failed: 0, unchanged: 4, updated: 0 });
  });

  it("move a series whose record moves its start, keeping the occurrences' wall clock", async () => {
    writeEvents(CLASS);
    await seed(storage, [dir.dir], { now: NOW });
    const series = await storage.series.findOne({ slug: 'pottery-class' });
    const before = await occurrencesOf(series!._id);
    writeEvents({ ...CLASS, start_date: '2026-03-10 18:30', end_date: '2026-03-10 20:30' });
    const { problems } = await seed(storage, [dir.dir], { now: NOW });
    expect(problems).toEqual([]);
    const after = await occurrencesOf(series!._id);
    expect(after.map((o) => o._id)).toEqual(before.map((o) => o._id));
    // 18:30 Berlin: 17:30 UTC in winter time, 16:30 UTC from 29 March.
    expect(after.map((o) => o.startUtc.toISOString().slice(5, 16))).toEqual(['03-10T17:30', '03-17T17:30', '03-24T17:30', '03-31T16:30', '04-07T16:30']);
  });

  it('are counted, not written, by a dry run', async () => {
    writeEvents(CLASS);
    const { report, problems } = await seed(storage, [dir.dir], { now: NOW, dryRun: true });
    expect(problems).toEqual([]);
    expect(report.counts.events.created).toBe(4);
    expect(await storage.series.count({})).toBe(0);
  });

  it('are trashed whole by --prune when the files no longer hold them; their occurrences never on their own', async () => {
    writeEvents(CLASS);
    await seed(storage, [dir.dir], { now: NOW });
    const series = await storage.series.findOne({ slug: 'pottery-class' });
    // The occurrences are not records of the files, yet nothing is to be pruned.
    const kept = await seed(storage, [dir.dir], { now: NOW, prune: true });
    expect(kept.report.outcome).toBe('ok');
    expect(kept.report.prune?.events).toEqual({ count: 0, slugs: [] });

    writeEvents();
    const listed = await seed(storage, [dir.dir], { now: NOW, prune: true });
    expect(listed.report.outcome).toBe('prune-unconfirmed');
    expect(listed.report.prune?.events).toEqual({ count: 1, slugs: ['pottery-class'] });
    // Trashed with its occurrences, as a DELETE of scope `all` does.
    const removed = await seed(storage, [dir.dir], { now: NOW, prune: true, yes: true });
    expect(removed.report.outcome).toBe('ok');
    expect(removed.report.counts.events).toMatchObject({ removed: 1, failed: 0 });
    expect((await storage.series.findById(series!._id))?.status).toBe('trash');
    expect(await occurrencesOf(series!._id)).toEqual([]);
    const again = await seed(storage, [dir.dir], { now: NOW, prune: true });
    expect(again.report.prune?.events).toEqual({ count: 0, slugs: [] });
  });
});
