/**
 * The embedded engine stores a frozen deep copy of every written document (src/storage/embedded/
 * bson.ts frozenCopy): reads hand out the stored objects without copying, so nothing a caller
 * holds — the document it wrote, or one it read — may change what is stored.
 */
import { describe, expect, it } from 'vitest';
import { indexes } from '../../indexes/index.js';
import { createEmbeddedStorage } from '../../src/storage/embedded/index.js';
import { makeEventDoc } from '../helpers/factories.js';

function frozenThroughout(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || value instanceof Date) return true;
  return Object.isFrozen(value) && Object.values(value).every(frozenThroughout);
}

describe('embedded engine: stored documents', () => {
  it('are frozen at every depth, and independent of the written object', async () => {
    const storage = createEmbeddedStorage({ indexes, reason: 'test' });
    await storage.ensureIndexes();
    const written = makeEventDoc({ _id: 1, categoryIds: [3, 4], image: { url: 'https://example.org/a.jpg', extension: 'jpg' } });
    await storage.events.insertOne(written);
    await storage.events.insertMany([makeEventDoc({ _id: 2, slug: 'second', tagIds: [7] })]);
    for (const id of [1, 2]) {
      const stored = await storage.events.findById(id);
      expect(frozenThroughout(stored)).toBe(true);
    }
    // The caller's object is neither frozen nor shared.
    expect(Object.isFrozen(written)).toBe(false);
    written.categoryIds.push(99);
    written.title = 'Changed after the write';
    const stored = await storage.events.findById(1);
    expect(stored!.categoryIds).toEqual([3, 4]);
    expect(stored!.title).not.toBe('Changed after the write');
    await storage.close();
  });
});
