/**
 * The documents of one collection, by slot: slots are numbered in insertion order and never
 * reused, so slot order is natural order, and a slot's document is only ever replaced by a newer
 * version of the same document (same `_id`) or removed. Also the frozen copies writes store, and
 * the refusals of values a stored document cannot hold.
 */
import { Bitset } from './bitset.js';
import { frozenCopy, isPlainObject, UndefinedInValue } from './bson.js';
import { refuse } from './filter.js';
import { type MatchSet, sortedUnique } from './match-set.js';
import { type StoredDoc } from './predicate.js';

export class DocumentTable {
  /** Documents by slot (undefined once deleted). */
  readonly docs: Array<StoredDoc | undefined> = [];
  /** The `_id` of each slot's document (an id never changes; slots are never reused): read without touching the document. */
  readonly slotIds: number[] = [];
  /** The slots holding a document. */
  readonly live = new Bitset();
  private readonly slots = new Map<number, number>();
  private next = 0;

  /** How many documents are stored. */
  get size(): number {
    return this.slots.size;
  }

  /** The slot the next stored document gets: every slot ever used is below it. */
  get nextSlot(): number {
    return this.next;
  }

  slotOf(id: number): number | undefined {
    return this.slots.get(id);
  }

  has(id: number): boolean {
    return this.slots.has(id);
  }

  /** The stored document with this id, if any. */
  byId(id: number): StoredDoc | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.docs[slot]!;
  }

  /** Every stored document with its slot. */
  *stored(): Generator<{ slot: number; doc: StoredDoc }> {
    for (const slot of this.slots.values()) yield { slot, doc: this.docs[slot]! };
  }

  /** Stores a new document (its id not stored yet) in the next slot, and returns that slot. */
  add(doc: StoredDoc): number {
    const slot = this.next++;
    this.docs[slot] = doc;
    this.slotIds[slot] = doc._id;
    this.slots.set(doc._id, slot);
    this.live.add(slot);
    return slot;
  }

  /** Replaces the document in a slot with a newer version of it (same `_id`). */
  replace(slot: number, doc: StoredDoc): void {
    this.docs[slot] = doc;
  }

  /** Frees the slot of the document with this id. */
  delete(id: number, slot: number): void {
    this.docs[slot] = undefined;
    this.slots.delete(id);
    this.live.delete(slot);
  }

  /** The stored documents with these ids, in natural (slot) order like any unsorted find. */
  byIds(ids: readonly number[]): StoredDoc[] {
    const slots: number[] = [];
    for (const id of ids) {
      const slot = this.slots.get(id);
      if (slot !== undefined) slots.push(slot);
    }
    return sortedUnique(slots).map((slot) => this.docs[slot]!);
  }

  /** The matching documents, in natural order. */
  matched(matches: MatchSet): StoredDoc[] {
    const docs: StoredDoc[] = [];
    matches.forEach((slot) => void docs.push(this.docs[slot]!));
    return docs;
  }
}

/** The frozen copy a write stores, or a refusal naming what MongoDB would not store either. */
export function insertable(doc: unknown, operation: string): StoredDoc {
  if (!isPlainObject(doc)) refuse(`${operation} needs a plain document.`);
  const id = (doc as { _id: unknown })._id;
  if (typeof id !== 'number' || !Number.isFinite(id)) refuse(`${operation} needs a document with a numeric _id.`);
  try {
    return frozenCopy(doc) as unknown as StoredDoc;
  } catch (error) {
    // The path is spelled out only for the refusal: building it for every field of every write costs.
    if (error instanceof UndefinedInValue) refuseUndefined(doc, 'document');
    throw error;
  }
}

/** The driver would turn undefined into null or drop it depending on its options; refuse rather than guess. */
export function assertNoUndefined(value: unknown, path: string): void {
  // The path is spelled out only for the refusal: building it for every field of every write costs.
  if (holdsUndefined(value)) refuseUndefined(value, path);
}

function holdsUndefined(value: unknown): boolean {
  if (value === undefined) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (holdsUndefined(value[i])) return true;
  } else if (isPlainObject(value)) {
    for (const key in value) if (Object.hasOwn(value, key) && holdsUndefined(value[key])) return true;
  }
  return false;
}

function refuseUndefined(value: unknown, path: string): void {
  if (value === undefined) refuse(`${path} is undefined; store null or leave the field out.`);
  if (Array.isArray(value)) value.forEach((element, i) => refuseUndefined(element, `${path}.${i}`));
  else if (isPlainObject(value)) for (const [key, child] of Object.entries(value)) refuseUndefined(child, `${path}.${key}`);
}
