/**
 * Storage contract: writes, reads by id, sequences and unique keys, on every engine.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DuplicateKeyError, StorageUnavailableError, UnsupportedQueryError } from '../../src/errors.js';
import { type Collection, type CollectionName, type Filter, type Storage, type TermDoc } from '../../src/storage/port.js';
import { enginesUnderTest } from '../helpers/engines.js';
import { makeCategoryDoc, makeEventDoc, makeOrganizerDoc, makeSeriesDoc, makeTagDoc, makeVenueDoc, point } from '../helpers/factories.js';

const { engines } = await enginesUnderTest();
/** [name, engine] pairs: a plain name in test titles. */
const engineCases = engines.map((engine) => [engine.name, engine] as const);

interface SluggedDoc {
  _id: number;
  slug: string;
  [field: string]: unknown;
}

/** The six slugged collections seen through their common shape, so one table covers them all. */
const collectionCases: Array<{
  collection: CollectionName;
  make: (overrides: { _id: number; slug: string }) => SluggedDoc;
  change: Record<string, unknown>;
}> = [
  { collection: 'events', make: (o) => makeEventDoc(o) as unknown as SluggedDoc, change: { title: 'Autumn concert' } },
  { collection: 'venues', make: (o) => makeVenueDoc(o) as unknown as SluggedDoc, change: { city: 'Potsdam' } },
  {
    collection: 'organizers',
    make: (o) => makeOrganizerDoc(o) as unknown as SluggedDoc,
    change: { email: 'office@example.org' },
  },
  { collection: 'categories', make: (o) => makeCategoryDoc(o) as unknown as SluggedDoc, change: { name: 'Opera' } },
  { collection: 'tags', make: (o) => makeTagDoc(o) as unknown as SluggedDoc, change: { description: 'Loud' } },
  { collection: 'series', make: (o) => makeSeriesDoc(o) as unknown as SluggedDoc, change: { nextDate: '2026-12-03' } },
];

function collectionOf(storage: Storage, name: CollectionName): Collection<SluggedDoc> {
  return storage[name] as unknown as Collection<SluggedDoc>;
}

describe.each(engineCases)('%s engine: documents', (_name, engine) => {
  let storage: Storage;
  beforeEach(async () => {
    storage = await engine.open();
  });
  afterEach(async () => {
    await storage.close();
  });

  describe.each(collectionCases.map((c) => [c.collection, c] as const))('%s', (_collection, { collection, make, change }) => {
    it('inserts, reads, updates and deletes a document', async () => {
      const docs = collectionOf(storage, collection);
      const doc = make({ _id: 11, slug: 'first' });
      await docs.insertOne(doc);
      await docs.insertOne(make({ _id: 12, slug: 'second' }));

      expect(await docs.findById(11)).toEqual(doc);
      expect(await docs.findById(99)).toBeNull();
      expect(await docs.findOne({ slug: 'second' })).toMatchObject({ _id: 12, slug: 'second' });
      expect(await docs.findOne({ slug: 'none' })).toBeNull();

      const updated = await docs.updateById(11, { $set: change });
      expect(updated).toEqual({ ...doc, ...change });
      expect(await docs.findById(11)).toEqual({ ...doc, ...change });
      expect(await docs.updateById(99, { $set: change })).toBeNull();

      expect(await docs.deleteById(11)).toBe(true);
      expect(await docs.deleteById(11)).toBe(false);
      expect(await docs.findById(11)).toBeNull();
      expect(await docs.count({})).toBe(1);
    });

    it('refuses a second document with the same slug and writes nothing', async () => {
      const docs = collectionOf(storage, collection);
      await docs.insertOne(make({ _id: 1, slug: 'same' }));
      const clash = docs.insertOne(make({ _id: 2, slug: 'same' }));
      await expect(clash).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(clash).rejects.toMatchObject({ index: `${collection}_slug_unique` });
      expect(await docs.findById(2)).toBeNull();
      expect(await docs.count({})).toBe(1);
    });

    it('refuses an update to a slug another document owns and leaves both unchanged', async () => {
      const docs = collectionOf(storage, collection);
      const first = make({ _id: 1, slug: 'one' });
      const second = make({ _id: 2, slug: 'two' });
      await docs.insertOne(first);
      await docs.insertOne(second);
      const clash = docs.updateById(2, { $set: { ...change, slug: 'one' } });
      await expect(clash).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await docs.findById(1)).toEqual(first);
      expect(await docs.findById(2)).toEqual(second);
      expect(await docs.findOne({ slug: 'one' })).toEqual(first);
    });

    it('inserts many, failing alone each document whose key is taken (stored or earlier in the list)', async () => {
      const docs = collectionOf(storage, collection);
      await docs.insertOne(make({ _id: 1, slug: 'stored' }));
      const batch = [
        make({ _id: 2, slug: 'new-a' }),
        make({ _id: 3, slug: 'stored' }),
        make({ _id: 4, slug: 'new-b' }),
        make({ _id: 5, slug: 'new-a' }),
        make({ _id: 2, slug: 'new-c' }),
        make({ _id: 6, slug: 'new-d' }),
      ];
      const failures = await docs.insertMany(batch);
      expect(failures.map((f) => [f.index, f.error.index])).toEqual([
        [1, `${collection}_slug_unique`],
        [3, `${collection}_slug_unique`],
        [4, '_id_'],
      ]);
      expect(failures.every((f) => f.error instanceof DuplicateKeyError)).toBe(true);
      expect((await docs.find({ filter: {}, sort: [['_id', 1]] })).map((d) => [d._id, d.slug])).toEqual([
        [1, 'stored'],
        [2, 'new-a'],
        [4, 'new-b'],
        [6, 'new-d'],
      ]);
      expect(await docs.findById(6)).toEqual(batch[5]);
      expect(await docs.insertMany([])).toEqual([]);
    });

    it('refuses the whole insertMany when a document holds undefined, storing none', async () => {
      const docs = collectionOf(storage, collection);
      const batch = [make({ _id: 1, slug: 'a' }), { ...make({ _id: 2, slug: 'b' }), extra: undefined }];
      await expect(docs.insertMany(batch)).rejects.toThrow(/undefined/);
      expect(await docs.count({})).toBe(0);
    });

    it('refuses a duplicate _id', async () => {
      const docs = collectionOf(storage, collection);
      await docs.insertOne(make({ _id: 5, slug: 'a' }));
      await expect(docs.insertOne(make({ _id: 5, slug: 'b' }))).rejects.toMatchObject({ index: '_id_' });
      expect(await docs.findOne({ slug: 'b' })).toBeNull();
    });
  });

  it('keeps stored documents apart from the objects callers hold', async () => {
    const doc = makeEventDoc({ _id: 1, organizerIds: [3] });
    await storage.events.insertOne(doc);
    doc.organizerIds.push(4);
    doc.startUtc.setUTCFullYear(1999);

    const read = (await storage.events.findById(1))!;
    expect(read.organizerIds).toEqual([3]);
    expect(read.startUtc.getUTCFullYear()).toBe(2025);
    // Returned documents are read-only values (port.ts): copies on MongoDB, frozen stored documents
    // on the embedded engine. Either way an attempt to edit one cannot reach the store.
    const tryEdit = (edit: () => void): void => {
      try {
        edit();
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError);
      }
    };
    tryEdit(() => read.organizerIds.push(5));
    const [listed] = await storage.events.find({ filter: {} });
    tryEdit(() => listed!.categoryIds.push(6));
    tryEdit(() => {
      (listed as { title: string }).title = 'changed';
    });

    const again = (await storage.events.findById(1))!;
    expect(again.organizerIds).toEqual([3]);
    expect(again.categoryIds).toEqual([]);
    expect(again.title).toBe(doc.title);
  });

  it('keeps a document read before an update as it was (a write stores a new version)', async () => {
    await storage.events.insertOne(makeEventDoc({ _id: 1, title: 'Before' }));
    const before = (await storage.events.findById(1))!;
    await storage.events.updateById(1, { $set: { title: 'After' } });
    expect(before.title).toBe('Before');
    expect((await storage.events.findById(1))!.title).toBe('After');
  });

  it('stores Dates, nulls, nested objects and arrays faithfully', async () => {
    const doc = makeEventDoc({
      _id: 1,
      image: { url: 'https://img.example/a.jpg', extension: 'jpg' },
      cost: ['0', '20', '30'],
      postParent: null,
    });
    await storage.events.insertOne(doc);
    const read = (await storage.events.findById(1))!;
    expect(read).toEqual(doc);
    expect(read.startUtc).toBeInstanceOf(Date);
    expect(read.postParent).toBeNull();
  });

  it('updateById applies $set and $unset and returns the stored document', async () => {
    const venue = makeVenueDoc({ _id: 1, slug: 'hall' });
    await storage.venues.insertOne(venue);
    const updated = await storage.venues.updateById(1, {
      $set: { name: 'Great Hall', location: point(13.4, 52.5) },
      $unset: ['geoSource'],
    });
    const expected: Record<string, unknown> = { ...venue, name: 'Great Hall', location: point(13.4, 52.5) };
    delete expected.geoSource;
    expect(updated).toEqual(expected);
    expect(await storage.venues.findById(1)).toEqual(expected);
    expect(await storage.venues.count({ geoSource: { $exists: false } })).toBe(1);
  });

  it('updateById may keep its own slug', async () => {
    await storage.events.insertOne(makeEventDoc({ _id: 1, slug: 'mine' }));
    const updated = await storage.events.updateById(1, { $set: { slug: 'mine', title: 'Same slug' } });
    expect(updated).toMatchObject({ slug: 'mine', title: 'Same slug' });
  });

  it('frees a slug when its document is deleted or renamed', async () => {
    await storage.organizers.insertOne(makeOrganizerDoc({ _id: 1, slug: 'taken' }));
    await storage.organizers.updateById(1, { $set: { slug: 'renamed' } });
    await storage.organizers.insertOne(makeOrganizerDoc({ _id: 2, slug: 'taken' }));
    await storage.organizers.deleteById(2);
    await storage.organizers.insertOne(makeOrganizerDoc({ _id: 3, slug: 'taken' }));
    expect((await storage.organizers.find({ filter: {}, sort: [['_id', 1]] })).map((o) => o.slug)).toEqual(['renamed', 'taken']);
  });

  it('enforces the compound unique index of categories (parent + name)', async () => {
    const root = makeCategoryDoc({ _id: 1, slug: 'music', name: 'Music', parent: 0 });
    await storage.categories.insertOne(root);
    await storage.categories.insertOne(makeCategoryDoc({ _id: 2, slug: 'jazz', name: 'Jazz', parent: 1 }));
    // The same name under another parent is fine.
    await storage.categories.insertOne(makeCategoryDoc({ _id: 3, slug: 'jazz-2', name: 'Jazz', parent: 0 }));

    const clash = storage.categories.insertOne(makeCategoryDoc({ _id: 4, slug: 'jazz-3', name: 'Jazz', parent: 1 }));
    await expect(clash).rejects.toBeInstanceOf(DuplicateKeyError);
    await expect(clash).rejects.toMatchObject({ index: 'categories_parent_name_unique' });
    expect(await storage.categories.findById(4)).toBeNull();

    const moved = storage.categories.updateById(3, { $set: { parent: 1 } });
    await expect(moved).rejects.toMatchObject({ index: 'categories_parent_name_unique' });
    expect(await storage.categories.findById(3)).toMatchObject({ parent: 0 });
  });

  it('keeps unique keys of different types apart, and an array element clashes with an equal value', async () => {
    // Values a key encoding could confuse: a number and strings that look like encoded keys.
    const slugs: unknown[] = [1, 'f1', '\u0000f1', 's"f1"', ''];
    for (const [i, slug] of slugs.entries()) await storage.organizers.insertOne(makeOrganizerDoc({ _id: i + 1, slug: slug as string }));
    for (const [i, slug] of [...slugs, ['f1'], [1], ['\u0000f1']].entries()) {
      const clash = storage.organizers.insertOne(makeOrganizerDoc({ _id: 100 + i, slug: slug as string }));
      await expect(clash, JSON.stringify(slug)).rejects.toMatchObject({ index: 'organizers_slug_unique' });
    }
    // An array of new values is stored, and its elements are keys from then on.
    await storage.organizers.insertOne(makeOrganizerDoc({ _id: 10, slug: ['g1', 2] as unknown as string }));
    await expect(storage.organizers.insertOne(makeOrganizerDoc({ _id: 11, slug: 'g1' }))).rejects.toMatchObject({ index: 'organizers_slug_unique' });
    await expect(storage.organizers.insertOne(makeOrganizerDoc({ _id: 12, slug: 2 as unknown as string }))).rejects.toMatchObject({
      index: 'organizers_slug_unique',
    });
    const ids = async (filter: Filter) => (await storage.organizers.find({ filter, sort: [['_id', 1]] })).map((o) => o._id);
    expect(await ids({ slug: 'f1' })).toEqual([2]);
    expect(await ids({ slug: { $in: [1, '\u0000f1', ''] } })).toEqual([1, 3, 5]);
    expect(await ids({ slug: { $in: ['g1'] } })).toEqual([10]);
    expect(await storage.organizers.count({})).toBe(6);
  });

  it('counts a missing key field as null in unique indexes', async () => {
    const { nameKey: _a, ...first } = makeTagDoc({ _id: 1, slug: 'no-key-1' });
    const { nameKey: _b, ...second } = makeTagDoc({ _id: 2, slug: 'no-key-2' });
    await storage.tags.insertOne(first as TermDoc);
    await expect(storage.tags.insertOne(second as TermDoc)).rejects.toMatchObject({ index: 'tags_name_unique' });
    await expect(storage.tags.insertOne(makeTagDoc({ _id: 3, slug: 'null-key', nameKey: null as unknown as string }))).rejects.toMatchObject({
      index: 'tags_name_unique',
    });
    expect(await storage.tags.count({})).toBe(1);
  });

  it('refuses a venue whose location is not a valid point and stores nothing', async () => {
    const bad = makeVenueDoc({ _id: 1, slug: 'nowhere', location: point(200, 95) });
    await expect(storage.venues.insertOne(bad)).rejects.toThrow();
    expect(await storage.venues.findById(1)).toBeNull();

    const good = makeVenueDoc({ _id: 2, slug: 'somewhere' });
    await storage.venues.insertOne(good);
    await expect(storage.venues.updateById(2, { $set: { location: point(13, 91) } })).rejects.toThrow();
    expect(await storage.venues.findById(2)).toEqual(good);
  });

  it('hands out ids per sequence: 1, 2, 3… independently', async () => {
    const posts = [await storage.nextId('posts'), await storage.nextId('posts')];
    const terms = [await storage.nextId('terms')];
    posts.push(await storage.nextId('posts'));
    terms.push(await storage.nextId('terms'));
    expect(posts).toEqual([1, 2, 3]);
    expect(terms).toEqual([1, 2]);
  });

  it('never hands out the same id twice, even concurrently', async () => {
    const ids = await Promise.all(Array.from({ length: 25 }, () => storage.nextId('posts')));
    expect(new Set(ids).size).toBe(25);
    expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(await storage.nextId('posts')).toBe(26);
  });

  it('reserves a block of consecutive ids in one call, and refuses a count that is not a positive whole number', async () => {
    expect(await storage.nextId('posts', 1000)).toBe(1);
    expect(await storage.nextId('posts')).toBe(1001);
    const blocks = await Promise.all([storage.nextId('posts', 3), storage.nextId('posts', 5), storage.nextId('terms', 2)]);
    const posts = [blocks[0], blocks[0] + 1, blocks[0] + 2, ...Array.from({ length: 5 }, (_, k) => blocks[1] + k)];
    expect(posts.sort((a, b) => a - b)).toEqual(Array.from({ length: 8 }, (_, k) => 1002 + k));
    expect(blocks[2]).toBe(1);
    for (const count of [0, -1, 1.5, Number.NaN]) await expect(storage.nextId('posts', count)).rejects.toThrow(/count/);
    expect(await storage.nextId('posts')).toBe(1010);
  });

  it('ensureIndexes is idempotent and ping resolves', async () => {
    await storage.ensureIndexes();
    await storage.ensureIndexes();
    await expect(storage.ping()).resolves.toBeUndefined();
    expect(storage.engine).toBe(engine.name);
  });

  it('refuses an update that changes _id, accepts one that keeps it', async () => {
    await storage.events.insertOne(makeEventDoc({ _id: 1 }));
    await expect(storage.events.updateById(1, { $set: { _id: 2 } })).rejects.toThrow();
    expect(await storage.events.findById(1)).not.toBeNull();
    expect(await storage.events.findById(2)).toBeNull();
    expect(await storage.events.updateById(1, { $set: { _id: 1, title: 'Kept' } })).toMatchObject({ _id: 1, title: 'Kept' });
  });

  it('refuses undefined values on every engine, naming where, and stores nothing', async () => {
    // The driver would store undefined as null or drop it, depending on `ignoreUndefined`: every
    // engine refuses it, so no code relies on either.
    const doc = makeVenueDoc({ _id: 1 });
    await storage.venues.insertOne(doc);
    const write = storage.venues.updateById(1, { $set: { website: undefined } });
    await expect(write).rejects.toBeInstanceOf(UnsupportedQueryError);
    await expect(write).rejects.toThrow('$set.website is undefined; store null or leave the field out.');
    expect(await storage.venues.findById(1)).toEqual(doc);
    // Inside an array too, and the refusal names where.
    const nested = storage.events.insertOne(makeEventDoc({ _id: 2, organizerIds: [3, undefined as unknown as number] }));
    await expect(nested).rejects.toBeInstanceOf(UnsupportedQueryError);
    await expect(nested).rejects.toThrow('document.organizerIds.1 is undefined');
    expect(await storage.events.findById(2)).toBeNull();
    // A bulk insert is refused as a whole: not even its valid documents are stored.
    const many = storage.events.insertMany([
      makeEventDoc({ _id: 3, slug: 'kept-out' }),
      makeEventDoc({ _id: 4, slug: 'refused', tagIds: [undefined as unknown as number] }),
    ]);
    await expect(many).rejects.toBeInstanceOf(UnsupportedQueryError);
    await expect(many).rejects.toThrow('document.tagIds.0 is undefined');
    expect(await storage.events.count({ _id: { $in: [3, 4] } })).toBe(0);
  });
});

describe.each(engineCases)('%s engine: closing', (_name, engine) => {
  it('answers ping while open and refuses every operation once closed', async () => {
    const storage = await engine.open();
    await storage.events.insertOne(makeEventDoc({ _id: 1 }));
    await expect(storage.ping()).resolves.toBeUndefined();
    await storage.close();
    await expect(storage.ping()).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.events.findById(1)).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.venues.find({ filter: {} })).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.nextId('posts')).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.tags.insertOne(makeTagDoc())).rejects.toBeInstanceOf(StorageUnavailableError);
  });
});
