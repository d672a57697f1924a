/**
 * The durable embedded engine (LMDB) at the storage level: what is written comes back after a
 * restart exactly, writes in flight share commits, a failing commit stops the storage instead of
 * lying, a bulk load settles only once all of it is committed, and one directory is never open
 * twice.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DuplicateKeyError, StorageUnavailableError } from '../../src/errors.js';
import { seedIfEmpty } from '../../src/import/seed-on-start.js';
import { createStorage } from '../../src/storage/create-storage.js';
import { DataDirectoryLockedError, type LmdbStorage } from '../../src/storage/lmdb/index.js';
import { makeCategoryDoc, makeEventDoc, makeOrganizerDoc, makeTagDoc, makeVenueDoc, point } from '../helpers/factories.js';
import { crashImage, deadPid, dump, makeTempDir, open, recordingLog, removeDir } from './helpers.js';
import { seed } from '../import/fixtures.js';
import { defaultSeedsDir } from '../../src/import/sources.js';

const dirs: string[] = [];
const opened: LmdbStorage[] = [];

async function tempDir(): Promise<string> {
  const dir = await makeTempDir();
  dirs.push(dir);
  return dir;
}

async function openTracked(...args: Parameters<typeof open>): Promise<LmdbStorage> {
  const storage = await open(...args);
  opened.push(storage);
  return storage;
}

afterEach(async () => {
  for (const storage of opened.splice(0)) await storage.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) await removeDir(dir);
});

/** A small store touching every collection, both sequences, Dates, nested objects and arrays. */
async function fill(storage: LmdbStorage) {
  const venueId = await storage.nextId('posts');
  const organizerId = await storage.nextId('posts');
  const categoryId = await storage.nextId('terms');
  const tagId = await storage.nextId('terms');
  await storage.venues.insertOne(makeVenueDoc({ _id: venueId, slug: 'hall', location: point(13.39, 52.51) }));
  await storage.organizers.insertOne(makeOrganizerDoc({ _id: organizerId, slug: 'friends' }));
  await storage.categories.insertOne(makeCategoryDoc({ _id: categoryId, slug: 'music', name: 'Music', nameKey: 'music' }));
  await storage.tags.insertOne(makeTagDoc({ _id: tagId, slug: 'jazz', name: 'Jazz', nameKey: 'jazz' }));
  const eventIds: number[] = [];
  for (let i = 0; i < 5; i++) {
    const id = await storage.nextId('posts');
    eventIds.push(id);
    await storage.events.insertOne(
      makeEventDoc({
        _id: id,
        slug: `concert-${i}`,
        startUtc: new Date(Date.UTC(2025, 4, 1 + i, 19, 30, 15, 123)),
        endUtc: new Date(Date.UTC(2025, 4, 1 + i, 22)),
        image: { url: 'https://example.org/a.jpg', extension: 'jpg' },
        venueId,
        organizerIds: [organizerId],
        categoryIds: [categoryId],
        tagIds: [tagId],
        cost: ['10', '20'],
        password: i === 0 ? 'sesame' : null,
      }),
    );
  }
  await storage.events.updateById(eventIds[1]!, { $set: { title: 'Renamed', featured: true, modifiedUtc: new Date('2025-06-01T00:00:00Z') } });
  await storage.events.updateById(eventIds[2]!, { $unset: ['postParent'] as never });
  expect(await storage.events.updateMany({ tagIds: tagId }, { $pull: { tagIds: tagId } })).toBe(5);
  expect(await storage.events.deleteById(eventIds[4]!)).toBe(true);
  return { venueId, organizerId, categoryId, tagId, eventIds };
}

describe('durable storage: restore', () => {
  it('restores every collection and both sequences exactly, Dates and nested objects included', async () => {
    const dir = await tempDir();
    const storage = await openTracked(dir);
    await storage.ensureIndexes();
    const { eventIds } = await fill(storage);
    const before = await dump(storage);
    await storage.close();

    const restored = await openTracked(dir);
    const after = await dump(restored);
    expect(after).toEqual(before);
    const event = (await restored.events.findById(eventIds[0]!))!;
    expect(event.startUtc).toBeInstanceOf(Date);
    expect(event.startUtc.toISOString()).toBe('2025-05-01T19:30:15.123Z');
    expect(event.image).toEqual({ url: 'https://example.org/a.jpg', extension: 'jpg' });
    expect(event.tagIds).toEqual([]);
    expect(await restored.events.findById(eventIds[4]!)).toBeNull();
    expect((await restored.events.findById(eventIds[2]!))!).not.toHaveProperty('postParent');
    // Sequences continue above everything handed out before.
    expect(await restored.nextId('posts')).toBe(eventIds[4]! + 1);
    expect(await restored.nextId('terms')).toBe(3);
    // Indexes are rebuilt: unique slugs are enforced, text search and geo queries answer.
    await expect(restored.events.insertOne(makeEventDoc({ _id: 999, slug: 'concert-0' }))).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(await restored.events.count({ $text: { $search: 'Renamed' } })).toBe(1);
    expect(await restored.venues.count({ location: { $geoWithin: { $centerSphere: [[13.4, 52.5], 0.001] } } })).toBe(1);
  });

  it('keeps a reserved block of ids reserved after a restart, though no document used them', async () => {
    const dir = await tempDir();
    const storage = await openTracked(dir);
    const first = await storage.nextId('posts', 500);
    await storage.nextId('terms', 7);
    await storage.close();

    const restored = await openTracked(dir);
    expect(await restored.nextId('posts')).toBe(first + 500);
    expect(await restored.nextId('terms')).toBe(8);
  });

  it('keeps values exactly as stored: Dates to the millisecond, -0, NaN, infinities, large integers, null, nesting, unicode', async () => {
    const dir = await tempDir();
    const storage = await openTracked(dir);
    const odd = {
      _id: 1,
      slug: 'odd',
      name: 'Odd',
      nameKey: 'odd',
      description: 'line\nbreak, quote " and emoji 🎻, 日本語, \u0000',
      parent: 0,
      nested: {
        deeper: [
          { at: new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 999)) },
          new Date(-1),
          new Date('invalid'),
          Number.NaN,
          Number.POSITIVE_INFINITY,
          Number.NEGATIVE_INFINITY,
          -0,
          [-0],
        ],
        numbers: [2 ** 53 - 1, -(2 ** 53) + 1, 2 ** 60, 1.5e300, 5e-324, -1, 0.1, 4294967296, -2147483649],
        empty: { list: [], object: {}, nothing: null },
      },
    };
    await storage.tags.insertOne(odd);
    const before = await storage.tags.findById(1);
    await storage.close();
    const restored = await openTracked(dir);
    const after = (await restored.tags.findById(1)) as unknown as typeof odd;
    expect(after).toEqual(before);
    expect(after).toEqual(odd);
    const values = after.nested.deeper;
    expect((values[0] as { at: Date }).at.toISOString()).toBe('2024-02-29T23:59:59.999Z');
    expect((values[1] as Date).getTime()).toBe(-1);
    expect(Number.isNaN((values[2] as Date).getTime())).toBe(true);
    expect(values[3]).toBeNaN();
    expect(values[4]).toBe(Number.POSITIVE_INFINITY);
    expect(values[5]).toBe(Number.NEGATIVE_INFINITY);
    // toEqual takes -0 for 0: Object.is tells them apart.
    expect(Object.is(values[6], -0)).toBe(true);
    expect(Object.is((values[7] as number[])[0], -0)).toBe(true);
    expect(after.nested.numbers).toStrictEqual(odd.nested.numbers);
    expect(Object.getPrototypeOf(after)).toBe(Object.prototype);
  });

  it('keeps long texts whole across a restart, and every write after them', async () => {
    // Up to the API's 200,000 characters, with text past ASCII after a long ASCII run: such a record
    // was once written with a hole and a valid checksum, so a restart cut it and all later records.
    const texts = [`${'a'.repeat(199_990)}é`, `${'b'.repeat(30_000)}€ and more`, '🎻'.repeat(60_000), `${'c'.repeat(70_000)}\u0000${'d'.repeat(10)}`];
    const dir = await tempDir();
    const storage = await openTracked(dir);
    for (const [i, description] of texts.entries())
      await storage.tags.insertOne(makeTagDoc({ _id: i + 1, slug: `one-${i}`, name: `One ${i}`, nameKey: `one ${i}`, description }));
    await storage.tags.insertMany(
      texts.map((description, i) => makeTagDoc({ _id: i + 11, slug: `many-${i}`, name: `Many ${i}`, nameKey: `many ${i}`, description })),
    );
    await storage.tags.insertOne(makeTagDoc({ _id: 99, slug: 'after', name: 'After', nameKey: 'after' }));
    await storage.close();
    const restored = await openTracked(dir);
    const descriptions = (await restored.tags.find({ filter: {}, sort: [['_id', 1]] })).map((t) => t.description);
    expect(descriptions).toEqual([...texts, ...texts, '']);
  });

  it('refuses a value it cannot give back as it was, before anything changes', async () => {
    const storage = await openTracked(await tempDir());
    await expect(storage.tags.insertOne({ ...makeTagDoc({ _id: 1 }), extra: new Map() } as never)).rejects.toThrow(/cannot store/);
    // JSON.parse makes `__proto__` an own field; msgpack would read it back renamed.
    await expect(storage.tags.insertOne({ ...makeTagDoc({ _id: 1 }), nested: JSON.parse('{"__proto__": 1}') } as never)).rejects.toThrow(
      /document.nested holds a field named __proto__/,
    );
    expect(await storage.tags.findById(1)).toBeNull();
    await storage.tags.insertOne(makeTagDoc({ _id: 1 }));
    await expect(storage.tags.updateById(1, { $set: { description: 10n } as never })).rejects.toThrow(/cannot store/);
    expect((await storage.tags.findById(1))!.description).toBe('');
  });

  it('stores the documents insertMany stored, and only those', async () => {
    const dir = await tempDir();
    const storage = await openTracked(dir);
    await storage.ensureIndexes();
    await storage.tags.insertOne(makeTagDoc({ _id: 1, slug: 'taken', name: 'Taken', nameKey: 'taken' }));
    const failures = await storage.tags.insertMany([
      makeTagDoc({ _id: 2, slug: 'two', name: 'Two', nameKey: 'two' }),
      makeTagDoc({ _id: 3, slug: 'taken', name: 'Three', nameKey: 'three' }),
      makeTagDoc({ _id: 4, slug: 'four', name: 'Four', nameKey: 'four' }),
    ]);
    expect(failures.map((f) => f.index)).toEqual([1]);
    await expect(storage.tags.insertMany([makeTagDoc({ _id: 5 }), { ...makeTagDoc({ _id: 6 }), extra: new Map() } as never])).rejects.toThrow(/cannot store/);
    await storage.close();

    const restored = await openTracked(dir);
    await restored.ensureIndexes();
    expect((await restored.tags.find({ filter: {}, sort: [['_id', 1]] })).map((t) => t.slug)).toEqual(['taken', 'two', 'four']);
  });

  it('starts empty in a new directory, so start-up seeding runs only then', async () => {
    const dir = await tempDir();
    const config = loadConfig({ STORAGE: 'embedded', DATA_DIR: dir, SEED_ON_START: 'true' });
    const log = recordingLog();
    const storage = await createStorage(config, log);
    expect(storage.reason).toBe(`STORAGE=embedded, durable in ${dir}`);
    expect(log.infos.some((line) => line.startsWith('storage engine: embedded (STORAGE=embedded, durable in'))).toBe(true);
    await storage.ensureIndexes();
    await storage.tags.insertOne(makeTagDoc({ _id: await storage.nextId('terms') }));
    await storage.close();

    const reopened = await createStorage(config, log);
    try {
      await reopened.ensureIndexes();
      await seedIfEmpty({ storage: reopened, config, log });
      expect(log.infos).toContain('seed: the store has data; nothing loaded');
      expect(await reopened.events.count({})).toBe(0);
      expect(await reopened.tags.count({})).toBe(1);
    } finally {
      await reopened.close();
    }
  });

  it('acknowledges concurrent writes with shared commits (group commit)', async () => {
    // lmdb-js hands every write of one transaction the same commit promise.
    const commits = new Set<Promise<unknown>>();
    const storage = await openTracked(await tempDir(), { hooks: { commit: (committed) => (commits.add(committed), committed) } });
    await storage.tags.insertOne(makeTagDoc({ _id: 1000 }));
    commits.clear();
    await Promise.all(Array.from({ length: 256 }, (_, i) => storage.tags.insertOne(makeTagDoc({ _id: i + 1 }))));
    expect(await storage.tags.count({})).toBe(257);
    // The first write's commit, then the rest together (a few, depending on timing).
    expect(commits.size).toBeGreaterThanOrEqual(1);
    expect(commits.size).toBeLessThan(10);
  });

  it('closes once, committing what is queued; later calls are refused as unavailable', async () => {
    const dir = await tempDir();
    const storage = await openTracked(dir);
    const id = await storage.nextId('posts');
    const write = storage.venues.insertOne(makeVenueDoc({ _id: id }));
    await Promise.all([storage.close(), storage.close(), write]);
    await expect(storage.venues.findById(id)).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.nextId('posts')).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.ping()).rejects.toBeInstanceOf(StorageUnavailableError);
    const reopened = await openTracked(dir);
    expect(await reopened.venues.findById(id)).not.toBeNull();
  });
});

describe('durable storage: failing commits', () => {
  /** Commits that fail while `armed`: a seam for the disk refusing a write. */
  function failingCommits() {
    const control = { armed: false };
    const commit = (committed: Promise<unknown>) => (control.armed ? committed.then(() => Promise.reject(new Error('EIO: commit failed'))) : committed);
    return { control, commit };
  }

  it('a failed commit rejects that write and everything after, as unavailable', async () => {
    const dir = await tempDir();
    const { control, commit } = failingCommits();
    const log = recordingLog();
    const storage = await openTracked(dir, { hooks: { commit }, log });
    await storage.tags.insertOne(makeTagDoc({ _id: 1 }));
    control.armed = true;
    const inFlight = [storage.tags.insertOne(makeTagDoc({ _id: 2 })), storage.tags.updateById(1, { $set: { description: 'x' } })];
    for (const write of inFlight) await expect(write).rejects.toBeInstanceOf(StorageUnavailableError);
    control.armed = false;
    // Even with the disk back, nothing is accepted: the fate of the failed write is unknown.
    await expect(storage.tags.insertOne(makeTagDoc({ _id: 3 }))).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.tags.findById(1)).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.nextId('terms')).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.ping()).rejects.toThrow(/cannot be written .*restart/);
    await storage.close();
    expect(log.warnings.join('\n')).toMatch(/closed after a write failure/);

    const restored = await openTracked(dir, { log: recordingLog() });
    expect(await restored.tags.findById(1)).not.toBeNull();
    expect(await restored.tags.findById(3)).toBeNull();
  });

  it('a failed commit of a counter (nextId does not wait for it) stops the storage all the same', async () => {
    const { control, commit } = failingCommits();
    const storage = await openTracked(await tempDir(), { hooks: { commit }, log: recordingLog() });
    control.armed = true;
    const id = await storage.nextId('posts');
    await expect(storage.venues.insertOne(makeVenueDoc({ _id: id }))).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.ping()).rejects.toBeInstanceOf(StorageUnavailableError);
  });
});

describe('durable storage: bulk loads', () => {
  /** Commits held back until `release()` (while held), and the distinct commits seen. */
  function heldCommits() {
    const control = { held: false, commits: new Set<Promise<unknown>>(), release: () => undefined as void };
    let gate = Promise.resolve();
    const hold = () => {
      control.held = true;
      gate = new Promise<void>((resolve) => {
        control.release = () => {
          control.held = false;
          resolve();
        };
      });
    };
    const commit = (committed: Promise<unknown>) => {
      control.commits.add(committed);
      const until = gate;
      return committed.then(() => until);
    };
    return { control, hold, commit };
  }
  const turns = async (n: number) => {
    for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  it('resolves writes once applied, shares commits, and settles once every one is committed', async () => {
    const dir = await tempDir();
    const { control, hold, commit } = heldCommits();
    const storage = await openTracked(dir, { hooks: { commit } });
    await storage.tags.insertOne(makeTagDoc({ _id: 1, slug: 'first' }));
    hold();
    const commitsBefore = control.commits.size;
    // An ordinary write waits for its commit…
    let acknowledged = false;
    const ordinary = storage.tags.insertOne(makeTagDoc({ _id: 2, slug: 'second' })).then(() => (acknowledged = true));
    // …a bulk load's do not: they are applied (readable) and resolve while the commit is held.
    const bulk = storage.bulkLoad!();
    for (let i = 3; i <= 40; i++) await bulk.storage.tags.insertOne(makeTagDoc({ _id: i, slug: `bulk-${i}` }));
    await bulk.storage.tags.insertMany([makeTagDoc({ _id: 41, slug: 'bulk-41' }), makeTagDoc({ _id: 42, slug: 'bulk-42' })]);
    await bulk.storage.tags.updateById(3, { $set: { description: 'changed' } });
    expect(await storage.tags.count({})).toBe(42);
    let settled = false;
    const settling = bulk.settle().then(() => (settled = true));
    await turns(5);
    expect([acknowledged, settled]).toEqual([false, false]);
    control.release();
    await Promise.all([ordinary, settling]);
    // 41 writes, and only a few commits.
    expect(control.commits.size - commitsBefore).toBeLessThan(5);
    const image = await crashImage(dir);
    dirs.push(image);
    const restored = await openTracked(image);
    expect(await restored.tags.count({})).toBe(42);
    expect(await restored.tags.findById(3)).toMatchObject({ description: 'changed' });
  });

  it('settles with a rejection when a commit fails, and refuses every later write', async () => {
    const failing = { armed: false };
    const commit = (committed: Promise<unknown>) => (failing.armed ? committed.then(() => Promise.reject(new Error('EIO: commit failed'))) : committed);
    const storage = await openTracked(await tempDir(), { hooks: { commit }, log: recordingLog() });
    const bulk = storage.bulkLoad!();
    failing.armed = true;
    await bulk.storage.tags.insertOne(makeTagDoc({ _id: 1 }));
    await expect(bulk.settle()).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(bulk.storage.tags.insertOne(makeTagDoc({ _id: 2 }))).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.tags.insertOne(makeTagDoc({ _id: 3 }))).rejects.toBeInstanceOf(StorageUnavailableError);
  });

  it('lets the seed loader report a load only once all of it is committed, and fail when a commit does', async () => {
    const dir = await tempDir();
    // Slow commits: without the wait at the end, the last writes would still be uncommitted.
    const slow = (committed: Promise<unknown>) => committed.then(() => new Promise((resolve) => setTimeout(resolve, 20)));
    const storage = await openTracked(dir, { hooks: { commit: slow } });
    await storage.ensureIndexes();
    const { report } = await seed(storage, [defaultSeedsDir()]);
    expect(report.outcome).toBe('ok');
    expect(report.counts.events.created).toBeGreaterThan(300);
    const image = await crashImage(dir);
    dirs.push(image);
    const restored = await openTracked(image);
    expect(await dump(restored)).toEqual(await dump(storage));

    const disk = { failing: false };
    const broken = (committed: Promise<unknown>) => (disk.failing ? committed.then(() => Promise.reject(new Error('EIO: commit failed'))) : committed);
    const failing = await openTracked(await tempDir(), { hooks: { commit: broken }, log: recordingLog() });
    await failing.ensureIndexes();
    disk.failing = true;
    await expect(seed(failing, [defaultSeedsDir()])).rejects.toThrow(/cannot be written|durable/);
  });
});

describe('durable storage: one process per directory', () => {
  it('refuses a directory already open, and takes over the lock of a dead process', async () => {
    const dir = await tempDir();
    const storage = await openTracked(dir);
    await expect(open(dir)).rejects.toBeInstanceOf(DataDirectoryLockedError);
    await storage.close();

    const pid = await deadPid();
    await writeFile(join(dir, 'lock'), `${pid}\n`);
    const taken = await openTracked(dir);
    expect((await readFile(join(dir, 'lock'), 'utf8')).trim()).toBe(String(process.pid));
    await taken.close();
    await expect(stat(join(dir, 'lock'))).rejects.toThrow(/ENOENT/);
  });

  it("takes over a lock naming this process's pid that this process does not hold (a container's pid 1 after an unclean stop)", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'lock'), `${process.pid}\n`);
    const storage = await openTracked(dir);
    // Held now: a second open in this process is refused.
    await expect(open(dir)).rejects.toBeInstanceOf(DataDirectoryLockedError);
    await storage.close();
    await expect(stat(join(dir, 'lock'))).rejects.toThrow(/ENOENT/);
  });
});
