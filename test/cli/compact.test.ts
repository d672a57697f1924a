/**
 * `npm run compact`: the LMDB file of a data directory shrinks to what its documents need after
 * deletions, every document is still there, a directory in use is refused, and bad arguments or a
 * missing DATA_DIR exit 2.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compactCli } from '../../src/cli/compact.js';
import { makeTagDoc } from '../helpers/factories.js';
import { dump, makeTempDir, open, removeDir } from '../durability/helpers.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await removeDir(dir);
});

function output() {
  const text = { out: '', err: '' };
  return { text, out: { write: (chunk: string) => ((text.out += chunk), true) }, err: { write: (chunk: string) => ((text.err += chunk), true) } };
}

describe('npm run compact', () => {
  it('gives the space of deleted documents back, keeps every other, and refuses while the directory is in use', { timeout: 30_000 }, async () => {
    const dir = await makeTempDir('calendar-compact-');
    dirs.push(dir);
    const storage = await open(dir);
    await storage.tags.insertMany(
      Array.from({ length: 2000 }, (_, i) =>
        makeTagDoc({ _id: i + 1, slug: `tag-${i}`, name: `Tag ${i}`, nameKey: `tag ${i}`, description: 'x'.repeat(2000) }),
      ),
    );
    // Side by side: the durable engine commits them in a few groups, where one at a time would sync each.
    await Promise.all(Array.from({ length: 1900 }, (_, i) => storage.tags.deleteById(i + 1)));
    const kept = await dump(storage);
    const env = { STORAGE: 'embedded', DATA_DIR: dir };

    // The service holds the directory: refused, nothing changed.
    const busy = output();
    expect(await compactCli([], { ...busy, env })).toBe(1);
    expect(busy.text.err).toMatch(new RegExp(`The data directory .* is in use by process ${process.pid}`));
    await storage.close();

    const before = (await stat(join(dir, 'data.mdb'))).size;
    const done = output();
    expect(await compactCli([], { ...done, env })).toBe(0);
    const after = (await stat(join(dir, 'data.mdb'))).size;
    expect(after).toBeLessThan(before / 4);
    expect(done.text.out).toMatch(/^compacted .*data\.mdb: \d+\.\d MiB → \d+\.\d MiB\n$/);

    const reopened = await open(dir);
    try {
      expect(await dump(reopened)).toEqual(kept);
      await reopened.tags.insertOne(makeTagDoc({ _id: 5000, slug: 'after-compaction' }));
    } finally {
      await reopened.close();
    }
  });

  it('exits 2 on bad arguments or without DATA_DIR, and 1 where there is no LMDB file', async () => {
    const bad = output();
    expect(await compactCli(['--now'], { ...bad, env: { DATA_DIR: '/tmp' } })).toBe(2);
    expect(bad.text.err).toContain('unknown argument --now');
    const unset = output();
    expect(await compactCli([], { ...unset, env: {} })).toBe(2);
    expect(unset.text.err).toContain('DATA_DIR is not set');
    const empty = await makeTempDir('calendar-compact-empty-');
    dirs.push(empty);
    const none = output();
    expect(await compactCli([], { ...none, env: { DATA_DIR: empty } })).toBe(1);
    expect(none.text.err).toContain('holds no LMDB data');
  });
});
