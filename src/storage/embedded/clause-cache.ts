/**
 * Materialised clause results: for a clause that recurs (`hideFromListings: false`, a category
 * `$in`, a search word, a status) or a whole filter that does (a listing paged through), the
 * bitset of the documents it matches, kept exact on every
 * write by re-evaluating the clause on the written document. Totals then cost an AND and a
 * popcount of a few bitsets instead of a pass over every match.
 *
 * Range clauses whose bound moves with the clock (`endUtc <= now + 24 months`) never recur
 * exactly; they are kept per family (field, direction, index) so a new bound is derived from the
 * nearest cached one by re-evaluating only the documents between the two bounds.
 */
import { Bitset } from './bitset.js';
import { type Predicate, type StoredDoc } from './predicate.js';

export interface CachedClause {
  key: string;
  bits: Bitset;
  /** Number of set bits, kept current by `refresh`. */
  count: number;
  predicate: Predicate;
  /** For range families: the bound and operator this bitset was computed for. */
  bound?: unknown;
  op?: string;
}

/** Clauses kept at most (each costs slots/8 bytes: 125 KB at a million documents). */
const MAX_CLAUSES = 256;
/** Bounds kept per range family: random date windows then find a near neighbour (1/64 of the range apart). */
const MAX_PER_FAMILY = 32;
/** The "seen" counter forgets everything past this many distinct keys (time-varying keys never recur). */
const MAX_SEEN = 10_000;

export class ClauseCache {
  /** `release` is handed the bitset of every entry the cache drops, for reuse (see ScratchBits.release). */
  constructor(private readonly release: (bits: Bitset) => void = () => {}) {}

  /**
   * Least recently used first, kept by Map order rather than lru-cache: `refresh` walks every entry
   * on each write, and a Map is walked without the generator lru-cache iterates through.
   */
  private readonly clauses = new Map<string, CachedClause>();
  private readonly families = new Map<string, CachedClause[]>();
  /** Family members by clause key, so an exact bound is found like any cached clause. */
  private readonly members = new Map<string, CachedClause>();
  private readonly seen = new Map<string, number>();

  get(key: string): CachedClause | undefined {
    const member = this.members.get(key);
    if (member !== undefined) return member;
    const entry = this.clauses.get(key);
    if (entry !== undefined) {
      // Map order is insertion order: re-inserting keeps the least recently used first.
      this.clauses.delete(key);
      this.clauses.set(key, entry);
    }
    return entry;
  }

  put(key: string, bits: Bitset, predicate: Predicate, count = bits.count()): CachedClause {
    const entry: CachedClause = { key, bits, count, predicate };
    const replaced = this.clauses.get(key);
    if (replaced !== undefined && replaced.bits !== bits) this.release(replaced.bits);
    this.clauses.delete(key);
    this.clauses.set(key, entry);
    if (this.clauses.size > MAX_CLAUSES) {
      const [oldestKey, oldest] = this.clauses.entries().next().value!;
      this.clauses.delete(oldestKey);
      this.release(oldest.bits);
    }
    return entry;
  }

  /** Counts a sighting of a clause key and returns how often it was seen (this one included). */
  noteSeen(key: string): number {
    const count = (this.seen.get(key) ?? 0) + 1;
    if (this.seen.size >= MAX_SEEN && count === 1) this.seen.clear();
    this.seen.set(key, count);
    return count;
  }

  family(familyKey: string): readonly CachedClause[] {
    return this.families.get(familyKey) ?? [];
  }

  /** Removes and returns the least recently used member of a full family (its bitset can be reused). */
  evictFromFull(familyKey: string): CachedClause | undefined {
    const members = this.families.get(familyKey);
    if (members === undefined || members.length < MAX_PER_FAMILY) return undefined;
    const evicted = members.shift()!;
    this.members.delete(evicted.key);
    return evicted;
  }

  /** Marks a family member as just used, so the least recently used member is the one evicted. */
  touch(familyKey: string, entry: CachedClause): void {
    const members = this.families.get(familyKey);
    const at = members?.indexOf(entry) ?? -1;
    if (members === undefined || at < 0) return;
    members.splice(at, 1);
    members.push(entry);
  }

  putInFamily(familyKey: string, entry: CachedClause): void {
    const members = this.families.get(familyKey) ?? [];
    members.push(entry);
    this.members.set(entry.key, entry);
    if (members.length > MAX_PER_FAMILY) {
      const dropped = members.shift()!;
      this.members.delete(dropped.key);
      this.release(dropped.bits);
    }
    this.families.set(familyKey, members);
  }

  /** Keeps every cached clause exact after the document in `slot` was written (undefined: deleted). */
  refresh(slot: number, doc: StoredDoc | undefined): void {
    // Called for every stored document of a bulk load, usually with nothing cached: no closure.
    if (this.clauses.size === 0 && this.families.size === 0) return;
    for (const entry of this.clauses.values()) refreshEntry(entry, slot, doc);
    for (const members of this.families.values()) for (const entry of members) refreshEntry(entry, slot, doc);
  }

  clear(): void {
    this.clauses.clear();
    this.families.clear();
    this.members.clear();
    this.seen.clear();
  }
}

function refreshEntry(entry: CachedClause, slot: number, doc: StoredDoc | undefined): void {
  const before = entry.bits.has(slot);
  const after = doc !== undefined && entry.predicate(doc, slot);
  if (before === after) return;
  entry.bits.assign(slot, after);
  entry.count += after ? 1 : -1;
}
