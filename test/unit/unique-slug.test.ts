/**
 * The insert with a unique slug every service uses (src/services/unique-slug.ts): the slug, then
 * `-2`, `-3`, …, then `<slug>-<id>`; only a clash on the slug index moves on.
 */
import { describe, expect, it } from 'vitest';
import { DuplicateKeyError } from '../../src/errors.js';
import { insertWithUniqueSlug, MAX_SLUG_ATTEMPTS } from '../../src/services/unique-slug.js';

const SLUG_INDEX = 'things_slug_unique';

/** An insert into a store holding `taken` slugs; records the slugs tried. */
function store(taken: Set<string>) {
  const tried: string[] = [];
  const insert = async (slug: string) => {
    tried.push(slug);
    if (taken.has(slug)) throw new DuplicateKeyError(SLUG_INDEX);
    taken.add(slug);
    return slug;
  };
  return { tried, insert };
}

describe('insertWithUniqueSlug', () => {
  it('takes the slug itself when it is free, else the first free suffix', async () => {
    const free = store(new Set());
    expect(await insertWithUniqueSlug({ base: 'party', id: 7, slugIndex: SLUG_INDEX, insert: free.insert })).toBe('party');
    const taken = store(new Set(['party', 'party-2']));
    expect(await insertWithUniqueSlug({ base: 'party', id: 7, slugIndex: SLUG_INDEX, insert: taken.insert })).toBe('party-3');
    expect(taken.tried).toEqual(['party', 'party-2', 'party-3']);
  });

  it('starts at `firstAttempt` (2: the slug itself is known to be taken)', async () => {
    const { tried, insert } = store(new Set(['party']));
    expect(await insertWithUniqueSlug({ base: 'party', id: 7, slugIndex: SLUG_INDEX, insert, firstAttempt: 2 })).toBe('party-2');
    expect(tried).toEqual(['party-2']);
  });

  it('falls back on <slug>-<id> past the suffixed candidates, then gives up', async () => {
    const suffixed = new Set(['party', ...Array.from({ length: MAX_SLUG_ATTEMPTS - 1 }, (_, i) => `party-${i + 2}`)]);
    expect(await insertWithUniqueSlug({ base: 'party', id: 1000, slugIndex: SLUG_INDEX, insert: store(new Set(suffixed)).insert })).toBe('party-1000');
    const full = store(new Set([...suffixed, 'party-1000']));
    await expect(insertWithUniqueSlug({ base: 'party', id: 1000, slugIndex: SLUG_INDEX, insert: full.insert })).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(full.tried).toHaveLength(MAX_SLUG_ATTEMPTS + 1);
    const exhausted = () => new Error('no free slug');
    await expect(
      insertWithUniqueSlug({ base: 'party', id: 1000, slugIndex: SLUG_INDEX, insert: store(new Set([...suffixed, 'party-1000'])).insert, exhausted }),
    ).rejects.toThrow('no free slug');
  });

  it('ends the search with what afterClash answers, and throws any other failure at once', async () => {
    const { insert } = store(new Set(['party']));
    expect(await insertWithUniqueSlug({ base: 'party', id: 7, slugIndex: SLUG_INDEX, insert, afterClash: async () => 'the other one' })).toBe('the other one');
    const other = new DuplicateKeyError('things_name_unique');
    let calls = 0;
    const failing = async () => {
      calls++;
      throw other;
    };
    await expect(insertWithUniqueSlug({ base: 'party', id: 7, slugIndex: SLUG_INDEX, insert: failing })).rejects.toBe(other);
    expect(calls).toBe(1);
  });
});
