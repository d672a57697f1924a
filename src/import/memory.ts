/**
 * Bounded bookkeeping for loads too large to keep: a least-recently-used cache, a compact set of slug
 * fingerprints, slug → id maps backed by storage lookups, and a concurrency limiter.
 */
import { LRUCache } from 'lru-cache';

/** Slugs (or ids) asked of storage in one query at most. */
export const LOOKUP_CHUNK = 1000;

/** What stands for null in the cache: lru-cache keeps no null values (a slug not stored is one). */
const NULL = Symbol('null');

/**
 * A map of at most `capacity` entries that forgets the least recently used one first (lru-cache).
 * Null is a value like any other; undefined is none (setting it removes the entry).
 */
export class LruCache<K extends NonNullable<unknown>, V> {
  private readonly cache: LRUCache<K, NonNullable<V> | typeof NULL>;
  constructor(capacity: number) {
    this.cache = new LRUCache({ max: Math.max(1, Math.floor(capacity)) });
  }

  get(key: K): V | undefined {
    const value = this.cache.get(key);
    return value === NULL ? (null as V) : value;
  }

  has(key: K): boolean {
    return this.cache.has(key);
  }

  set(key: K, value: V): void {
    this.cache.set(key, value === null ? NULL : value);
  }

  get size(): number {
    return this.cache.size;
  }
}

/**
 * 64-bit fingerprint of a string: two 32-bit multiplicative hashes (cyrb53's mixing, both halves
 * kept). Two different slugs share one with probability ~5·10⁻²⁰ a pair: for 10⁶ slugs, about one
 * chance in 10⁸ that any two of them do.
 */
function fingerprint(text: string): [number, number] {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return [h1 >>> 0, h2 >>> 0];
}

/**
 * A set of slugs kept as 64-bit fingerprints in flat typed arrays (open addressing): 16 bytes a slug
 * at most, instead of the slug itself plus a Map entry. Used for the event slugs of a streamed load
 * (duplicates, parents defined earlier, what `--prune` keeps).
 */
export class SlugFingerprints {
  private hi = new Uint32Array(1024);
  private lo = new Uint32Array(1024);
  private used = new Uint8Array(1024);
  private count = 0;

  get size(): number {
    return this.count;
  }

  private slot(h: number, l: number): number {
    const mask = this.used.length - 1;
    let i = (l ^ Math.imul(h, 0x9e3779b1)) & mask;
    while (this.used[i] === 1 && (this.hi[i] !== h || this.lo[i] !== l)) i = (i + 1) & mask;
    return i;
  }

  has(slug: string): boolean {
    const [h, l] = fingerprint(slug);
    return this.used[this.slot(h, l)] === 1;
  }

  /** Adds the slug; false when it was there already. */
  add(slug: string): boolean {
    const [h, l] = fingerprint(slug);
    const i = this.slot(h, l);
    if (this.used[i] === 1) return false;
    this.used[i] = 1;
    this.hi[i] = h;
    this.lo[i] = l;
    this.count++;
    if (this.count * 2 > this.used.length) this.grow();
    return true;
  }

  private grow(): void {
    const { hi, lo, used } = this;
    const size = used.length * 2;
    this.hi = new Uint32Array(size);
    this.lo = new Uint32Array(size);
    this.used = new Uint8Array(size);
    for (let i = 0; i < used.length; i++) {
      if (used[i] !== 1) continue;
      const j = this.slot(hi[i] as number, lo[i] as number);
      this.used[j] = 1;
      this.hi[j] = hi[i] as number;
      this.lo[j] = lo[i] as number;
    }
  }
}

/**
 * Slug → id of one collection: the records of the files (exact, once known), and storage lookups
 * (least recently used, bounded), fetched a batch at a time.
 */
export class SlugIds {
  readonly defined = new Map<string, number>();
  private readonly looked: LruCache<string, number | null>;

  constructor(
    private readonly lookup: (slugs: string[]) => Promise<Array<{ _id: number; slug: string }>>,
    capacity: number,
  ) {
    this.looked = new LruCache(capacity);
  }

  /** The id of a slug: a number, null (not stored), or undefined (not looked up yet). */
  get(slug: string): number | null | undefined {
    return this.defined.get(slug) ?? this.looked.get(slug);
  }

  remember(slug: string, id: number): void {
    this.looked.set(slug, id);
  }

  /** Looks up in storage, in as few queries as possible, the slugs not known yet. */
  async prefetch(slugs: Iterable<string>): Promise<void> {
    const missing = [...new Set(slugs)].filter((s) => !this.defined.has(s) && !this.looked.has(s));
    for (let i = 0; i < missing.length; i += LOOKUP_CHUNK) {
      const chunk = missing.slice(i, i + LOOKUP_CHUNK);
      const found = new Map((await this.lookup(chunk)).map((d) => [d.slug, d._id]));
      for (const slug of chunk) this.looked.set(slug, found.get(slug) ?? null);
    }
  }
}

/** Runs `task` over `items` with at most `limit` in flight; resolves when all have settled. */
export async function forEachLimit<T>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      await task(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
