/**
 * Query-string parser for every route: `k=a,b` stays a string (list parameters
 * split it later), while `k[]=a&k[]=b`, `k[0]=a&k[1]=b` and repeated `k=a&k=b` all become the
 * array `[a, b]`. Keys are kept exactly as sent otherwise, so unknown or `$`-prefixed keys can be
 * reported by name.
 */
export type ParsedQuery = Record<string, string | string[]>;

const BRACKETS = /^([^[\]]+)\[(\d*)\]$/;

export function parseQueryString(raw: string): ParsedQuery {
  // A null prototype: `__proto__` or `constructor` keys are plain data, never prototype writes.
  const out: ParsedQuery = Object.create(null) as ParsedQuery;
  const indexed = new Map<string, Array<[number, string]>>();
  for (const [rawKey, value] of new URLSearchParams(raw)) {
    const m = BRACKETS.exec(rawKey);
    if (m) {
      const key = m[1] as string;
      const list = indexed.get(key) ?? [];
      list.push([m[2] === '' ? Number.MAX_SAFE_INTEGER : Number(m[2]), value]);
      indexed.set(key, list);
      continue;
    }
    const prev = out[rawKey];
    if (prev === undefined) out[rawKey] = value;
    else out[rawKey] = Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  for (const [key, list] of indexed) {
    // Stable sort keeps `k[]` items in the order sent; explicit indexes order the rest.
    const values = list.sort((a, b) => a[0] - b[0]).map(([, v]) => v);
    const prev = out[key];
    out[key] = prev === undefined ? values : [...(Array.isArray(prev) ? prev : [prev]), ...values];
  }
  return out;
}
