/**
 * List parameters (`include`, `categories`, `tags`, `venue`, `organizer`, `status`, a write's
 * terms and organizers): one rule for both forms a caller may send — an array (repeated keys, or
 * JSON) or one comma-separated string — so neither form escapes the other's limit.
 *
 * - A string is split on commas with the whitespace around each comma removed (the reference's
 *   `\s*,\s*`), in one linear pass: a regular expression with `\s*` on both sides of the comma
 *   backtracks quadratically on a long run of spaces.
 * - Empty items are left out.
 * - At most MAX_LIST_ITEMS items, else a 400 naming the parameter, as the array form's schema says.
 */
import { InvalidParamsError } from '../errors.js';

/** The most items a list parameter may name, in either form. */
export const MAX_LIST_ITEMS = 100;

/** `text` split on commas, without the whitespace around each comma. */
export function splitOnCommas(text: string): string[] {
  const parts = text.split(',');
  const last = parts.length - 1;
  for (let i = 0; i <= last && last > 0; i++) {
    let part = parts[i]!;
    if (i > 0) part = part.trimStart();
    if (i < last) part = part.trimEnd();
    parts[i] = part;
  }
  return parts;
}

/** The items of a list parameter `param`: at most MAX_LIST_ITEMS, empty ones left out. */
export function listItems<T extends string | number>(value: T | readonly T[] | undefined, param: string): ReadonlyArray<T | string> {
  if (value === undefined || value === '') return [];
  if (typeof value === 'number') return [value];
  const items: ReadonlyArray<T | string> = typeof value === 'string' ? splitOnCommas(value) : value;
  const kept = items.some((item) => item === '') ? items.filter((item) => item !== '') : items;
  if (kept.length > MAX_LIST_ITEMS) throw new InvalidParamsError({ [param]: `${param} must have at most ${MAX_LIST_ITEMS} items.` });
  return kept;
}
