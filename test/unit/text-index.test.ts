/**
 * The embedded text index keeps each term's slots as an ascending list; documents added out of slot
 * order, removed and re-added must leave exactly the slots a plain term → set map holds.
 */
import { describe, expect, it } from 'vitest';
import { tokenize } from '../../src/lib/text.js';
import { TextIndex } from '../../src/storage/embedded/text-index.js';
import { random } from '../helpers/random.js';

const WORDS = ['jazz', 'opera', 'cinema', 'market', 'poetry', 'garden', 'robot', 'choir', 'night', 'walks'];

describe('TextIndex', () => {
  it('answers like a plain map of term sets across out-of-order adds, removals and re-adds', () => {
    const next = random(5);
    const index = new TextIndex({ name: 't', key: { title: 'text', description: 'text' } });
    const docs = new Map<number, { title: string; description: string }>();
    const pick = () => WORDS[Math.floor(next() * WORDS.length)]!;
    for (let round = 0; round < 4000; round++) {
      const slot = Math.floor(next() * 600);
      const current = docs.get(slot);
      if (current !== undefined && next() < 0.5) {
        index.remove(slot, current);
        docs.delete(slot);
      } else if (current === undefined) {
        const doc = { title: `${pick()} ${pick()}`, description: next() < 0.5 ? pick() : '' };
        index.add(slot, doc);
        docs.set(slot, doc);
      }
    }
    for (const word of WORDS) {
      const [term] = tokenize(word);
      const holding = [...docs]
        .filter(([, d]) => tokenize(`${d.title} ${d.description}`).includes(term!))
        .map(([slot]) => slot)
        .sort((a, b) => a - b);
      const out: number[] = [];
      index.collectAny([term!], out);
      expect(out, word).toEqual(holding);
      expect(index.estimateAny([term!])).toBe(holding.length);
      for (let slot = 0; slot < 600; slot++) expect(index.hasAny(slot, [term!])).toBe(holding.includes(slot));
    }
    expect(docs.size).toBeGreaterThan(100);
  });
});
