/**
 * The durable embedded engine at the storage level (issue 9.4): what is written comes back after a
 * restart, a torn or corrupt log tail costs only what follows it, compaction loses nothing even
 * when interrupted between its steps, a failing disk stops the storage instead of lying, and one
 * directory is never open twice.
 */
import { appendFile, readdir, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DuplicateKeyError, StorageUnavailableError } from '../../src/errors.js';
import { seedIfEmpty } from '../../src/services/seed.js';
import { createStorage } from '../../src/storage/create-storage.js';
import {
  type AppendFile,
  type CompactionStep,
  DataDirectoryCorruptError,
  DataDirectoryLockedError,
  type DurableStorage,
} from '../../src/storage/durable/index.js';
import { FORMAT, frame, READABLE_FORMATS } from '../../src/storage/durable/record.js';
import { makeCategoryDoc, makeEventDoc, makeOrganizerDoc, makeTagDoc, makeVenueDoc, point } from '../helpers/factories.js';
import { crashImage, deadPid, dump, makeTempDir, open, recordingLog, removeDir } from './helpers.js';
import { seed } from '../cli/seed-fixtures.js';
import { defaultSeedsDir } from '../../src/cli/seed.js';

const dirs: string[] = [];
const opened: DurableStorage[] = [];

async function tempDir(): Promise<string> {
  const dir = await makeTempDir();
  dirs.push(dir);
  return dir;
}

async function openTracked(...args: Parameters<typeof open>): Promise<DurableStorage> {
  const storage = await open(...args);
  opened.push(storage);
  return storage;
}

afterEach(async () => {
  for (const storage of opened.splice(0)) await storage.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) await removeDir(dir);
});

async function walFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => /^wal-\d+\.log$/.test(name)).sort();
}

/** A small store touching every collection, both sequences, Dates, nested objects and arrays. */
async function fill(storage: DurableStorage) {
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

  it('keeps values JSON cannot carry as they were', async () => {
    const dir = await tempDir();
    const storage = await openTracked(dir);
    const odd = {
      _id: 1,
      slug: 'odd',
      name: 'Odd',
      nameKey: 'odd',
      description: 'line\nbreak, quote " and emoji 🎻',
      parent: 0,
      nested: { deeper: [{ at: new Date(0) }, new Date('invalid'), Number.NaN, Number.POSITIVE_INFINITY, -0] },
      // Computed: an own property named __proto__, not the prototype.
      ['__proto__']: 'own key',
    };
    await storage.tags.insertOne(odd as never);
    const before = await storage.tags.findById(1);
    await storage.close();
    const restored = await openTracked(dir);
    const after = (await restored.tags.findById(1)) as unknown as typeof odd;
    expect(after).toEqual(before);
    const values = (after.nested as { deeper: unknown[] }).deeper;
    expect((values[0] as { at: Date }).at).toEqual(new Date(0));
    expect(Number.isNaN((values[1] as Date).getTime())).toBe(true);
    expect(values[2]).toBeNaN();
    expect(values[3]).toBe(Number.POSITIVE_INFINITY);
    expect(Object.is(values[4], -0)).toBe(true);
    expect(Object.getPrototypeOf(after)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(after, '__proto__')?.value).toBe('own key');
  });

  it('keeps long texts whole across a restart, and every write after them', async () => {
    // Up to the API's 200,000 characters, with text past ASCII after a long ASCII run: such a record
    // was once written with a hole and a valid checksum, so a restart cut it and all later records.
    const texts = [`${'a'.repeat(199_990)}é`, `${'b'.repeat(30_000)}€ and more`, '🎻'.repeat(60_000), `${'c'.repeat(70_000)}\u0000${'d'.repeat(10)}`];
    const dir = await tempDir();
    const storage = await openTracked(dir);
    for (const [i, description] of texts.entries()) await storage.tags.insertOne(makeTagDoc({ _id: i + 1, slug: `one-${i}`, name: `One ${i}`, nameKey: `one ${i}`, description }));
    await storage.tags.insertMany(texts.map((description, i) => makeTagDoc({ _id: i + 11, slug: `many-${i}`, name: `Many ${i}`, nameKey: `many ${i}`, description })));
    await storage.tags.insertOne(makeTagDoc({ _id: 99, slug: 'after', name: 'After', nameKey: 'after' }));
    await storage.close();
    const restored = await openTracked(dir);
    const descriptions = (await restored.tags.find({ filter: {}, sort: [['_id', 1]] })).map((t) => t.description);
    expect(descriptions).toEqual([...texts, ...texts, '']);
  });

  it('refuses a value the log cannot hold before anything changes', async () => {
    const storage = await openTracked(await tempDir());
    await expect(storage.tags.insertOne({ ...makeTagDoc({ _id: 1 }), extra: new Map() } as never)).rejects.toThrow(/cannot store/);
    expect(await storage.tags.findById(1)).toBeNull();
    await storage.tags.insertOne(makeTagDoc({ _id: 1 }));
    await expect(storage.tags.updateById(1, { $set: { description: 10n } as never })).rejects.toThrow(/cannot store/);
    expect((await storage.tags.findById(1))!.description).toBe('');
  });

  it('logs the documents insertMany stored, and only those', async () => {
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

  it('acknowledges concurrent writes with shared fdatasyncs (group commit)', async () => {
    let syncs = 0;
    const storage = await openTracked(await tempDir(), {
      hooks: {
        wrapFile: (file) => ({ ...file, datasync: () => ((syncs += 1), file.datasync()) }),
      },
    });
    syncs = 0;
    await Promise.all(Array.from({ length: 256 }, (_, i) => storage.tags.insertOne(makeTagDoc({ _id: i + 1 }))));
    expect(await storage.tags.count({})).toBe(256);
    // One fdatasync for the first write, then the rest together (a few, depending on timing).
    expect(syncs).toBeGreaterThanOrEqual(1);
    expect(syncs).toBeLessThan(10);
  });

  it('closes once, flushing; later calls are refused as unavailable', async () => {
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

describe('durable storage: damaged logs', () => {
  async function threeVenues(dir: string): Promise<number[]> {
    const storage = await open(dir);
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const id = await storage.nextId('posts');
      ids.push(id);
      await storage.venues.insertOne(makeVenueDoc({ _id: id, slug: `venue-${id}` }));
    }
    await storage.close();
    return ids;
  }

  /** Byte offsets at which each record of a log starts. */
  async function recordOffsets(path: string): Promise<number[]> {
    const bytes = await readFile(path);
    const offsets = [0];
    for (let i = 0; i < bytes.length - 1; i++) if (bytes[i] === 0x0a) offsets.push(i + 1);
    return offsets;
  }

  it('drops a torn last record and keeps every earlier one; later writes append cleanly', async () => {
    const dir = await tempDir();
    const ids = await threeVenues(dir);
    const [wal] = await walFiles(dir);
    const path = join(dir, wal!);
    const size = (await stat(path)).size;
    // A crash in the middle of the last append: the last record is half there.
    await truncate(path, size - 40);
    const log = recordingLog();
    const storage = await openTracked(dir, { log });
    expect(await storage.venues.findById(ids[0]!)).not.toBeNull();
    expect(await storage.venues.findById(ids[1]!)).not.toBeNull();
    expect(await storage.venues.findById(ids[2]!)).toBeNull();
    expect(log.warnings.join('\n')).toMatch(/torn tail at byte \d+/);
    expect((await readdir(dir)).some((name) => name.endsWith('.dropped'))).toBe(true);
    // New writes go after the cut, and the log stays readable.
    const id = await storage.nextId('posts');
    expect(id).toBeGreaterThan(ids[1]!);
    await storage.venues.insertOne(makeVenueDoc({ _id: id, slug: 'after-the-tear' }));
    await storage.close();
    const again = await openTracked(dir, { log: recordingLog() });
    expect(await again.venues.count({})).toBe(3);
    expect(await again.venues.findOne({ slug: 'after-the-tear' })).not.toBeNull();
    expect(again.stats().recovery.droppedBytes).toBe(0);
  });

  it('drops garbage after the last record (zeros of unwritten blocks, random bytes)', async () => {
    for (const garbage of [Buffer.alloc(4096), Buffer.from('3f2a9c01 99999 ["put","venues",{"_id":'), Buffer.from([0xff, 0xfe, 0x0a, 0x00])]) {
      const dir = await tempDir();
      const ids = await threeVenues(dir);
      const [wal] = await walFiles(dir);
      await appendFile(join(dir, wal!), garbage);
      const log = recordingLog();
      const storage = await openTracked(dir, { log });
      expect(await storage.venues.count({})).toBe(3);
      expect(await storage.venues.findById(ids[2]!)).not.toBeNull();
      expect(log.warnings).toHaveLength(1);
      await storage.close();
    }
  });

  it('stops at a corrupt record in the middle of the newest log and never reads past it', async () => {
    const dir = await tempDir();
    const ids = await threeVenues(dir);
    const [wal] = await walFiles(dir);
    const path = join(dir, wal!);
    // Records: header, seq, put(venue 1), seq, put(venue 2), seq, put(venue 3). Damage put(venue 2).
    const offsets = await recordOffsets(path);
    const bytes = await readFile(path);
    const target = offsets[4]! + 40;
    bytes[target] = bytes[target]! ^ 0x01;
    await writeFile(path, bytes);
    const log = recordingLog();
    const storage = await openTracked(dir, { log });
    // Venue 1 (before the damage) is there; venues 2 and 3 (at and after it) are not: what follows
    // a bad record cannot be trusted to be complete or in order, so it is not replayed.
    expect(await storage.venues.findById(ids[0]!)).not.toBeNull();
    expect(await storage.venues.findById(ids[1]!)).toBeNull();
    expect(await storage.venues.findById(ids[2]!)).toBeNull();
    expect(log.warnings.join('\n')).toMatch(/corrupt tail at byte \d+ \(checksum mismatch\)/);
    // The cut bytes are kept for inspection.
    const dropped = (await readdir(dir)).find((name) => name.endsWith('.dropped'))!;
    expect((await readFile(join(dir, dropped))).length).toBe(bytes.length - offsets[4]!);
  });

  it('refuses to open when an older log or a snapshot is damaged (no crash can do that)', async () => {
    const dir = await tempDir();
    const storage = await open(dir);
    await storage.tags.insertOne(makeTagDoc({ _id: 1 }));
    await storage.compact();
    await storage.tags.insertOne(makeTagDoc({ _id: 2 }));
    await storage.close();
    const names = await readdir(dir);
    const snapshot = names.find((name) => name.endsWith('.snap'))!;

    // A damaged snapshot.
    const image = await crashImage(dir);
    dirs.push(image);
    const bytes = await readFile(join(image, snapshot));
    bytes[bytes.length - 20] = bytes[bytes.length - 20]! ^ 0x01;
    await writeFile(join(image, snapshot), bytes);
    await expect(open(image)).rejects.toBeInstanceOf(DataDirectoryCorruptError);

    // A damaged older log: a compaction that rotated the log but failed to write its snapshot
    // leaves two generations to replay.
    const crashed = await tempDir();
    const second = await open(crashed, {
      hooks: {
        compactionStep: (step) => {
          if (step === 'rotated') throw new Error('stop here');
        },
      },
    });
    await second.tags.insertOne(makeTagDoc({ _id: 1 }));
    await expect(second.compact()).rejects.toThrow('stop here');
    await second.tags.insertOne(makeTagDoc({ _id: 2 }));
    await second.close();
    const [oldWal, newWal] = await walFiles(crashed);
    expect(newWal).toBeDefined();
    const damaged = await readFile(join(crashed, oldWal!));
    damaged[damaged.length - 10] = damaged[damaged.length - 10]! ^ 0x01;
    await writeFile(join(crashed, oldWal!), damaged);
    await expect(open(crashed)).rejects.toThrow(/not the newest log, so this is not a torn append/);
  });

  it('reads a format-1 directory (ISO dates) and writes on in a new log of the current format, leaving the old one as it was', async () => {
    const dir = await tempDir();
    const old = [
      ['wal', 1, 1],
      ['seq', 'posts', 7],
      ['put', 'events', { ...makeEventDoc({ _id: 7, slug: 'old' }), startUtc: { $date: '2025-05-01T19:30:15.123Z' }, endUtc: { $date: null } }],
    ].map((record) => frame(JSON.stringify(record)));
    const oldBytes = Buffer.concat(old);
    await writeFile(join(dir, 'wal-00000001.log'), oldBytes);
    const storage = await open(dir);
    const restored = await storage.events.findById(7);
    expect(restored?.startUtc).toEqual(new Date('2025-05-01T19:30:15.123Z'));
    expect(Number.isNaN(restored!.endUtc.getTime())).toBe(true);
    const id = await storage.nextId('posts');
    expect(id).toBe(8);
    await storage.events.insertOne(makeEventDoc({ _id: id, slug: 'new', startUtc: new Date(Date.UTC(2031, 0, 2, 3, 4, 5, 6)) }));
    await storage.close();

    expect(await walFiles(dir)).toEqual(['wal-00000001.log', 'wal-00000002.log']);
    expect(await readFile(join(dir, 'wal-00000001.log'))).toEqual(oldBytes);
    const newLog = (await readFile(join(dir, 'wal-00000002.log'), 'utf8')).split('\n');
    expect(newLog[0]).toMatch(new RegExp(` \\["wal",${FORMAT},2\\]$`));
    expect(newLog.join('\n')).toContain('"startUtc":{"$date":1925089445006}');

    const reopened = await openTracked(dir);
    expect((await reopened.events.findById(7))?.startUtc).toEqual(new Date('2025-05-01T19:30:15.123Z'));
    expect((await reopened.events.findById(8))?.startUtc).toEqual(new Date(Date.UTC(2031, 0, 2, 3, 4, 5, 6)));
  });

  it('refuses a log of a format it does not know', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'wal-00000001.log'), frame(JSON.stringify(['wal', FORMAT + 1, 1])));
    await expect(open(dir)).rejects.toThrow(`wal-00000001.log is in format ${FORMAT + 1}; this version reads ${READABLE_FORMATS.join(', ')}`);
  });

  it('refuses a missing log generation', async () => {
    const dir = await tempDir();
    const storage = await open(dir);
    await storage.tags.insertOne(makeTagDoc({ _id: 1 }));
    await storage.close();
    await writeFile(join(dir, 'wal-00000003.log'), frame(JSON.stringify(['wal', 1, 3])));
    await expect(open(dir)).rejects.toThrow(/wal-00000002\.log is missing/);
  });
});

describe('durable storage: compaction', () => {
  it('waits for writes to pause before compacting, unless the log reaches twice the threshold; a reopened long log is compacted once quiet', async () => {
    const threshold = 16 * 1024;
    const lull = 600;
    const dir = await tempDir();
    const storage = await openTracked(dir, { compactMinBytes: threshold, compactRatio: 0, compactionLullMs: lull });
    let id = 0;
    const write = () => storage.tags.insertOne(makeTagDoc({ _id: ++id, slug: `tag-${id}`, name: `Tag ${id}`, nameKey: `tag ${id}`, description: 'x'.repeat(200) }));
    const waitFor = async (condition: () => boolean, ms: number) => {
      for (const started = Date.now(); !condition() && Date.now() - started < ms; ) await new Promise((resolve) => setTimeout(resolve, 20));
    };

    // A burst past the threshold: no compaction while the writes keep coming…
    while (storage.stats().logBytes < 1.5 * threshold) await write();
    expect(storage.stats().compactions).toBe(0);
    // …and one once they pause.
    await waitFor(() => storage.stats().compactions === 1, 10 * lull);
    expect(storage.stats().compactions).toBe(1);
    expect(storage.stats().logBytes).toBeLessThan(threshold);

    // A burst that does not pause: compacted anyway once the log is twice the threshold.
    while (storage.stats().compactions === 1 && storage.stats().logBytes < 4 * threshold) await write();
    expect(storage.stats().logBytes, 'compacted during the burst').toBeLessThan(4 * threshold);
    await waitFor(() => storage.stats().compactions === 2, 10 * lull);
    expect(storage.stats().compactions).toBe(2);
    await storage.close();

    // A log left long by a load that ended (with no compaction at all) is compacted after reopening, without a write.
    const other = await tempDir();
    const loader = await openTracked(other, { compactMinBytes: 2 ** 40 });
    for (let i = 1; i <= 100; i++) await loader.tags.insertOne(makeTagDoc({ _id: i, slug: `t-${i}`, name: `T ${i}`, nameKey: `t ${i}`, description: 'y'.repeat(200) }));
    await loader.close();
    const reopened = await openTracked(other, { compactMinBytes: threshold, compactRatio: 0, compactionLullMs: lull });
    expect(reopened.stats().logBytes).toBeGreaterThan(threshold);
    await waitFor(() => reopened.stats().compactions === 1, 10 * lull);
    expect(reopened.stats().compactions).toBe(1);
    expect(await reopened.tags.count({})).toBe(100);
  });

  it('compacts in the background into one snapshot and one log, losing nothing', async () => {
    const dir = await tempDir();
    const storage = await openTracked(dir, { compactMinBytes: 8 * 1024, compactRatio: 0 });
    await storage.ensureIndexes();
    const ids: number[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < 40; i++) {
          const id = await storage.nextId('posts');
          ids.push(id);
          await storage.events.insertOne(makeEventDoc({ _id: id, slug: `event-${id}` }));
          await storage.events.updateById(id, { $set: { title: `Updated ${id}` } });
          if (i % 5 === 0) await storage.events.deleteById(id);
        }
      }),
    );
    await storage.compact();
    expect(storage.stats().compactions).toBeGreaterThan(1);
    const before = await dump(storage);
    await storage.close();
    const names = (await readdir(dir)).sort();
    expect(names.filter((name) => name.endsWith('.snap'))).toHaveLength(1);
    expect(names.filter((name) => name.endsWith('.log'))).toHaveLength(1);
    expect(names.some((name) => name.endsWith('.tmp'))).toBe(false);

    const restored = await openTracked(dir);
    expect(await dump(restored)).toEqual(before);
    expect(restored.stats().recovery.snapshotRecords).toBeGreaterThan(0);
    expect(await restored.nextId('posts')).toBe(Math.max(...ids) + 1);
  });

  const steps: CompactionStep[] = ['rotated', 'snapshot-written', 'snapshot-renamed', 'cleaned'];
  it.each(steps)('a crash after the compaction step "%s" loses no acknowledged write', async (crashStep) => {
    const dir = await tempDir();
    let release!: () => void;
    const stalled = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const atStep = new Promise<void>((resolve) => (reached = resolve));
    const storage = await openTracked(dir, {
      hooks: {
        compactionStep: (step) => {
          if (step !== crashStep) return undefined;
          reached();
          return stalled;
        },
      },
    });
    for (let i = 1; i <= 20; i++) await storage.tags.insertOne(makeTagDoc({ _id: i, slug: `tag-${i}`, name: `Tag ${i}`, nameKey: `tag ${i}` }));
    await storage.tags.updateById(3, { $set: { description: 'before compaction' } });
    const compaction = storage.compact();
    await atStep;
    // Writes go on while compaction is stuck at this step.
    await storage.tags.updateById(4, { $set: { description: 'during compaction' } });
    await storage.tags.deleteById(5);
    await storage.tags.insertOne(makeTagDoc({ _id: 21, slug: 'tag-21' }));
    const before = await dump(storage);
    // The disk as a kill -9 now would leave it.
    const image = await crashImage(dir);
    dirs.push(image);
    release();
    await compaction;

    const restored = await openTracked(image);
    expect(await dump(restored)).toEqual(before);
    expect((await restored.tags.findById(3))!.description).toBe('before compaction');
    expect(await restored.nextId('terms')).toBeGreaterThan(21);
    await restored.close();
    // And the original finishes its compaction and restores the same.
    await storage.close();
    const original = await openTracked(dir);
    expect(await dump(original)).toEqual(before);
  });

  it('ignores an unfinished snapshot and survives a failing compaction', async () => {
    const dir = await tempDir();
    const storage = await openTracked(dir, {
      hooks: {
        compactionStep: (step) => {
          if (step === 'snapshot-written') throw new Error('disk full');
        },
      },
    });
    await storage.tags.insertOne(makeTagDoc({ _id: 1 }));
    await expect(storage.compact()).rejects.toThrow('disk full');
    expect((await readdir(dir)).some((name) => name.endsWith('.tmp'))).toBe(false);
    await storage.tags.insertOne(makeTagDoc({ _id: 2 }));
    await storage.close();
    // A crash mid-snapshot leaves a temp file; it is never read and removed at open.
    await writeFile(join(dir, 'snapshot-00000009.snap.tmp'), 'half a snapshot');
    const restored = await openTracked(dir);
    expect(await restored.tags.count({})).toBe(2);
    expect((await readdir(dir)).some((name) => name.endsWith('.tmp'))).toBe(false);
  });
});

describe('durable storage: failing disk', () => {
  function failingLog(mode: 'datasync' | 'append') {
    const control = { armed: false };
    const wrapFile = (file: AppendFile, path: string): AppendFile => {
      if (!/wal-\d+\.log$/.test(path)) return file;
      return {
        append: (data) => (control.armed && mode === 'append' ? Promise.reject(new Error('EIO: write failed')) : file.append(data)),
        datasync: () => (control.armed && mode === 'datasync' ? Promise.reject(new Error('EIO: fdatasync failed')) : file.datasync()),
        close: () => file.close(),
      };
    };
    return { control, wrapFile };
  }

  it.each(['datasync', 'append'] as const)('a failed %s rejects that write and everything after, as unavailable', async (mode) => {
    const dir = await tempDir();
    const { control, wrapFile } = failingLog(mode);
    const log = recordingLog();
    const storage = await openTracked(dir, { hooks: { wrapFile }, log });
    await storage.tags.insertOne(makeTagDoc({ _id: 1 }));
    control.armed = true;
    const inFlight = [storage.tags.insertOne(makeTagDoc({ _id: 2 })), storage.tags.updateById(1, { $set: { description: 'x' } })];
    for (const write of inFlight) await expect(write).rejects.toBeInstanceOf(StorageUnavailableError);
    control.armed = false;
    // Even with the disk back, nothing is accepted: the fate of the failed bytes is unknown.
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
});

describe('durable storage: bulk loads', () => {
  /** fdatasync of the log held back until `release()` (while `held`). */
  function heldSyncs() {
    const control = { held: false, syncs: 0, release: () => undefined as void };
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
    const wrapFile = (file: AppendFile, path: string): AppendFile =>
      /wal-\d+\.log$/.test(path) ? { ...file, datasync: () => ((control.syncs += 1), gate.then(() => file.datasync())) } : file;
    return { control, hold, wrapFile };
  }
  const turns = async (n: number) => {
    for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  it('resolves writes once applied, shares fdatasyncs, and settles once every one is on disk', async () => {
    const dir = await tempDir();
    const { control, hold, wrapFile } = heldSyncs();
    const storage = await openTracked(dir, { hooks: { wrapFile } });
    await storage.tags.insertOne(makeTagDoc({ _id: 1, slug: 'first' }));
    hold();
    const syncsBefore = control.syncs;
    // An ordinary write waits for its fdatasync…
    let acknowledged = false;
    const ordinary = storage.tags.insertOne(makeTagDoc({ _id: 2, slug: 'second' })).then(() => (acknowledged = true));
    // …a bulk load's do not: they are applied (readable) and resolve while the disk is held.
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
    // 41 writes, and only a few fdatasyncs: those in flight when they came, and one for the rest.
    expect(control.syncs - syncsBefore).toBeLessThan(5);
    const image = await crashImage(dir);
    dirs.push(image);
    const restored = await openTracked(image);
    expect(await restored.tags.count({})).toBe(42);
    expect(await restored.tags.findById(3)).toMatchObject({ description: 'changed' });
  });

  it('waits for the disk once more than bulkQueueBytes are queued (memory stays bounded)', async () => {
    const { control, hold, wrapFile } = heldSyncs();
    const storage = await openTracked(await tempDir(), { hooks: { wrapFile }, bulkQueueBytes: 1 });
    const bulk = storage.bulkLoad!();
    hold();
    let done = false;
    const write = bulk.storage.tags.insertOne(makeTagDoc({ _id: 1 })).then(() => (done = true));
    await turns(5);
    expect(control.held && !done).toBe(true);
    control.release();
    await write;
    await bulk.settle();
  });

  it('settles with a rejection when the disk fails, and refuses every later write', async () => {
    const failing = { armed: false };
    const wrapFile = (file: AppendFile, path: string): AppendFile =>
      /wal-\d+\.log$/.test(path) ? { ...file, datasync: () => (failing.armed ? Promise.reject(new Error('EIO: fdatasync failed')) : file.datasync()) } : file;
    const storage = await openTracked(await tempDir(), { hooks: { wrapFile }, log: recordingLog() });
    const bulk = storage.bulkLoad!();
    failing.armed = true;
    await bulk.storage.tags.insertOne(makeTagDoc({ _id: 1 }));
    await expect(bulk.settle()).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(bulk.storage.tags.insertOne(makeTagDoc({ _id: 2 }))).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.tags.insertOne(makeTagDoc({ _id: 3 }))).rejects.toBeInstanceOf(StorageUnavailableError);
  });

  it('lets the seed loader report a load only once all of it is on disk, and fail when the disk does', async () => {
    const dir = await tempDir();
    // Slow fdatasyncs: without the wait at the end, the last writes would still be queued.
    const slow = (file: AppendFile, path: string): AppendFile =>
      /wal-\d+\.log$/.test(path) ? { ...file, datasync: () => new Promise((resolve) => setTimeout(resolve, 20)).then(() => file.datasync()) } : file;
    const storage = await openTracked(dir, { hooks: { wrapFile: slow } });
    await storage.ensureIndexes();
    const { report } = await seed(storage, [defaultSeedsDir()]);
    expect(report.outcome).toBe('ok');
    expect(report.counts.events.created).toBeGreaterThan(300);
    const image = await crashImage(dir);
    dirs.push(image);
    const restored = await openTracked(image);
    expect(await dump(restored)).toEqual(await dump(storage));

    const disk = { failing: false };
    const broken = (file: AppendFile, path: string): AppendFile =>
      /wal-\d+\.log$/.test(path) ? { ...file, datasync: () => (disk.failing ? Promise.reject(new Error('EIO: fdatasync failed')) : file.datasync()) } : file;
    const failing = await openTracked(await tempDir(), { hooks: { wrapFile: broken }, log: recordingLog() });
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
});
