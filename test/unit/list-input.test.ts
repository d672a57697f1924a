/**
 * List parameters: both forms (an array, a comma-separated string) split by one linear rule and
 * held to one cap.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidParamsError } from '../../src/errors.js';
import { listItems, MAX_LIST_ITEMS, splitOnCommas } from '../../src/query/list-input.js';

describe('list parameters', () => {
  it("split like the reference's \\s*,\\s* (whitespace around commas only)", () => {
    expect(splitOnCommas(' a , b ,c ')).toEqual([' a', 'b', 'c ']);
    expect(splitOnCommas('a,\t\n b')).toEqual(['a', 'b']);
    expect(splitOnCommas('  single  ')).toEqual(['  single  ']);
    fc.assert(
      fc.property(fc.stringMatching(/^[a ,\t\u00a0\u2028x1]{0,40}$/), (text) => {
        expect(splitOnCommas(text)).toEqual(text.split(/\s*,\s*/));
      }),
    );
  });

  it('split a long run of spaces in one pass (the regular expression backtracks on it)', () => {
    const text = `1${' '.repeat(500_000)}2,3`;
    expect(splitOnCommas(text)).toEqual([`1${' '.repeat(500_000)}2`, '3']);
  });

  it('leave empty items out and hold both forms to the same cap, naming the parameter', () => {
    expect(listItems('1,,2,', 'include')).toEqual(['1', '2']);
    expect(listItems(7, 'venue')).toEqual([7]);
    expect(listItems(undefined, 'tags')).toEqual([]);
    const ids = Array.from({ length: MAX_LIST_ITEMS + 1 }, (_, i) => String(i + 1));
    expect(listItems(ids.slice(1).join(','), 'include')).toHaveLength(MAX_LIST_ITEMS);
    for (const value of [ids.join(','), ids]) {
      const error = (() => {
        try {
          listItems(value, 'include');
        } catch (caught) {
          return caught;
        }
        return null;
      })();
      expect(error).toBeInstanceOf(InvalidParamsError);
      expect((error as InvalidParamsError).data.params).toEqual({ include: `include must have at most ${MAX_LIST_ITEMS} items.` });
    }
  });
});
