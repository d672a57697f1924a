/**
 * The log's file writes (src/storage/durable/files.ts): a group commit's chunks go out in one
 * gathered write, whole and in order, and a short write continues exactly where it stopped.
 */
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { appendFileOf, unwritten } from '../../src/storage/durable/files.js';
import { makeTempDir, removeDir } from './helpers.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await removeDir(dir);
});

describe('durable log file writes', () => {
  it('appends chunks whole and in order after what the file holds, empty chunks included', async () => {
    const dir = await makeTempDir();
    dirs.push(dir);
    const path = join(dir, 'log');
    const file = appendFileOf(await open(path, 'w'));
    await file.append([Buffer.from('head\n')]);
    const chunks = [Buffer.from('a'.repeat(70_000)), Buffer.alloc(0), Buffer.from('€ and more\n'), Buffer.from('b'.repeat(3))];
    await file.append(chunks);
    await file.append([]);
    await file.datasync();
    await file.close();
    expect((await readFile(path)).equals(Buffer.concat([Buffer.from('head\n'), ...chunks]))).toBe(true);
  });

  it('leaves after a short write exactly the bytes not written, in order', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 9 }), { maxLength: 6 }), fc.nat(), (arrays, cut) => {
        const chunks = arrays.map((a) => Buffer.from(a));
        const all = Buffer.concat(chunks);
        const written = all.length === 0 ? 0 : cut % (all.length + 1);
        const rest = unwritten(chunks, written);
        expect(Buffer.concat(rest).equals(all.subarray(written))).toBe(true);
        // Nothing empty is left to write, except what was empty to begin with past the cut.
        if (written === all.length) expect(rest.every((chunk) => chunk.length === 0)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
