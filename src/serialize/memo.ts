/**
 * Serializations remembered per stored document object. Documents read from storage are immutable
 * values (the embedded engine hands out its frozen stored documents; a write stores a new object),
 * so a representation built from a document stays right for as long as that object is the stored
 * version — no invalidation needed: the next version is another object and misses. On the MongoDB
 * engine every read yields fresh objects and the memo simply never hits.
 *
 * Bounded, least recently used first out (lru-cache): the memo holds the representations of the
 * documents being read now, not of the whole calendar. A representation also depends on
 * the serialization context (host, language root, single read), so each document keeps a few
 * contexts, the oldest going first (a Host header cannot grow it). Results are frozen: they are
 * shared between responses and must never be edited in place.
 *
 * A memo of 0 documents keeps nothing: `get` builds every time, and leaves the value unfrozen, as
 * it is the caller's alone (caches.ts turns memos off where they cannot hit).
 */
import { LRUCache } from 'lru-cache';
import { deepFreeze } from '../lib/freeze.js';

const MAX_KEYS_PER_DOCUMENT = 4;

type Entries<R> = Array<{ key: string; value: R }>;

export class DocumentMemo<D extends object, R> {
  private readonly memo: LRUCache<D, Entries<R>> | null;

  constructor(maxDocuments: number) {
    // lru-cache refuses a bound of 0; that size means no memo at all.
    this.memo = maxDocuments > 0 ? new LRUCache({ max: maxDocuments }) : null;
  }

  /** The value remembered for the document and key, built (and frozen) when missing. */
  get(doc: D, key: string, build: () => R): R {
    if (this.memo === null) return build();
    // A hit makes the document the most recently used one.
    const entries = this.memo.get(doc);
    const found = entries?.find((entry) => entry.key === key);
    if (found !== undefined) return found.value;
    const value = deepFreeze(build());
    if (entries === undefined) {
      this.memo.set(doc, [{ key, value }]);
    } else {
      if (entries.length >= MAX_KEYS_PER_DOCUMENT) entries.shift();
      entries.push({ key, value });
    }
    return value;
  }
}
