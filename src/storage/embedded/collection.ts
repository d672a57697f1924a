/**
 * One collection of the embedded engine: documents keyed by numeric `_id` in insertion (natural)
 * order, the indexes of its `IndexDefinition`s, and MongoDB's read and write semantics.
 */
import { Query } from 'mingo';
import { DuplicateKeyError, UnsupportedQueryError } from '../../errors.js';
import {
  type Collection,
  type CompiledQuery,
  type Filter,
  type IndexDefinition,
  type ManyUpdate,
  type NearHit,
  type NearQuery,
  type Page,
  type Scalar,
  type Sort,
  type Update,
} from '../port.js';
import { compareValues, EMPTY_ARRAY_KEY, encodeKey, isPlainObject, keyValuesAt, valuesEqual } from './bson.js';
import { checkCount, checkFieldPath, checkSort, isScalar, planFilter, type GeoCondition } from './filter.js';
import { centralAngle, GeoIndex, pointsForMatching, withinCap, type LngLat } from './geo-index.js';
import { TextIndex } from './text-index.js';

type StoredDoc = Record<string, unknown> & { _id: number };

interface Entry {
  doc: StoredDoc;
  /** Insertion sequence: the natural order MongoDB returns documents in without a sort. */
  seq: number;
}

interface UniqueIndex {
  name: string;
  fields: string[];
  owners: Map<string, number>;
}

/** Everything a document contributes to the indexes, computed before any write. */
interface IndexEntries {
  uniqueKeys: string[][];
  points: Map<GeoIndex, LngLat[]>;
}

export interface EmbeddedCollectionOptions {
  name: string;
  definitions: readonly IndexDefinition[];
  /** Throws StorageUnavailableError once the storage is closed. */
  assertOpen: () => void;
}

function refuse(message: string): never {
  throw new UnsupportedQueryError(message);
}

/** The driver would turn undefined into null or drop it depending on its options; refuse rather than guess. */
function assertNoUndefined(value: unknown, path: string): void {
  if (value === undefined) refuse(`${path} is undefined; store null or leave the field out.`);
  if (Array.isArray(value)) value.forEach((element, i) => assertNoUndefined(element, `${path}.${i}`));
  else if (isPlainObject(value)) for (const [key, child] of Object.entries(value)) assertNoUndefined(child, `${path}.${key}`);
}

/** Reads a dotted path through embedded documents only (enough for geometry fields). */
function valueAt(doc: unknown, path: string): unknown {
  let value = doc;
  for (const segment of path.split('.')) {
    if (!isPlainObject(value)) return undefined;
    value = value[segment];
  }
  return value;
}

/**
 * A field path's value as an aggregation expression (`'$a.b'`) evaluates it, unlike query and
 * index paths (`keyValuesAt`): embedded documents are descended into; an array along the path
 * maps to the remaining path's values in its embedded-document elements (other elements and
 * missing results are skipped, nothing is flattened, numeric segments are field names); undefined
 * when missing.
 */
function expressionValueAt(value: unknown, segments: readonly string[], index: number): unknown {
  if (!isPlainObject(value)) return undefined;
  const segment = segments[index]!;
  const child = Object.hasOwn(value, segment) ? value[segment] : undefined;
  if (index === segments.length - 1) return child;
  if (isPlainObject(child)) return expressionValueAt(child, segments, index + 1);
  if (!Array.isArray(child)) return undefined;
  const out: unknown[] = [];
  for (const element of child) {
    const nested = expressionValueAt(element, segments, index + 1);
    if (nested !== undefined) out.push(nested);
  }
  return out;
}

function intersect(a: Set<number>, b: Set<number>): Set<number> {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  const result = new Set<number>();
  for (const id of small) if (large.has(id)) result.add(id);
  return result;
}

export class EmbeddedCollection<T extends { _id: number }> implements Collection<T> {
  private readonly name: string;
  private readonly definitions: readonly IndexDefinition[];
  private readonly assertOpen: () => void;
  private readonly entries = new Map<number, Entry>();
  private nextSeq = 0;
  private readonly built = new Set<string>();
  private readonly uniqueIndexes: UniqueIndex[] = [];
  private readonly geoIndexes: GeoIndex[] = [];
  /** Compound non-text indexes: MongoDB refuses documents with arrays in two of their fields. */
  private readonly compoundKeys: Array<{ name: string; fields: string[] }> = [];
  private textIndex: TextIndex | null = null;

  constructor(options: EmbeddedCollectionOptions) {
    this.name = options.name;
    this.definitions = options.definitions;
    this.assertOpen = options.assertOpen;
  }

  // -------------------------------------------------------------------------
  // Indexes
  // -------------------------------------------------------------------------

  /** Builds the indexes not built yet (idempotent), refusing like MongoDB when existing data violates one. */
  ensureIndexes(): void {
    const textDefinitions = this.definitions.filter((d) => Object.values(d.key).includes('text'));
    if (textDefinitions.length > 1) {
      refuse(`Collection ${this.name} declares ${textDefinitions.length} text indexes; MongoDB allows one.`);
    }
    for (const definition of this.definitions) {
      if (this.built.has(definition.name)) continue;
      this.buildIndex(definition);
      this.built.add(definition.name);
    }
  }

  private buildIndex(definition: IndexDefinition): void {
    const keys = Object.entries(definition.key);
    const types = new Set(keys.map(([, type]) => type));
    if (types.has('text')) {
      const index = new TextIndex(definition);
      for (const { doc } of this.entries.values()) index.add(doc._id, doc);
      this.textIndex = index;
      return;
    }
    const geoFields = keys.filter(([, type]) => type === '2dsphere').map(([field]) => field);
    if (geoFields.length > 0) {
      if (definition.unique === true) refuse(`Index ${definition.name}: a unique 2dsphere index is not supported.`);
      const indexes = geoFields.map((field) => new GeoIndex(definition.name, field));
      const points = new Map<GeoIndex, Map<number, LngLat[]>>(indexes.map((index) => [index, new Map()]));
      // Extract every point first, so a document MongoDB would refuse leaves no half-built index.
      for (const { doc } of this.entries.values()) {
        for (const index of indexes) points.get(index)!.set(doc._id, index.pointsOf(doc._id, valueAt(doc, index.field)));
      }
      for (const index of indexes) {
        for (const [id, found] of points.get(index)!) index.set(id, found);
        this.geoIndexes.push(index);
      }
      return;
    }
    const fields = keys.map(([field]) => field);
    if (fields.length > 1) {
      for (const { doc } of this.entries.values()) this.checkParallelArrays(doc, [{ name: definition.name, fields }]);
      this.compoundKeys.push({ name: definition.name, fields });
    }
    if (definition.unique === true) {
      const index: UniqueIndex = { name: definition.name, fields, owners: new Map() };
      for (const { doc } of this.entries.values()) {
        for (const key of this.uniqueKeysOf(doc, fields)) {
          const owner = index.owners.get(key);
          if (owner !== undefined && owner !== doc._id) throw new DuplicateKeyError(definition.name);
          index.owners.set(key, doc._id);
        }
      }
      this.uniqueIndexes.push(index);
    }
  }

  /** A document's keys in a (possibly compound, possibly multikey) index, encoded; missing fields count as null. */
  private uniqueKeysOf(doc: StoredDoc, fields: readonly string[]): string[] {
    let keys: string[][] = [[]];
    for (const field of fields) {
      const values = [...new Set(keyValuesAt(doc, field).map(encodeKey))];
      keys = keys.flatMap((prefix) => values.map((value) => [...prefix, value]));
    }
    return [...new Set(keys.map((parts) => parts.join('\u0000')))];
  }

  private checkParallelArrays(doc: StoredDoc, indexes: ReadonlyArray<{ name: string; fields: string[] }>): void {
    for (const { name, fields } of indexes) {
      const arrays = fields.filter((field) => Array.isArray(valueAt(doc, field)));
      if (arrays.length > 1) {
        refuse(`Cannot index parallel arrays [${arrays.join('] [')}] in index ${name} (document ${doc._id}).`);
      }
    }
  }

  /**
   * Computes a document's index entries and checks them against every other document, so a write
   * either passes all checks or changes nothing. `pending` holds keys claimed earlier in the same
   * batch (updateMany).
   */
  private prepareEntries(doc: StoredDoc, pending?: Array<Map<string, number>>): IndexEntries {
    this.checkParallelArrays(doc, this.compoundKeys);
    const uniqueKeys = this.uniqueIndexes.map((index, i) => {
      const keys = this.uniqueKeysOf(doc, index.fields);
      for (const key of keys) {
        for (const owner of [index.owners.get(key), pending?.[i]?.get(key)]) {
          if (owner !== undefined && owner !== doc._id) throw new DuplicateKeyError(index.name);
        }
      }
      return keys;
    });
    const points = new Map<GeoIndex, LngLat[]>();
    for (const index of this.geoIndexes) points.set(index, index.pointsOf(doc._id, valueAt(doc, index.field)));
    return { uniqueKeys, points };
  }

  private addEntries(doc: StoredDoc, entries: IndexEntries): void {
    this.uniqueIndexes.forEach((index, i) => {
      for (const key of entries.uniqueKeys[i]!) index.owners.set(key, doc._id);
    });
    for (const [index, points] of entries.points) index.set(doc._id, points);
    this.textIndex?.add(doc._id, doc);
  }

  private removeEntries(doc: StoredDoc): void {
    for (const index of this.uniqueIndexes) {
      for (const key of this.uniqueKeysOf(doc, index.fields)) {
        if (index.owners.get(key) === doc._id) index.owners.delete(key);
      }
    }
    for (const index of this.geoIndexes) index.remove(doc._id);
    this.textIndex?.remove(doc._id);
  }

  // -------------------------------------------------------------------------
  // Reads
  // -------------------------------------------------------------------------

  /** Ids of documents within a spherical cap: from the 2dsphere index, else by scan (MongoDB needs no index for $geoWithin). */
  private geoMatch(condition: GeoCondition): Set<number> {
    const index = this.geoIndexes.find((candidate) => candidate.field === condition.field);
    if (index !== undefined) return index.within(condition.center, condition.radius);
    const result = new Set<number>();
    for (const { doc } of this.entries.values()) {
      if (withinCap(pointsForMatching(valueAt(doc, condition.field)), condition.center, condition.radius)) {
        result.add(doc._id);
      }
    }
    return result;
  }

  /** The stored documents matching a filter, in natural order. */
  private select(filter: Filter): StoredDoc[] {
    const plan = planFilter(filter, (condition) => this.geoMatch(condition));
    let candidates: Set<number> | null = null;
    const narrow = (ids: Set<number>): void => {
      candidates = candidates === null ? ids : intersect(candidates, ids);
    };
    if (plan.textTerms !== null) {
      // MongoDB: "text index required for $text query".
      if (this.textIndex === null) refuse(`$text needs a text index, and collection ${this.name} has none.`);
      // A search of stop words only has no term, and MongoDB then matches nothing.
      narrow(this.textIndex.matchAny(plan.textTerms));
    }
    for (const condition of plan.geo) narrow(this.geoMatch(condition));
    for (const { field, values } of plan.equalities) {
      if (field === '_id') {
        narrow(new Set(values.filter((v): v is number => typeof v === 'number' && this.entries.has(v))));
        continue;
      }
      const index = this.uniqueIndexes.find((u) => u.fields.length === 1 && u.fields[0] === field);
      if (index === undefined || field.includes('.') || values.some((v) => v === null)) continue;
      const ids = new Set<number>();
      for (const value of values) {
        const owner = index.owners.get(encodeKey(value));
        if (owner !== undefined) ids.add(owner);
      }
      narrow(ids);
    }

    let pool: Iterable<Entry>;
    const chosen = candidates as Set<number> | null;
    if (chosen === null) {
      pool = this.entries.values();
    } else {
      const picked: Entry[] = [];
      for (const id of chosen) {
        const entry = this.entries.get(id);
        if (entry !== undefined) picked.push(entry);
      }
      pool = picked.sort((a, b) => a.seq - b.seq);
    }
    const query = Object.keys(plan.residual).length > 0 ? new Query(plan.residual, { scriptEnabled: false }) : null;
    const matches: StoredDoc[] = [];
    for (const { doc } of pool) if (query === null || query.test(doc)) matches.push(doc);
    return matches;
  }

  private sortAndSlice(matches: StoredDoc[], query: CompiledQuery): StoredDoc[] {
    const sort = checkSort(query.sort);
    const skip = checkCount(query.skip, 'skip');
    const limit = checkCount(query.limit, 'limit');
    const sorted = sort.length === 0 ? matches : sortDocuments(matches, sort);
    const end = limit === 0 ? undefined : skip + limit;
    return sorted.slice(skip, end);
  }

  async insertOne(doc: T): Promise<void> {
    this.assertOpen();
    if (!isPlainObject(doc)) refuse('insertOne needs a plain document.');
    const id = (doc as { _id: unknown })._id;
    if (typeof id !== 'number' || !Number.isFinite(id)) refuse('insertOne needs a document with a numeric _id.');
    assertNoUndefined(doc, 'document');
    const stored = structuredClone(doc) as unknown as StoredDoc;
    if (this.entries.has(id)) throw new DuplicateKeyError('_id_');
    const entries = this.prepareEntries(stored);
    this.entries.set(id, { doc: stored, seq: this.nextSeq++ });
    this.addEntries(stored, entries);
  }

  async findById(id: number): Promise<T | null> {
    this.assertOpen();
    const entry = this.entries.get(id);
    return entry === undefined ? null : (structuredClone(entry.doc) as unknown as T);
  }

  async findOne(filter: Filter): Promise<T | null> {
    this.assertOpen();
    const [first] = this.select(filter);
    return first === undefined ? null : (structuredClone(first) as unknown as T);
  }

  async find(query: CompiledQuery): Promise<T[]> {
    this.assertOpen();
    const page = this.sortAndSlice(this.select(query.filter), query);
    return page.map((doc) => structuredClone(doc) as unknown as T);
  }

  async findPage(query: CompiledQuery): Promise<Page<T>> {
    this.assertOpen();
    const matches = this.select(query.filter);
    const page = this.sortAndSlice(matches, query);
    return { items: page.map((doc) => structuredClone(doc) as unknown as T), total: matches.length };
  }

  /** MongoDB's $geoNear: exact great-circle distances from the 2dsphere index, nearest first, ties by _id. */
  async near(field: string, query: NearQuery): Promise<NearHit[]> {
    this.assertOpen();
    const index = this.geoIndexes.find((candidate) => candidate.field === field);
    // MongoDB: "$geoNear requires a 2d or 2dsphere index".
    if (index === undefined) refuse(`$geoNear needs a 2dsphere index on ${field}, and collection ${this.name} has none.`);
    // MongoDB refuses $text inside $geoNear's query.
    if (JSON.stringify(query.filter).includes('"$text"')) refuse('$geoNear cannot be combined with $text.');
    const center: LngLat = query.point;
    const inCap = [...index.within(center, query.maxDistance)];
    if (inCap.length === 0) return [];
    const hits = this.select({ $and: [query.filter, { _id: { $in: inCap } }] }).map((doc) => ({
      _id: doc._id,
      distance: Math.min(...pointsForMatching(valueAt(doc, field)).map((p) => centralAngle(center, p))),
    }));
    return hits.sort((a, b) => a.distance - b.distance || a._id - b._id);
  }

  async count(filter: Filter): Promise<number> {
    this.assertOpen();
    return this.select(filter).length;
  }

  /**
   * MongoDB's distinct over `select` (same planning and refusals as `find`): the field's values
   * are read like sort keys (arrays along the path traversed, a trailing array contributes its
   * elements, one level), null, missing and empty arrays contribute nothing, and equal values
   * (BSON comparison: Dates by time) are kept once. Ascending BSON order, for determinism only.
   */
  async distinct(field: string, filter: Filter): Promise<Scalar[]> {
    this.assertOpen();
    if (typeof field !== 'string') refuse('distinct needs a field path string.');
    checkFieldPath(field, 'distinct');
    const values: unknown[] = [];
    for (const doc of this.select(filter)) {
      for (const value of keyValuesAt(doc, field)) {
        if (value !== null && value !== undefined && value !== EMPTY_ARRAY_KEY) values.push(value);
      }
    }
    values.sort(compareValues);
    const unique: unknown[] = [];
    for (const value of values) {
      if (unique.length === 0 || compareValues(unique[unique.length - 1], value) !== 0) unique.push(value);
    }
    return structuredClone(unique) as Scalar[];
  }

  /**
   * The mongodb engine's `$match` → per-document `$setUnion` → `$unwind` → `$group` over `select`
   * (same planning and refusals as `find`). The field is read the way an aggregation field path
   * (`'$a.b'`) reads it (see `expressionValueAt`); an array contributes its distinct elements, any
   * other value itself; null, missing and empty arrays contribute nothing. Values are grouped by
   * BSON equality (numbers by value, Dates by time). Ascending BSON order, for determinism only.
   */
  async countValues(field: string, filter: Filter): Promise<Array<{ value: Scalar; count: number }>> {
    this.assertOpen();
    if (typeof field !== 'string') refuse('countValues needs a field path string.');
    checkFieldPath(field, 'countValues');
    const segments = field.split('.');
    const groups = new Map<string, { value: unknown; count: number }>();
    for (const doc of this.select(filter)) {
      const value = expressionValueAt(doc, segments, 0);
      const seen = new Set<string>();
      for (const element of Array.isArray(value) ? value : [value]) {
        if (element === null || element === undefined) continue;
        const key = encodeKey(element);
        if (seen.has(key)) continue;
        seen.add(key);
        const group = groups.get(key);
        if (group === undefined) groups.set(key, { value: element, count: 1 });
        else group.count += 1;
      }
    }
    const counts = [...groups.values()].sort((a, b) => compareValues(a.value, b.value));
    return structuredClone(counts) as Array<{ value: Scalar; count: number }>;
  }

  // -------------------------------------------------------------------------
  // Writes
  // -------------------------------------------------------------------------

  async updateById(id: number, update: Update<T>): Promise<T | null> {
    this.assertOpen();
    const { set, unset } = checkUpdate(update);
    const entry = this.entries.get(id);
    if (entry === undefined) return null;
    const next = structuredClone(entry.doc);
    for (const [field, value] of set) next[field] = structuredClone(value);
    for (const field of unset) delete next[field];
    checkIdKept(next, id);
    if (valuesEqual(next, entry.doc)) return structuredClone(entry.doc) as unknown as T;
    const entries = this.prepareEntries(next);
    this.removeEntries(entry.doc);
    entry.doc = next;
    this.addEntries(next, entries);
    return structuredClone(next) as unknown as T;
  }

  async updateMany(filter: Filter, update: ManyUpdate): Promise<number> {
    this.assertOpen();
    const { set, pull } = checkManyUpdate(update);
    const changed: Array<{ entry: Entry; next: StoredDoc }> = [];
    for (const doc of this.select(filter)) {
      const next = structuredClone(doc);
      for (const [field, value] of set) next[field] = structuredClone(value);
      checkIdKept(next, doc._id);
      for (const [field, value] of pull) {
        const current = next[field];
        if (current === undefined) continue;
        // MongoDB: "Cannot apply $pull to a non-array value".
        if (!Array.isArray(current)) refuse(`Cannot apply $pull to the non-array field ${field} of document ${doc._id}.`);
        next[field] = current.filter((element) => !valuesEqual(element, value));
      }
      if (!valuesEqual(next, doc)) changed.push({ entry: this.entries.get(doc._id)!, next });
    }
    // MongoDB applies updateMany document by document; checking every document before writing any
    // keeps a refused batch from leaving part of it applied.
    const pending = this.uniqueIndexes.map(() => new Map<string, number>());
    const prepared = changed.map(({ entry, next }) => {
      const entries = this.prepareEntries(next, pending);
      entries.uniqueKeys.forEach((keys, i) => {
        for (const key of keys) pending[i]!.set(key, next._id);
      });
      return { entry, next, entries };
    });
    // Keys released by one document may be claimed by another in the same batch.
    for (const { entry } of prepared) this.removeEntries(entry.doc);
    for (const { entry, next, entries } of prepared) {
      entry.doc = next;
      this.addEntries(next, entries);
    }
    return prepared.length;
  }

  async deleteById(id: number): Promise<boolean> {
    this.assertOpen();
    const entry = this.entries.get(id);
    if (entry === undefined) return false;
    this.removeEntries(entry.doc);
    this.entries.delete(id);
    return true;
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

function checkUpdate<T>(update: Update<T>): { set: Array<[string, unknown]>; unset: string[] } {
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

/**
 * MongoDB's sort: per key, an array contributes its smallest element ascending and its largest
 * descending; values compare in BSON type order; ties keep natural order.
 */
function sortDocuments(docs: StoredDoc[], sort: Sort): StoredDoc[] {
  const keyed = docs.map((doc, position) => ({
    doc,
    position,
    keys: sort.map(([field, direction]) => {
      const values = keyValuesAt(doc, field);
      let chosen = values[0];
      for (const value of values.slice(1)) {
        const c = compareValues(value, chosen);
        if (direction === 1 ? c < 0 : c > 0) chosen = value;
      }
      return chosen;
    }),
  }));
  keyed.sort((a, b) => {
    for (let i = 0; i < sort.length; i++) {
      const c = compareValues(a.keys[i], b.keys[i]);
      if (c !== 0) return c * sort[i]![1];
    }
    return a.position - b.position;
  });
  return keyed.map(({ doc }) => doc);
}
