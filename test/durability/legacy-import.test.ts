/**
 * A data directory of the write-ahead-log engine (test/fixtures/legacy-data-dir: a snapshot and the
 * log after it, written by that engine) is imported into LMDB at the first open: every document
 * and both counters arrive exactly, the old files are moved aside under one folder, and one line
 * says so. A directory that cannot be read stops the open and changes nothing.
 */
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirectoryCorruptError } from '../../src/storage/lmdb/index.js';
import { COLLECTION_NAMES } from '../../src/storage/port.js';
import { makeTagDoc } from '../helpers/factories.js';
import { dump, makeTempDir, open, recordingLog, removeDir } from './helpers.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/legacy-data-dir/', import.meta.url));
const EXPECTED = fileURLToPath(new URL('../fixtures/legacy-expected.json', import.meta.url));
const LEGACY_FILES = ['snapshot-00000002.snap', 'wal-00000002.log'];

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await removeDir(dir);
});

/** A copy of the fixture's data files in a fresh directory. */
async function legacyCopy(): Promise<string> {
  const dir = await makeTempDir('calendar-legacy-');
  dirs.push(dir);
  for (const name of LEGACY_FILES) await cp(join(FIXTURE, name), join(dir, name));
  return dir;
}

async function expected(): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(EXPECTED, 'utf8'), (_key, value: unknown) =>
    value !== null && typeof value === 'object' && '$date' in value ? new Date((value as { $date: string }).$date) : value,
  ) as Record<string, unknown>;
}

describe('durable storage: a data directory of the write-ahead-log engine', () => {
  it('is imported at the first open: every document and counter, the old files moved aside, one line logged', async () => {
    const dir = await legacyCopy();
    const want = await expected();
    const log = recordingLog();
    const storage = await open(dir, { log });
    try {
      const got = await dump(storage);
      // Collections added since the fixture was written (tombstones) start empty.
      for (const name of COLLECTION_NAMES) expect(got[name], name).toEqual(want[name] ?? []);
      expect(Object.values(got).flat().length).toBe(12);
      // Dates are Dates, to the millisecond.
      const organizer = (await storage.organizers.findOne({ slug: 'ørsted-ensemble' }))!;
      expect(organizer.dateUtc.toISOString()).toBe('2024-02-29T23:59:59.999Z');
      // The counters go on after the last id reserved (posts: a block of three past the last document).
      const sequences = want.sequences as { posts: number; terms: number };
      expect(await storage.nextId('posts')).toBe(sequences.posts + 1);
      expect(await storage.nextId('terms')).toBe(sequences.terms + 1);
      const lines = log.infos.filter((line) => line.includes('imported'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/imported 12 documents of the write-ahead log into LMDB; its files are in .*legacy-log-/);
      const names = await readdir(dir);
      expect(names.filter((name) => LEGACY_FILES.includes(name))).toEqual([]);
      const aside = names.find((name) => name.startsWith('legacy-log-'))!;
      expect((await readdir(join(dir, aside))).sort()).toEqual(LEGACY_FILES);
      await storage.tags.insertOne(makeTagDoc({ _id: await storage.nextId('terms'), slug: 'after-import' }));
    } finally {
      await storage.close();
    }

    // The next open reads LMDB alone and imports nothing again.
    const log2 = recordingLog();
    const reopened = await open(dir, { log: log2 });
    try {
      expect(log2.infos.some((line) => line.includes('imported'))).toBe(false);
      expect((await dump(reopened)).events).toEqual(want.events);
      expect(await reopened.tags.findOne({ slug: 'after-import' })).not.toBeNull();
    } finally {
      await reopened.close();
    }
  });

  it('imports a newest log that ends in a torn record up to that record, and says so', async () => {
    const dir = await legacyCopy();
    const log = join(dir, 'wal-00000002.log');
    const bytes = await readFile(log);
    // Cut inside the last record (the terms counter): a crash during its append.
    await writeFile(log, bytes.subarray(0, bytes.length - 8));
    const lines = recordingLog();
    const storage = await open(dir, { log: lines });
    try {
      expect(await storage.events.count({})).toBe(3);
      expect(lines.infos.join('\n')).toMatch(/wal-00000002\.log ends in a torn or bad record at byte \d+/);
    } finally {
      await storage.close();
    }
  });

  it('refuses a directory it cannot read whole (a damaged snapshot, a missing log), leaving it as it was', async () => {
    const damaged = await legacyCopy();
    const snapshot = join(damaged, 'snapshot-00000002.snap');
    const bytes = await readFile(snapshot);
    bytes[200] = bytes[200]! ^ 0x01;
    await writeFile(snapshot, bytes);
    await expect(open(damaged)).rejects.toThrow(DataDirectoryCorruptError);
    await expect(open(damaged)).rejects.toThrow(/snapshot-00000002\.snap has a bad record at byte \d+/);
    expect((await readdir(damaged)).filter((name) => LEGACY_FILES.includes(name)).sort()).toEqual(LEGACY_FILES);

    const missing = await legacyCopy();
    await removeDir(join(missing, 'wal-00000002.log'));
    await expect(open(missing)).rejects.toThrow(/wal-00000002\.log is missing/);

    const newer = await legacyCopy();
    const header = '["wal",4,3]';
    const { crc32 } = await import('node:zlib');
    await writeFile(join(newer, 'wal-00000003.log'), `${(crc32(header) >>> 0).toString(16).padStart(8, '0')} ${header.length} ${header}\n`);
    await expect(open(newer)).rejects.toThrow(/wal-00000003\.log is in format 4; this version reads 1, 2, 3/);
  });
});
