/**
 * codeAt reads what charCodeAt reads, whatever kind of string V8 made: the log encoder relies on it
 * for every character it writes.
 */
import { describe, expect, it } from 'vitest';
import { codeAt } from '../../src/lib/chars.js';

describe('codeAt', () => {
  const parsed = JSON.parse('["parsed-from-json", "été €"]') as string[];
  const strings: Record<string, string> = {
    literal: 'literal text',
    parsed: parsed[0]!,
    'two-byte': parsed[1]!,
    sliced: `${'a-long-enough-prefix-'.repeat(3)}sliced`.slice(7),
    concatenated: ['con', 'cat', 'en', 'ated'].reduce((text, part) => text + part + String(text.length), ''),
    surrogates: 'emoji 😀 and a lone \ud800 half',
    empty: '',
  };

  for (const [kind, text] of Object.entries(strings)) {
    it(`reads a ${kind} string as charCodeAt does, past its end included`, () => {
      for (let i = -1; i <= text.length; i++) expect(Object.is(codeAt(text, i), text.charCodeAt(i))).toBe(true);
    });
  }
});
