/**
 * The seed calendar in seeds/: valid against the API's own schemas, as large and varied
 * as promised, and loaded by start-up seeding into an empty store, fast.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiValidator, seedValidator } from '../../src/import/schemas.js';
import { defaultSeedsDir } from '../../src/import/sources.js';
import { loadConfig } from '../../src/config.js';
import { formatWallClock } from '../../src/lib/dates/index.js';
import { slugFrom } from '../../src/lib/slug.js';
import { seedIfEmpty } from '../../src/import/seed-on-start.js';
import { type Storage } from '../../src/storage/port.js';
import { openStorage } from './fixtures.js';

const dir = fileURLToPath(new URL('../../seeds/', import.meta.url));
type Rec = Record<string, unknown> & { slug: string };
const read = (name: string) => JSON.parse(readFileSync(`${dir}${name}.json`, 'utf8')) as Rec[];

let seeds: Record<'categories' | 'tags' | 'venues' | 'organizers' | 'events', Rec[]>;
beforeAll(() => {
  seeds = { categories: read('categories'), tags: read('tags'), venues: read('venues'), organizers: read('organizers'), events: read('events') };
});

const addDays = (date: string, days: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

const storages: Storage[] = [];
afterEach(async () => {
  for (const s of storages.splice(0)) await s.close();
});

describe('seed data', () => {
  it('is valid against the seed schemas, which are the API schemas with slug references', () => {
    for (const [resource, records] of Object.entries(seeds) as Array<[keyof typeof seeds, Rec[]]>) {
      const validate = seedValidator(resource);
      for (const [index, record] of records.entries()) expect(validate(record), `${resource}[${index}]`).toEqual([]);
    }
  });

  it('is valid against the API create schemas once slugs become ids', () => {
    const ids = (list: unknown) => (list as string[]).map((_, i) => i + 1);
    for (const event of seeds.events) {
      const { venue, organizer, categories, tags, post_parent, recurrence, ...rest } = event;
      // A series' exdates and rdates may be relative in seed files; the API takes the local dates they name.
      const local = (list: unknown) => (list as string[]).map(() => '2030-01-01');
      const rule = recurrence as { rrule: string; exdates?: string[]; rdates?: string[] } | undefined;
      const body = {
        ...rest,
        ...(rule !== undefined
          ? {
              recurrence: {
                rrule: rule.rrule,
                ...(rule.exdates ? { exdates: local(rule.exdates) } : {}),
                ...(rule.rdates ? { rdates: local(rule.rdates) } : {}),
              },
            }
          : {}),
        ...(venue !== undefined ? { venue: 1 } : {}),
        ...(organizer !== undefined ? { organizer: ids(organizer) } : {}),
        ...(categories !== undefined ? { categories: ids(categories) } : {}),
        ...(tags !== undefined ? { tags: ids(tags) } : {}),
        ...(post_parent !== undefined ? { post_parent: 1 } : {}),
      };
      expect(apiValidator('events')(body), event.slug).toEqual([]);
    }
    for (const { slug: _slug, ...venue } of seeds.venues) expect(apiValidator('venues')(venue)).toEqual([]);
    for (const { slug: _slug, ...organizer } of seeds.organizers) expect(apiValidator('organizers')(organizer)).toEqual([]);
    for (const { parent, ...category } of seeds.categories) expect(apiValidator('categories')({ ...category, ...(parent ? { parent } : {}) })).toEqual([]);
    for (const tag of seeds.tags) expect(apiValidator('tags')(tag)).toEqual([]);
  });

  it('has the promised size and variety', () => {
    const { events, venues, organizers, categories, tags } = seeds;
    expect(events.length).toBeGreaterThanOrEqual(300);
    expect(venues).toHaveLength(40);
    expect(organizers).toHaveLength(25);
    expect(tags).toHaveLength(30);

    // Venues with real coordinates, in several countries.
    for (const v of venues) {
      expect(typeof v.geo_lat === 'number' && typeof v.geo_lng === 'number', v.slug).toBe(true);
      expect(Math.abs(v.geo_lat as number)).toBeLessThanOrEqual(90);
    }
    expect(new Set(venues.map((v) => v.country)).size).toBeGreaterThanOrEqual(10);

    // A category tree two levels deep: roots, and children whose parents are roots.
    const bySlug = new Map(categories.map((c) => [c.slug, c]));
    const children = categories.filter((c) => c.parent);
    expect(children.length).toBeGreaterThan(5);
    for (const child of children) expect(bySlug.get(child.parent as string)?.parent, child.slug).toBeUndefined();

    // Every kind of event.
    const upcoming = events.filter((e) => String(e.start_date).startsWith('+'));
    const past = events.filter((e) => String(e.start_date).startsWith('-'));
    expect(upcoming.length).toBeGreaterThanOrEqual(300);
    expect(past.length).toBeGreaterThanOrEqual(5);
    // Within the coming 12 months.
    for (const e of upcoming) expect(Number(/^\+(\d+) day/.exec(String(e.start_date))?.[1]), e.slug).toBeLessThanOrEqual(365);
    expect(events.filter((e) => e.all_day === true).length).toBeGreaterThanOrEqual(5);
    const dayOf = (when: unknown) => Number(/^[+-]\d+/.exec(String(when))?.[0]);
    expect(events.filter((e) => dayOf(e.end_date) > dayOf(e.start_date)).length, 'multi-day').toBeGreaterThanOrEqual(10);
    expect(events.filter((e) => e.featured === true).length).toBeGreaterThanOrEqual(5);
    expect(events.filter((e) => e.cost !== undefined).length).toBeGreaterThanOrEqual(100);
    expect(events.filter((e) => e.website !== undefined).length).toBeGreaterThanOrEqual(50);
    expect(new Set(events.map((e) => e.timezone)).size).toBeGreaterThanOrEqual(8);

    // Recurring-looking series: occurrences pointing at a parent in the file.
    const eventSlugs = new Set(events.map((e) => e.slug));
    const occurrences = events.filter((e) => e.post_parent);
    expect(new Set(occurrences.map((e) => e.post_parent)).size).toBeGreaterThanOrEqual(5);
    for (const e of occurrences) expect(eventSlugs.has(e.post_parent as string), e.slug).toBe(true);

    // Cross-referenced by slug; slugs written as stored and unique.
    const defined = {
      venue: new Set(venues.map((v) => v.slug)),
      organizer: new Set(organizers.map((o) => o.slug)),
      categories: new Set(bySlug.keys()),
      tags: new Set(tags.map((t) => t.slug)),
    };
    for (const e of events) {
      if (e.venue) expect(defined.venue.has(e.venue as string), e.slug).toBe(true);
      for (const o of (e.organizer as string[] | undefined) ?? []) expect(defined.organizer.has(o), e.slug).toBe(true);
      for (const c of (e.categories as string[] | undefined) ?? []) expect(defined.categories.has(c), e.slug).toBe(true);
      for (const t of (e.tags as string[] | undefined) ?? []) expect(defined.tags.has(t), e.slug).toBe(true);
    }
    for (const records of Object.values(seeds)) {
      expect(new Set(records.map((r) => r.slug)).size).toBe(records.length);
      for (const r of records) expect(slugFrom(r.slug, ''), r.slug).toBe(r.slug);
    }
  });

  it('is loaded by start-up seeding into an empty store, and not again', async () => {
    expect(defaultSeedsDir()).toBe(dir);
    const storage = await openStorage();
    storages.push(storage);
    const config = loadConfig({});
    const logs: string[] = [];
    const report = await seedIfEmpty({ storage, config, log: { info: (m) => logs.push(m) } });
    expect(report?.outcome).toBe('ok');
    const series = seeds.events.filter((e) => e.recurrence !== undefined);
    expect(await storage.series.count({})).toBe(series.length);
    expect(await storage.events.count({ seriesId: { $exists: false } })).toBe(seeds.events.length - series.length);
    expect(await storage.venues.count({ location: { $ne: null } })).toBe(40);
    expect(await storage.organizers.count({})).toBe(25);
    expect(await storage.categories.count({})).toBe(seeds.categories.length);
    expect(await storage.tags.count({})).toBe(30);
    expect(logs[0]).toMatch(/^seed: loaded \d+ categories, 30 tags, 40 venues, 25 organizers, \d+ events in \d+ ms$/);
    // Upcoming whenever it is loaded.
    expect(await storage.events.count({ startUtc: { $gt: new Date() } })).toBeGreaterThanOrEqual(300);

    // The series: their occurrences are events listed under the series' id, dated from the load.
    const occurrences = async (slug: string) => {
      const stored = await storage.series.findOne({ slug });
      return storage.events.find({ filter: { postParent: stored!._id }, sort: [['startUtc', 1]] });
    };
    expect(await occurrences('life-drawing-class')).toHaveLength(12);
    // The market: every first Saturday after its opening day, 09:00 in Cape Town.
    const market = await occurrences('kirstenbosch-makers-market');
    expect(market).toHaveLength(12);
    for (const o of market.slice(1)) {
      expect(new Date(`${o.occurrenceDate}T00:00:00Z`).getUTCDay(), o.slug).toBe(6);
      expect(Number(o.occurrenceDate!.slice(8)), o.slug).toBeLessThanOrEqual(7);
      expect(o.startUtc.toISOString().slice(11, 16)).toBe('07:00');
    }
    // Late Thursdays: the third Thursday left out, a Saturday added.
    const thursdays = await occurrences('orsay-late-thursdays');
    const stored = await storage.series.findOne({ slug: 'orsay-late-thursdays' });
    expect(thursdays).toHaveLength(10);
    expect(stored!.recurrence.exdates).toEqual([addDays(thursdays[0]!.occurrenceDate!, 14)]);
    expect(stored!.recurrence.rdates).toEqual([addDays(thursdays[0]!.occurrenceDate!, 9)]);
    expect(thursdays.map((o) => o.occurrenceDate)).not.toContain(stored!.recurrence.exdates[0]);
    expect(thursdays.map((o) => o.occurrenceDate)).toContain(stored!.recurrence.rdates[0]);
    // The choir: 19:00–21:00 in Berlin every week, on both sides of a change of summer time.
    const choir = await occurrences('konzerthaus-choir-rehearsal');
    expect(choir).toHaveLength(40);
    expect(new Set(choir.map((o) => formatWallClock(o.startUtc, 'Europe/Berlin').slice(11)))).toEqual(new Set(['19:00:00']));
    expect(new Set(choir.map((o) => formatWallClock(o.endUtc, 'Europe/Berlin').slice(11)))).toEqual(new Set(['21:00:00']));
    expect(new Set(choir.map((o) => o.startUtc.toISOString().slice(11, 16)))).toEqual(new Set(['17:00', '18:00']));

    expect(await seedIfEmpty({ storage, config, log: { info: (m) => logs.push(m) } })).toBeNull();
    expect(logs[1]).toBe('seed: the store has data; nothing loaded');
  });

  it('is not loaded when SEED_ON_START is false', async () => {
    const storage = await openStorage();
    storages.push(storage);
    const report = await seedIfEmpty({ storage, config: loadConfig({ SEED_ON_START: 'false' }), log: { info: () => undefined } });
    expect(report).toBeNull();
    expect(await storage.events.count({})).toBe(0);
  });
});
