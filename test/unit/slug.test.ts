import slugify from 'slugify';
import { describe, expect, it } from 'vitest';
import { slugCandidate, slugFrom } from '../../src/lib/slug.js';
import { random } from '../helpers/random.js';

/** What slugFrom computes without its shortcut for text that is already a slug. */
const slow = (text: string, fallback: string) => slugify(text, { lower: true, strict: true, trim: true }).slice(0, 190).replace(/-+$/, '') || fallback;

describe('slugFrom', () => {
  it.each([
    ['Jazz Night at the Tempodrom', 'jazz-night-at-the-tempodrom'],
    ['Café Müller – Tanztheater', 'cafe-muller-tanztheater'],
    ['already-a-slug-42', 'already-a-slug-42'],
    ['-leading and trailing-', 'leading-and-trailing'],
    ['a--b', 'a-b'],
    ['!!!', 'fallback'],
  ])('%s → %s', (text, expected) => {
    expect(slugFrom(text, 'fallback')).toBe(expected);
  });

  it('cuts long slugs at 190 characters without a trailing dash', () => {
    const long = `${'a'.repeat(189)}-${'b'.repeat(20)}`;
    expect(slugFrom(long, 'x')).toBe('a'.repeat(189));
  });

  it('returns what slugify returns for random text, slugs or not', () => {
    const next = random(7);
    const alphabet = 'abcxyz0189-- _AZé.';
    for (let n = 0; n < 5000; n++) {
      const length = 1 + Math.floor(next() * 12);
      const text = Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      expect(slugFrom(text, 'f'), JSON.stringify(text)).toBe(slow(text, 'f'));
    }
  });

  it('numbers further candidates', () => {
    expect([1, 2, 3].map((n) => slugCandidate('talk', n))).toEqual(['talk', 'talk-2', 'talk-3']);
  });
});
