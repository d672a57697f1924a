/**
 * Serializations remembered per stored document object. Documents read from storage are immutable
 * values (the embedded engine hands out its frozen stored documents; a write stores a new object),
 * so a representation built from a document stays right for as long as that object is the stored
 * version — no invalidation needed: the next version is another object and misses. On the MongoDB
 * engine every read yields fresh objects and the memo simply never hits.
 *
 * Bounded, least recently used first out: the memo holds the representations of the documents
 * being read now, not of the whole calendar (RSS target, issue 5). A representation also depends on
 * the serialization context (host, language root, single read), so each document keeps a few
 * contexts, the oldest going first (a Host header cannot grow it). Results are frozen: they are
 * shared between responses and must never be edited in place.
 */
import { deepFreeze } from '../lib/freeze.js';

const MAX_KEYS_PER_DOCUMENT = 4;

export class DocumentMemo<D extends object, R> {
  private readonly memo = new Map<D, Array<{ key: string; value: R }>>();

  constructor(private readonly maxDocuments: number) {}

  /** The value remembered for the document and key, built (and frozen) when missing. */
  get(doc: D, key: string, build: () => R): R {
    let entries = this.memo.get(doc);
    if (entries === undefined) {
      entries = [];
      if (this.memo.size >= this.maxDocuments) this.memo.delete(this.memo.keys().next().value!);
    } else {
      const found = entries.find((entry) => entry.key === key);
      if (found !== undefined) return this.touch(doc, entries, found.value);
    }
    const value = deepFreeze(build());
    if (entries.length >= MAX_KEYS_PER_DOCUMENT) entries.shift();
    entries.push({ key, value });
    return this.touch(doc, entries, value);
  }

  /** Moves the document to the young end (a Map iterates in insertion order). */
  private touch(doc: D, entries: Array<{ key: string; value: R }>, value: R): R {
    this.memo.delete(doc);
    this.memo.set(doc, entries);
    return value;
  }
}
