/**
 * The import in-process (src/import/run.ts): validation before any write, upsert by slug,
 * change detection, dependency order, relative dates, --dry-run and --prune.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Storage } from '../../src/storage/port.js';
import { openStorage, seed, seedDir, smallCalendar } from './fixtures.js';

let storage: Storage;
let dir: ReturnType<typeof seedDir>;

beforeEach(async () => {
  storage = await openStorage();
  dir = seedDir(smallCalendar());
});
afterEach(async () => {
  dir.remove();
  await storage.close();
});

const total = async () =>
  (
    await Promise.all([storage.events.count({}), storage.venues.count({}), storage.organizers.count({}), storage.categories.count({}), storage.tags.count({})])
  ).reduce((a, b) => a + b, 0);

describe('seed loader', () => {
  it('creates everything on the first run, resolving references by slug in dependency order', async () => {
    const { report, problems } = await seed(storage, [dir.dir]);
    expect(problems).toEqual([]);
    expect(report.outcome).toBe('ok');
    expect(report.counts.events).toMatchObject({ created: 3, updated: 0, unchanged: 0, failed: 0 });
    expect(report.counts.categories.created).toBe(2);

    const music = await storage.categories.findOne({ slug: 'music' });
    const jazz = await storage.categories.findOne({ slug: 'jazz' });
    expect(jazz?.parent).toBe(music?._id);
    const hall = await storage.venues.findOne({ slug: 'hall' });
    expect(hall).toMatchObject({ name: 'Concert Hall', geoSource: 'provided', location: { type: 'Point', coordinates: [13.4, 52.5] } });
    const office = await storage.organizers.findOne({ slug: 'office' });
    const outdoor = await storage.tags.findOne({ slug: 'outdoor' });
    const jam = await storage.events.findOne({ slug: 'jam' });
    expect(jam).toMatchObject({
      venueId: hall?._id,
      organizerIds: [office?._id],
      categoryIds: [jazz?._id],
      tagIds: [outdoor?._id],
      cost: ['12€'],
      timezone: 'Europe/Berlin',
    });
    // The occurrence listed before its parent was written after it, and linked to it.
    const occurrence = await storage.events.findOne({ slug: 'jam-2' });
    expect(occurrence?.postParent).toBe(jam?._id);
    // Derived fields are the services' own.
    expect(jam?.searchTerms).toContain('jam');
  });

  it('reports every record unchanged on a second run and writes nothing', async () => {
    await seed(storage, [dir.dir]);
    const before = await storage.events.findOne({ slug: 'jam' });
    const { report } = await seed(storage, [dir.dir]);
    for (const counts of Object.values(report.counts)) expect(counts).toMatchObject({ created: 0, updated: 0, failed: 0 });
    expect(report.counts.events.unchanged).toBe(3);
    expect(report.counts.venues.unchanged).toBe(1);
    expect(await storage.events.findOne({ slug: 'jam' })).toEqual(before);
  });

  it('keeps relative dates stable: a later run means the same instants (anchored at the first load)', async () => {
    const first = new Date('2026-03-01T09:00:00Z');
    await seed(storage, [dir.dir], { now: first });
    const jam = await storage.events.findOne({ slug: 'jam' });
    expect(jam?.startUtc.toISOString()).toBe('2026-03-02T19:00:00.000Z');
    const { report } = await seed(storage, [dir.dir], { now: new Date('2026-05-20T17:30:00Z') });
    expect(report.counts.events).toMatchObject({ unchanged: 3, updated: 0 });
    expect((await storage.events.findOne({ slug: 'jam' }))?.startUtc.toISOString()).toBe('2026-03-02T19:00:00.000Z');
  });

  it('updates an edited record, and only that one', async () => {
    await seed(storage, [dir.dir]);
    const calendar = smallCalendar();
    calendar['events.json'][2] = { ...calendar['events.json'][2], title: 'Spring Gala', cost: '30€' } as never;
    calendar['venues.json'][0] = { ...calendar['venues.json'][0], phone: '+49 30 1234' } as never;
    dir.write('events.json', calendar['events.json']);
    dir.write('venues.json', calendar['venues.json']);
    const { report } = await seed(storage, [dir.dir]);
    expect(report.counts.events).toMatchObject({ updated: 1, unchanged: 2 });
    expect(report.counts.venues).toMatchObject({ updated: 1, unchanged: 0 });
    const gala = await storage.events.findOne({ slug: 'gala' });
    expect(gala).toMatchObject({ title: 'Spring Gala', cost: ['30€'], currencySymbol: '€' });
    expect(gala?.searchTerms).toContain('spring');
    expect((await storage.venues.findOne({ slug: 'hall' }))?.phone).toBe('+49 30 1234');
  });

  it('reports every invalid record with file, index and field, and writes nothing', async () => {
    const calendar = smallCalendar();
    dir.write('events.json', [
      ...calendar['events.json'],
      { slug: 'bad-dates', title: 'Backwards', start_date: '2030-01-02 10:00', end_date: '2030-01-01 10:00' },
      { slug: 'bad-venue', title: 'Nowhere', start_date: '+1 day', end_date: '+1 day', venue: 'no-such-venue', featured: 'perhaps' },
      { slug: 'gala', title: 'Duplicate', start_date: '+1 day', end_date: '+1 day' },
      { title: 'Missing dates' },
      { slug: 'Not A Slug', title: 'x', start_date: '+1 day', end_date: '+1 day', timezone: 'Mars/Olympus' },
    ]);
    dir.write('tags.json', [
      { slug: 'outdoor', name: 'Outdoor' },
      { slug: 'outside', name: 'outdoor' },
    ]);
    const { report, problems } = await seed(storage, [dir.dir]);
    expect(report.outcome).toBe('invalid');
    expect(report.invalidRecords).toBe(6);
    const where = problems.map((p) => `${p.file.split('/').pop()}[${p.index}] ${p.field}`);
    expect(where).toEqual(
      expect.arrayContaining([
        'events.json[3] end_date',
        'events.json[4] featured',
        'events.json[5] slug',
        'events.json[6] start_date',
        'events.json[6] end_date',
        'events.json[7] slug',
        'tags.json[1] name',
      ]),
    );
    // The venue reference is checked once the schema passes: a record with a bad type is reported for that first.
    expect(problems.every((p) => p.kind === 'invalid' && p.location.length > 0 && p.message.length > 0)).toBe(true);
    expect(await total()).toBe(0);
  });

  it('reports references to records neither in the files nor stored', async () => {
    dir.write('events.json', [
      { slug: 'x', title: 'X', start_date: '+1 day', end_date: '+1 day', venue: 'nowhere', organizer: ['nobody'], tags: ['nothing'], post_parent: 'no-parent' },
    ]);
    const { report, problems } = await seed(storage, [dir.dir]);
    expect(report.outcome).toBe('invalid');
    expect(problems.map((p) => p.field).sort()).toEqual(['organizer', 'post_parent', 'tags', 'venue']);
    expect(problems.find((p) => p.field === 'venue')?.message).toContain('"nowhere"');
    expect(await total()).toBe(0);
  });

  it('reports each record of a batch for its own references only', async () => {
    const event = (slug: string, extra: object) => ({ slug, title: slug, start_date: '+1 day', end_date: '+1 day', venue: 'hall', ...extra });
    dir.write('events.json', [
      event('a', {}),
      event('b', { venue: 'nowhere' }),
      event('c', {}),
      event('d', { organizer: ['office', 'nobody'] }),
      event('e', { tags: ['outdoor'] }),
      event('f', { post_parent: 'no-such-event' }),
      event('g', { post_parent: 'a' }),
    ]);
    const { report, problems } = await seed(storage, [dir.dir]);
    expect(report.invalidRecords).toBe(3);
    expect(problems.map((p) => `${p.slug} ${p.field}`)).toEqual(['b venue', 'd organizer', 'f post_parent']);
  });

  it('resolves references to stored records that the files do not hold', async () => {
    await seed(storage, [dir.dir]);
    const only = seedDir({
      'events-more.json': [
        { slug: 'encore', title: 'Encore', start_date: '+2 days 21:00', end_date: '+2 days 22:00', venue: 'hall', categories: ['music'], post_parent: 'jam' },
      ],
    });
    try {
      const { report, problems } = await seed(storage, [only.dir]);
      expect(problems).toEqual([]);
      expect(report.counts.events.created).toBe(1);
      const encore = await storage.events.findOne({ slug: 'encore' });
      expect(encore?.venueId).toBe((await storage.venues.findOne({ slug: 'hall' }))?._id);
      expect(encore?.postParent).toBe((await storage.events.findOne({ slug: 'jam' }))?._id);
    } finally {
      only.remove();
    }
  });

  it('validates and compares without writing on --dry-run', async () => {
    const { report } = await seed(storage, [dir.dir], { dryRun: true });
    expect(report.outcome).toBe('ok');
    expect(report.dryRun).toBe(true);
    expect(report.counts.events.created).toBe(3);
    expect(await total()).toBe(0);
    await seed(storage, [dir.dir]);
    const again = await seed(storage, [dir.dir], { dryRun: true });
    expect(again.report.counts.events).toMatchObject({ created: 0, updated: 0, unchanged: 3 });
  });

  it('lists what --prune would remove without --yes, and removes it with --yes', async () => {
    await seed(storage, [dir.dir]);
    const calendar = smallCalendar();
    dir.write(
      'events.json',
      calendar['events.json'].filter((e) => e.slug !== 'gala'),
    );
    dir.write('tags.json', []);
    dir.write(
      'events.json',
      calendar['events.json'].filter((e) => e.slug !== 'gala').map((e) => ({ ...e, tags: [] })),
    );

    const listed = await seed(storage, [dir.dir], { prune: true });
    expect(listed.report.outcome).toBe('prune-unconfirmed');
    expect(listed.report.prune?.events).toEqual({ count: 1, slugs: ['gala'] });
    expect(listed.report.prune?.tags).toEqual({ count: 1, slugs: ['outdoor'] });
    expect((await storage.events.findOne({ slug: 'gala' }))?.status).toBe('publish');
    expect(await storage.tags.count({})).toBe(1);

    const removed = await seed(storage, [dir.dir], { prune: true, yes: true });
    expect(removed.report.outcome).toBe('ok');
    expect(removed.report.counts.events.removed).toBe(1);
    expect(removed.report.counts.tags.removed).toBe(1);
    // Events go to the trash (as an API DELETE does); terms are deleted for good.
    expect((await storage.events.findOne({ slug: 'gala' }))?.status).toBe('trash');
    expect(await storage.tags.count({})).toBe(0);

    // Nothing left to prune; a record put back in the files comes back from the trash.
    dir.write(
      'events.json',
      calendar['events.json'].map((e) => ({ ...e, tags: [] })),
    );
    const back = await seed(storage, [dir.dir], { prune: true });
    expect(back.report.outcome).toBe('ok');
    expect(back.report.counts.events.updated).toBe(1);
    expect((await storage.events.findOne({ slug: 'gala' }))?.status).toBe('publish');
  });

  it('prunes only the resources the run has files for, and keeps stored records the files reference', async () => {
    await seed(storage, [dir.dir]);
    const only = seedDir({ 'events.json': [{ slug: 'solo', title: 'Solo', start_date: '+3 days', end_date: '+3 days', venue: 'hall' }] });
    try {
      const { report } = await seed(storage, [only.dir], { prune: true, yes: true });
      expect(Object.keys(report.prune ?? {})).toEqual(['events']);
      expect(report.counts.events.removed).toBe(3);
      expect(await storage.venues.count({ status: 'publish' })).toBe(1);
    } finally {
      only.remove();
    }
  });

  it('writes the same events whether the validation pass kept the records or the file is read again', async () => {
    const lines = Array.from({ length: 12 }, (_, i) =>
      JSON.stringify({
        slug: `line-${i}`,
        title: `Line ${i}`,
        start_date: `2030-01-${String(i + 1).padStart(2, '0')} 10:00`,
        end_date: `2030-01-${String(i + 1).padStart(2, '0')} 11:00`,
        ...(i % 4 === 1 ? { post_parent: 'line-0' } : {}),
      }),
    );
    dir.write('events.json', []);
    dir.write('events.jsonl', `${lines.join('\n')}\n`);
    const now = new Date('2029-06-01T00:00:00Z');
    const kept = await seed(storage, [dir.dir], { now });
    const other = await openStorage();
    try {
      // A limit of 5 keeps the first records only: the file is then read again for the write pass.
      const reread = await seed(other, [dir.dir], { now, keptEventsLimit: 5, batchSize: 4 });
      expect(reread.problems).toEqual([]);
      expect(reread.report.counts.events).toEqual(kept.report.counts.events);
      expect(kept.report.counts.events.created).toBe(12);
      // Ids depend on the batch size (a batch is written concurrently), so parents are compared by slug.
      const shape = async (s: Storage) => {
        const events = await s.events.find({ filter: {}, sort: [['slug', 1]] });
        const slugOf = new Map(events.map((e) => [e._id, e.slug]));
        return events.map(({ slug, startUtc, postParent }) => ({ slug, startUtc, parent: postParent === null ? null : slugOf.get(postParent) }));
      };
      expect(await shape(other)).toEqual(await shape(storage));
    } finally {
      await other.close();
    }
  });

  it('writes a batch of series in layers: parents, then occurrences, then theirs — one insertMany each', async () => {
    // Ten series of a parent, two occurrences and an occurrence of an occurrence, interleaved the way
    // an export lists them (each parent before its children, as streamed files must).
    const lines: string[] = [];
    const day = (n: number) => `2030-02-${String(n + 1).padStart(2, '0')}`;
    for (let s = 0; s < 10; s++) {
      const event = (slug: string, parent?: string) =>
        lines.push(
          JSON.stringify({ slug, title: slug, start_date: `${day(s)} 10:00`, end_date: `${day(s)} 11:00`, ...(parent ? { post_parent: parent } : {}) }),
        );
      event(`series-${s}`);
      event(`series-${s}-a`, `series-${s}`);
      event(`series-${s}-b`, `series-${s}`);
      event(`series-${s}-a-1`, `series-${s}-a`);
    }
    dir.write('events.json', []);
    dir.write('events.jsonl', `${lines.join('\n')}\n`);
    const sizes: number[] = [];
    const insertMany = storage.events.insertMany.bind(storage.events);
    storage.events.insertMany = async (docs) => (sizes.push(docs.length), insertMany(docs));

    const { report, problems } = await seed(storage, [dir.dir]);
    expect(problems).toEqual([]);
    expect(report.counts.events.created).toBe(40);
    // One write per layer of the one batch (it used to be one per series: 10 writes of 3–4 events).
    expect(sizes).toEqual([10, 20, 10]);
    const events = await storage.events.find({ filter: {}, sort: [['slug', 1]] });
    const slugOf = new Map(events.map((e) => [e._id, e.slug]));
    const parents = Object.fromEntries(events.map((e) => [e.slug, e.postParent === null ? null : slugOf.get(e.postParent)]));
    for (let s = 0; s < 10; s++) {
      expect(parents).toMatchObject({
        [`series-${s}`]: null,
        [`series-${s}-a`]: `series-${s}`,
        [`series-${s}-b`]: `series-${s}`,
        [`series-${s}-a-1`]: `series-${s}-a`,
      });
    }

    // A second run with a smaller batch: a parent in an earlier batch comes from storage, and nothing changes.
    sizes.length = 0;
    const again = await seed(storage, [dir.dir], { batchSize: 3 });
    expect(again.problems).toEqual([]);
    expect(again.report.counts.events).toMatchObject({ unchanged: 40, created: 0, updated: 0 });
    expect(sizes).toEqual([]);

    // Batches of 3 and 5 into empty stores: series cross batches (a parent's write may still be in
    // flight when its occurrences' batch is prepared) and every link comes out the same.
    for (const batchSize of [3, 5]) {
      const other = await openStorage();
      try {
        const small = await seed(other, [dir.dir], { batchSize });
        expect(small.problems).toEqual([]);
        expect(small.report.counts.events.created).toBe(40);
        const stored = await other.events.find({ filter: {}, sort: [['slug', 1]] });
        const slugs = new Map(stored.map((e) => [e._id, e.slug]));
        expect(Object.fromEntries(stored.map((e) => [e.slug, e.postParent === null ? null : slugs.get(e.postParent)]))).toEqual(parents);
      } finally {
        await other.close();
      }
    }
  });

  it('writes a chain of occurrences (each the parent of the next) across small batches with every link right', async () => {
    // Every event one layer deeper than the one before: one write per event, the first of each batch
    // naming a parent written by the batch before; and a batch holds its size at most.
    const lines = Array.from({ length: 25 }, (_, i) =>
      JSON.stringify({
        slug: `chain-${i}`,
        title: `Chain ${i}`,
        start_date: '2030-03-01 10:00',
        end_date: '2030-03-01 11:00',
        ...(i > 0 ? { post_parent: `chain-${i - 1}` } : {}),
      }),
    );
    dir.write('events.json', []);
    dir.write('events.jsonl', `${lines.join('\n')}\n`);
    const written: number[] = [];
    const insertMany = storage.events.insertMany.bind(storage.events);
    storage.events.insertMany = async (docs) => (written.push(docs.length), insertMany(docs));
    // The events a batch holds: each batch looks its slugs up with one query.
    const held: number[] = [];
    const find = storage.events.find.bind(storage.events);
    storage.events.find = async (query) => {
      const slug = (query.filter as { slug?: { $in?: unknown[] } }).slug;
      if (Array.isArray(slug?.$in)) held.push(slug.$in.length);
      return find(query);
    };
    const { report, problems } = await seed(storage, [dir.dir], { batchSize: 4 });
    expect(problems).toEqual([]);
    expect(report.counts.events.created).toBe(25);
    expect(written).toEqual(Array.from({ length: 25 }, () => 1));
    expect(held).toEqual([4, 4, 4, 4, 4, 4, 1]);
    const events = await storage.events.find({ filter: {}, sort: [['slug', 1]] });
    const slugOf = new Map(events.map((e) => [e._id, e.slug]));
    for (const e of events) {
      const i = Number(e.slug.slice('chain-'.length));
      expect(e.postParent === null ? null : slugOf.get(e.postParent)).toBe(i === 0 ? null : `chain-${i - 1}`);
    }
  });

  it('reads JSON Lines and CSV event files, reporting lines', async () => {
    const calendar = smallCalendar();
    dir.write('events.json', []);
    dir.write(
      'events.jsonl',
      `${JSON.stringify(calendar['events.json'][1])}\n\n${JSON.stringify({ slug: 'line-3', title: 'Line three', start_date: '2030-01-01 10:00', end_date: '2030-01-01 11:00' })}\n`,
    );
    dir.write(
      'events.csv',
      [
        'slug,title,start_date,end_date,timezone,all_day,venue,organizer,categories,tags,cost,featured,description',
        'csv-1,"Concert, with comma",2030-02-01 19:00,2030-02-01 21:00,Europe/Paris,,hall,office,"music,jazz",outdoor,15€,true,"Two ""quoted"" words"',
        'csv-2,Fair,2030-03-01,2030-03-02,,1,,,,,,,',
      ].join('\n'),
    );
    const { report, problems } = await seed(storage, [dir.dir]);
    expect(problems).toEqual([]);
    expect(report.counts.events.created).toBe(4);
    const csv1 = await storage.events.findOne({ slug: 'csv-1' });
    expect(csv1).toMatchObject({ title: 'Concert, with comma', timezone: 'Europe/Paris', featured: true, cost: ['15€'], description: 'Two "quoted" words' });
    expect(csv1?.categoryIds).toHaveLength(2);
    expect(csv1?.startUtc.toISOString()).toBe('2030-02-01T18:00:00.000Z');
    expect(await storage.events.findOne({ slug: 'csv-2' })).toMatchObject({ allDay: true, endUtc: new Date('2030-03-02T23:59:59.000Z') });

    dir.write(
      'events.jsonl',
      `{"slug":"ok","title":"Ok","start_date":"+1 day","end_date":"+1 day"}\n{not json}\n{"slug":"x","title":"X","start_date":"+1 day"}\n`,
    );
    dir.write('events.csv', 'title,start_date,end_date,colour\nA,+1 day,+1 day,red\n');
    const bad = await seed(storage, [dir.dir]);
    expect(bad.report.outcome).toBe('invalid');
    expect(bad.problems.map((p) => `${p.location.split('/').pop()} ${p.field}`)).toEqual([
      'events.csv:1 colour',
      'events.jsonl:2 (line)',
      'events.jsonl:3 end_date',
    ]);
  });

  it('refuses relative publication dates and unknown file names', async () => {
    dir.write('events.json', [{ slug: 'p', title: 'P', start_date: '+1 day', end_date: '+1 day', date: '-1 week' }]);
    const { problems } = await seed(storage, [dir.dir]);
    expect(problems).toMatchObject([{ field: 'date', message: expect.stringContaining('absolute') }]);
    dir.write('events.json', []);
    dir.write('speakers.json', []);
    await expect(seed(storage, [dir.dir])).rejects.toThrow(/speakers\.json: cannot tell what it holds/);
  });

  it('carries every field of the seed event schema to the stored event', async () => {
    // Each field holds a value other than its default, so a field the loader drops fails below.
    const record = {
      slug: 'every-field',
      title: 'Every Field',
      description: '<p>All of them</p>',
      excerpt: 'All',
      author: 7,
      status: 'draft',
      timezone: 'Europe/Berlin',
      all_day: true,
      start_date: '2031-06-01 00:00',
      end_date: '2031-06-02 23:59',
      date: '2026-01-02 10:00',
      image: 'https://example.org/poster.png',
      cost: '15€',
      website: 'https://example.org/every-field',
      show_map: true,
      show_map_link: true,
      hide_from_listings: true,
      sticky: true,
      featured: true,
      ticketed: true,
      venue: 'hall',
      organizer: ['office'],
      categories: ['jazz'],
      tags: ['outdoor'],
      post_parent: 'gala',
    };
    const { SeedEventSchema } = await import('../../src/import/schemas.js');
    // date_utc is the other spelling of date (one record gives one of them; its own test is the
    // publication-date one); recurrence makes a series, whose fields test/import/series.test.ts follows.
    expect(Object.keys(record).sort()).toEqual(
      Object.keys(SeedEventSchema.properties)
        .filter((key) => key !== 'date_utc' && key !== 'recurrence')
        .sort(),
    );
    const calendar = smallCalendar();
    dir.write('events.json', [...calendar['events.json'], record]);
    const { report, problems } = await seed(storage, [dir.dir]);
    expect(problems).toEqual([]);
    expect(report.outcome).toBe('ok');
    const [hall, office, jazz, outdoor, gala] = await Promise.all([
      storage.venues.findOne({ slug: 'hall' }),
      storage.organizers.findOne({ slug: 'office' }),
      storage.categories.findOne({ slug: 'jazz' }),
      storage.tags.findOne({ slug: 'outdoor' }),
      storage.events.findOne({ slug: 'gala' }),
    ]);
    const stored = await storage.events.findOne({ slug: 'every-field' });
    expect(stored).toMatchObject({
      title: 'Every Field',
      description: '<p>All of them</p>',
      excerpt: 'All',
      authorId: 7,
      status: 'draft',
      timezone: 'Europe/Berlin',
      allDay: true,
      // All day in Berlin (summer time): from the first day's start to the last day's end.
      startUtc: new Date('2031-05-31T22:00:00Z'),
      endUtc: new Date('2031-06-02T21:59:59Z'),
      dateUtc: new Date('2026-01-02T09:00:00Z'),
      image: { url: 'https://example.org/poster.png', extension: 'png' },
      cost: ['15€'],
      website: 'https://example.org/every-field',
      showMap: true,
      showMapLink: true,
      hideFromListings: true,
      sticky: true,
      featured: true,
      ticketed: true,
      venueId: hall?._id,
      organizerIds: [office?._id],
      categoryIds: [jazz?._id],
      tagIds: [outdoor?._id],
      postParent: gala?._id,
    });
  });

  it('fails a record whose write the services refuse, and reports it', async () => {
    await seed(storage, [dir.dir]);
    // A category renamed to the name of its stored sibling passes validation only if the sibling is in the
    // files too; here both are in the files and swap names, so one write is refused (term_exists).
    dir.write('categories.json', [
      { slug: 'music', name: 'Music' },
      { slug: 'jazz', name: 'Jazz', parent: 'music' },
      { slug: 'blues', name: 'Blues', parent: 'music' },
    ]);
    await seed(storage, [dir.dir]);
    dir.write('categories.json', [
      { slug: 'music', name: 'Music' },
      { slug: 'jazz', name: 'Blues', parent: 'music' },
      { slug: 'blues', name: 'Jazz', parent: 'music' },
    ]);
    const { report, problems } = await seed(storage, [dir.dir], { prune: true, yes: true });
    expect(report.outcome).toBe('failed');
    expect(report.counts.categories.failed).toBeGreaterThan(0);
    expect(problems[0]).toMatchObject({ kind: 'failed', resource: 'categories' });
    expect(report.pruneSkipped).toContain('failed');
  });
});
