/**
 * Change detection for bulk loading (the seed CLI): which of the fields a write would set differ
 * from the stored document, so an unchanged record is not rewritten ("a second run changes nothing").
 */

/** Structural equality of stored values: scalars, `Date`s (by instant), arrays and plain objects. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => sameValue(item, b[i]));
  }
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) {
    const keysA = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
    const keysB = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
    return keysA.length === keysB.length && keysA.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return false;
}

/** The members of `set` whose value differs from `current` (`ignore`: bookkeeping such as `modifiedUtc`). */
export function changedFields<T extends object>(current: T, set: Partial<T>, ignore: ReadonlyArray<keyof T & string> = []): Partial<T> {
  const changed: Partial<T> = {};
  for (const key of Object.keys(set) as Array<keyof T & string>) {
    if (ignore.includes(key)) continue;
    const value = set[key];
    if (value === undefined) continue;
    if (!sameValue(value, current[key])) changed[key] = value;
  }
  return changed;
}
