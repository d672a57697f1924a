/**
 * Term lists. Filters that the storage can evaluate are compiled into a Filter;
 * what depends on per-term event counts or substring search is applied to the (small) set of terms.
 */
import { type Filter, type TermDoc } from '../storage/port.js';

export interface TermListFilter {
  include?: number[];
  exclude?: number[];
  parent?: number;
  slug?: string;
  /** Terms of an event (`post` / `event`). */
  ofEvent?: number[];
}

export function compileTermFilter(p: TermListFilter): Filter {
  const clauses: Filter[] = [];
  const ids = [p.include, p.ofEvent].filter((l): l is number[] => l !== undefined);
  for (const list of ids) clauses.push({ _id: { $in: list } });
  if (p.exclude !== undefined && p.exclude.length > 0) clauses.push({ _id: { $nin: p.exclude } });
  if (p.parent !== undefined) clauses.push({ parent: p.parent });
  if (p.slug !== undefined) clauses.push({ slug: p.slug });
  return clauses.length === 0 ? {} : clauses.length === 1 ? (clauses[0] as Filter) : { $and: clauses };
}

/** Case-insensitive substring of the name or the slug. */
export function matchesSearch(term: Pick<TermDoc, 'name' | 'slug'>, search: string): boolean {
  const needle = search.toLowerCase();
  return term.name.toLowerCase().includes(needle) || term.slug.toLowerCase().includes(needle);
}

export type TermOrderBy = 'id' | 'name' | 'slug' | 'description' | 'count' | 'parent' | 'term_group' | 'include';

/** WordPress's orderby values; anything else falls back to name. */
export function resolveOrderBy(raw: string | undefined): TermOrderBy {
  const value = (raw ?? 'name').toLowerCase();
  if (value === 'term_id' || value === 'id') return 'id';
  if (['name', 'slug', 'description', 'count', 'parent', 'term_group', 'include'].includes(value)) return value as TermOrderBy;
  return 'name';
}

/** `asc` in any case is ascending; any other value is descending (WordPress's rule). */
export function resolveOrder(raw: string | undefined): 1 | -1 {
  return raw === undefined || raw.toLowerCase() === 'asc' ? 1 : -1;
}

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: false });

export function sortTerms<T extends TermDoc>(
  terms: T[],
  orderBy: TermOrderBy,
  direction: 1 | -1,
  counts: ReadonlyMap<number, number>,
  include: readonly number[] = [],
): T[] {
  const key = (t: T): number | string => {
    switch (orderBy) {
      case 'id':
        return t._id;
      case 'count':
        return counts.get(t._id) ?? 0;
      case 'parent':
        return t.parent;
      case 'term_group':
        return 0;
      case 'include':
        return include.indexOf(t._id);
      default:
        return t[orderBy];
    }
  };
  return [...terms].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    const primary = typeof ka === 'number' && typeof kb === 'number' ? ka - kb : collator.compare(String(ka), String(kb));
    return direction * (primary !== 0 ? primary : a._id - b._id);
  });
}
