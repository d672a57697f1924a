/**
 * Writes to one collection: inserts, updates and deletes with MongoDB's semantics and refusals.
 * Every document a write stores is checked against the indexes before any is stored (see
 * IndexSet.prepareEntries), so a refused write changes nothing; then the document table, the
 * indexes, the derived structures and the listed-count memo are brought up to date, in that order.
 */
import { DuplicateKeyError } from '../../errors.js';
import { type Filter, type InsertManyFailure, type ManyUpdate, type Update } from '../port.js';
import { deepFreeze } from '../../lib/freeze.js';
import { cloneValue, isPlainObject, valuesEqual } from './bson.js';
import { type ListedCountMemo } from './count-memo.js';
import { type DerivedStructures } from './derived.js';
import { assertNoUndefined, type DocumentTable, insertable } from './document-table.js';
import { checkFieldPath, isScalar, refuse } from './filter.js';
import { type IndexEntries, type IndexSet } from './index-set.js';
import { type StoredDoc } from './predicate.js';
import { type QueryExecution } from './query.js';

export class Writes {
  constructor(
    private readonly table: DocumentTable,
    private readonly indexes: IndexSet,
    private readonly derived: DerivedStructures,
    private readonly memo: ListedCountMemo,
    private readonly queries: QueryExecution,
  ) {}

  insertOne(doc: unknown): void {
    const stored = insertable(doc, 'insertOne');
    if (this.table.has(stored._id)) throw new DuplicateKeyError('_id_');
    this.store(stored, this.indexes.prepareEntries(stored));
  }

  insertMany(docs: readonly unknown[]): InsertManyFailure[] {
    // Every document is checked against the stored ones and the earlier ones of the list before
    // any is stored: only duplicate keys fail a document alone; anything else refuses them all.
    const stored = docs.map((doc) => insertable(doc, 'insertMany'));
    const failures: InsertManyFailure[] = [];
    const pending = this.indexes.pendingKeys();
    const ids = new Set<number>();
    const accepted: Array<{ doc: StoredDoc; entries: IndexEntries }> = [];
    stored.forEach((doc, index) => {
      try {
        if (this.table.has(doc._id) || ids.has(doc._id)) throw new DuplicateKeyError('_id_');
        const entries = this.indexes.prepareEntries(doc, pending);
        this.indexes.claim(pending, entries, doc._id);
        ids.add(doc._id);
        accepted.push({ doc, entries });
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
        failures.push({ index, error });
      }
    });
    for (const { doc, entries } of accepted) this.store(doc, entries);
    return failures;
  }

  /** The document as stored afterwards, or null when no document has this id. */
  updateById<T>(id: number, update: Update<T>): StoredDoc | null {
    const { set, unset } = checkUpdate(update);
    const slot = this.table.slotOf(id);
    if (slot === undefined) return null;
    const current = this.table.docs[slot]!;
    // Untouched fields are shared with the previous version: both are frozen.
    const next: StoredDoc = { ...current };
    for (const [field, value] of set) next[field] = cloneValue(value);
    for (const field of unset) delete next[field];
    checkIdKept(next, id);
    if (valuesEqual(next, current)) return current;
    deepFreeze(next);
    const entries = this.indexes.prepareEntries(next);
    // Indexes first, then the derived structures, whose cached clauses may consult them.
    this.indexes.removeEntries(slot, current);
    this.table.replace(slot, next);
    this.indexes.addEntries(slot, next, entries);
    this.refresh(slot, next, current);
    return next;
  }

  updateMany(filter: Filter, update: ManyUpdate): number {
    const { set, pull } = checkManyUpdate(update);
    const changed: Array<{ slot: number; current: StoredDoc; next: StoredDoc }> = [];
    for (const doc of this.queries.select(filter)) {
      const next: StoredDoc = { ...doc };
      for (const [field, value] of set) next[field] = cloneValue(value);
      checkIdKept(next, doc._id);
      for (const [field, value] of pull) {
        const current = next[field];
        if (current === undefined) continue;
        // MongoDB: "Cannot apply $pull to a non-array value".
        if (!Array.isArray(current)) refuse(`Cannot apply $pull to the non-array field ${field} of document ${doc._id}.`);
        next[field] = current.filter((element) => !valuesEqual(element, value));
      }
      if (!valuesEqual(next, doc)) changed.push({ slot: this.table.slotOf(doc._id)!, current: doc, next: deepFreeze(next) });
    }
    // MongoDB applies updateMany document by document; checking every document before writing any
    // keeps a refused batch from leaving part of it applied.
    const pending = this.indexes.pendingKeys();
    const prepared = changed.map((change) => {
      const entries = this.indexes.prepareEntries(change.next, pending);
      this.indexes.claim(pending, entries, change.next._id);
      // Not `{ ...change, entries }`: a spread plus a new key gives each object a hidden class of its own.
      return { slot: change.slot, current: change.current, next: change.next, entries };
    });
    // Keys released by one document may be claimed by another in the same batch.
    for (const { slot, current } of prepared) this.indexes.removeEntries(slot, current);
    for (const { slot, next, entries } of prepared) {
      this.table.replace(slot, next);
      this.indexes.addEntries(slot, next, entries);
    }
    for (const { slot, next, current } of prepared) this.refresh(slot, next, current);
    return prepared.length;
  }

  deleteById(id: number): boolean {
    const slot = this.table.slotOf(id);
    if (slot === undefined) return false;
    const previous = this.table.docs[slot]!;
    this.indexes.removeEntries(slot, previous);
    this.table.delete(id, slot);
    this.refresh(slot, undefined, previous);
    return true;
  }

  private store(stored: StoredDoc, entries: IndexEntries): void {
    const slot = this.table.add(stored);
    this.indexes.addEntries(slot, stored, entries);
    this.refresh(slot, stored, undefined);
  }

  /** After a write to `slot` (`previous`: the document it held before): derived structures, then the count memo. */
  private refresh(slot: number, doc: StoredDoc | undefined, previous: StoredDoc | undefined): void {
    this.derived.refresh(slot, doc, previous);
    this.memo.clear();
  }
}

function checkTopLevelField(field: string, where: string): void {
  checkFieldPath(field, where);
  // Nested paths would need MongoDB's rules for creating embedded documents and array positions.
  if (field.includes('.')) refuse(`${where}: dotted paths are not supported in updates (${field}).`);
  if (field === '_id' && where !== '$set') refuse(`${where}: _id is immutable.`);
}

/** MongoDB accepts `$set: { _id }` only when it keeps the document's own _id (ImmutableField otherwise). */
function checkIdKept(next: StoredDoc, id: number): void {
  if (!valuesEqual(next._id, id)) refuse(`$set: _id is immutable (document ${id}).`);
}

function checkUpdate(update: unknown): { set: Array<[string, unknown]>; unset: string[] } {
  if (!isPlainObject(update)) refuse('An update must be an object with $set and/or $unset.');
  for (const key of Object.keys(update)) {
    if (key !== '$set' && key !== '$unset') refuse(`Update operator ${key} is not supported by updateById.`);
  }
  const setObject = (update as { $set?: unknown }).$set ?? {};
  if (!isPlainObject(setObject)) refuse('$set must be an object.');
  const unsetList = (update as { $unset?: unknown }).$unset ?? [];
  if (!Array.isArray(unsetList)) refuse('$unset must be an array of field names.');
  const set = Object.entries(setObject).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [field, value] of set) {
    checkTopLevelField(field, '$set');
    assertNoUndefined(value, `$set.${field}`);
  }
  const unset: string[] = [];
  for (const field of unsetList) {
    if (typeof field !== 'string') refuse('$unset must list field names.');
    checkTopLevelField(field, '$unset');
    // MongoDB: "Updating the path 'x' would create a conflict at 'x'".
    if (Object.hasOwn(setObject, field)) refuse(`$set and $unset both target ${field}.`);
    unset.push(field);
  }
  return { set, unset };
}

function checkManyUpdate(update: ManyUpdate): { set: Array<[string, unknown]>; pull: Array<[string, unknown]> } {
  if (!isPlainObject(update)) refuse('An update must be an object with $set and/or $pull.');
  for (const key of Object.keys(update)) {
    if (key !== '$set' && key !== '$pull') refuse(`Update operator ${key} is not supported by updateMany.`);
  }
  const setObject: unknown = update.$set ?? {};
  const pullObject: unknown = update.$pull ?? {};
  if (!isPlainObject(setObject) || !isPlainObject(pullObject)) refuse('$set and $pull must be objects.');
  const set = Object.entries(setObject).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [field, value] of set) {
    checkTopLevelField(field, '$set');
    const ok = isScalar(value) || (Array.isArray(value) && value.every(isScalar));
    if (!ok) refuse(`$set.${field}: only scalars and arrays of scalars are supported.`);
  }
  const pull = Object.entries(pullObject);
  for (const [field, value] of pull) {
    checkTopLevelField(field, '$pull');
    if (!isScalar(value)) refuse(`$pull.${field}: only a scalar value can be pulled.`);
    if (Object.hasOwn(setObject, field)) refuse(`$set and $pull both target ${field}.`);
  }
  return { set, pull };
}
