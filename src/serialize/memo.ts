/**
 * Serializations remembered per stored document object. Documents read from storage are immutable
 * values (the embedded engine hands out its frozen stored documents; a write stores a new object),
 * so a representation built from a document stays right for as long as that object is the stored
 * version — no invalidation needed: the next version is another object, and the WeakMap lets the
 * old entry go with the old document. On the MongoDB engine every read yields fresh objects and the
 * memo simply never hits.
 *
 * A representation also depends on the serialization context (host, language root, single read),
 * so each document keeps a few contexts; the oldest goes first (a Host header cannot grow it).
 * Results are frozen: they are shared between responses and must never be edited in place.
 */
import { deepFreeze } from '../lib/freeze.js';

const MAX_KEYS_PER_DOCUMENT = 4;

export class DocumentMemo<D extends object, R> {
  private readonly memo = new WeakMap<D, Array<{ key: string; value: R }>>();

  get(doc: D, key: string, build: () => R): R {
    let entries = this.memo.get(doc);
    if (entries === undefined) {
      entries = [];
      this.memo.set(doc, entries);
    }
    for (const entry of entries) if (entry.key === key) return entry.value;
    const value = deepFreeze(build());
    if (entries.length >= MAX_KEYS_PER_DOCUMENT) entries.shift();
    entries.push({ key, value });
    return value;
  }
}
