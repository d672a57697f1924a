/**
 * The least-recently-used caches built on lru-cache keep their sizes and meaning: the seed loader's
 * slug → id cache (src/import/memory.ts: null is a value, at most `capacity` entries, a read
 * keeps an entry) and the serializers' per-document memo (src/serialize/memo.ts: one build per
 * document and context, a few contexts a document, at most `maxDocuments` documents, frozen values).
 */
import { describe, expect, it } from 'vitest';
import { LruCache } from '../../src/import/memory.js';
import { DocumentMemo } from '../../src/serialize/memo.js';

describe('LruCache (seed slug ids)', () => {
  it('keeps null as a value, apart from a missing entry', () => {
    const cache = new LruCache<string, number | null>(10);
    cache.set('stored', 7);
    cache.set('not-stored', null);
    expect(cache.get('stored')).toBe(7);
    expect(cache.get('not-stored')).toBeNull();
    expect(cache.has('not-stored')).toBe(true);
    expect(cache.get('never-looked-up')).toBeUndefined();
    expect(cache.has('never-looked-up')).toBe(false);
  });

  it('holds `capacity` entries and forgets the least recently used first', () => {
    const cache = new LruCache<string, number>(100);
    for (let i = 0; i < 100; i++) cache.set(`s${i}`, i);
    expect(cache.size).toBe(100);
    // Reading s0 keeps it; has() does not count as a use.
    expect(cache.get('s0')).toBe(0);
    expect(cache.has('s1')).toBe(true);
    cache.set('s100', 100);
    cache.set('s101', 101);
    expect(cache.size).toBe(100);
    expect(cache.has('s0')).toBe(true);
    expect(cache.has('s1')).toBe(false);
    expect(cache.has('s2')).toBe(false);
    expect(cache.get('s3')).toBe(3);
  });
});

describe('DocumentMemo', () => {
  const docs = Array.from({ length: 10 }, (_, id) => Object.freeze({ id }));

  it('builds once per document and key, and freezes what it keeps', () => {
    const memo = new DocumentMemo<{ id: number }, { text: string }>(5);
    let builds = 0;
    const get = (doc: { id: number }, key: string) => memo.get(doc, key, () => ({ text: `${doc.id}:${key}:${++builds}` }));
    const first = get(docs[0]!, 'en');
    expect(get(docs[0]!, 'en')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(get(docs[0]!, 'de')).not.toBe(first);
    // An equal object is another version of the document: it misses.
    expect(get({ id: 0 }, 'en')).not.toBe(first);
    expect(builds).toBe(3);
  });

  it('keeps the 4 latest keys of a document', () => {
    const memo = new DocumentMemo<{ id: number }, string>(5);
    let builds = 0;
    const get = (key: string) => memo.get(docs[0]!, key, () => `${key}${++builds}`);
    for (const key of ['a', 'b', 'c', 'd', 'e']) get(key);
    expect(get('e')).toBe('e5');
    expect(get('b')).toBe('b2');
    expect(get('a')).toBe('a6');
  });

  it('with room for no document, builds every time and leaves the value to the caller', () => {
    const memo = new DocumentMemo<{ id: number }, { text: string }>(0);
    let builds = 0;
    const first = memo.get(docs[0]!, 'k', () => ({ text: `${++builds}` }));
    expect(memo.get(docs[0]!, 'k', () => ({ text: `${++builds}` }))).toEqual({ text: '2' });
    expect(Object.isFrozen(first)).toBe(false);
  });

  it('keeps `maxDocuments` documents, the least recently read going first', () => {
    const memo = new DocumentMemo<{ id: number }, string>(3);
    let builds = 0;
    const get = (doc: { id: number }) => memo.get(doc, 'k', () => `${doc.id}/${++builds}`);
    get(docs[0]!);
    get(docs[1]!);
    get(docs[2]!);
    // Reading 0 again makes 1 the least recently used: a fourth document pushes it out.
    expect(get(docs[0]!)).toBe('0/1');
    get(docs[3]!);
    expect(get(docs[0]!)).toBe('0/1');
    expect(get(docs[2]!)).toBe('2/3');
    expect(get(docs[1]!)).toBe('1/5');
  });
});
