/**
 * One collection of the embedded engine: documents in slots numbered in insertion (natural)
 * order, the indexes of its `IndexDefinition`s (sorted B-tree-like indexes for every plain index,
 * unique-key maps, the text and 2dsphere indexes), structures derived on demand from the queries
 * it answers (cached clause bitsets, Date columns, value postings of unindexed fields), and
 * MongoDB's read and write semantics. Reads are planned by planner.ts and paged by ordering.ts.
 */
import { DuplicateKeyError, UnsupportedQueryError } from '../../errors.js';
import {
  type Collection,
  type CompiledQuery,
  type Filter,
  type IndexDefinition,
  type InsertManyFailure,
  type ManyUpdate,
  type NearHit,
  type NearQuery,
  type Page,
  type QueryPlan,
  type Scalar,
  type Update,
} from '../port.js';
import { Bitset } from './bitset.js';
import { deepFreeze } from '../../lib/freeze.js';
import { cloneValue, compareValues, distinctValues, EMPTY_ARRAY_KEY, encodeKey, frozenCopy, isPlainKey, isPlainObject, keyValuesAt, ownerKey, UndefinedInValue, valuesEqual } from './bson.js';
import { ClauseCache } from './clause-cache.js';
import { DateColumn } from './date-column.js';
import { checkCount, checkFieldPath, checkSort, exprKey, isScalar, parseFilter, type Expr } from './filter.js';
import { GeoIndex, type LngLat } from './geo-index.js';
import { orderPlan, pageSlots } from './ordering.js';
import { type MatchSet, Planner, type PlannerHost, sortedUnique } from './planner.js';
import { type StoredDoc, valueAt } from './predicate.js';
import { SortedIndex } from './sorted-index.js';
import { TextIndex } from './text-index.js';
import { ValuePostings } from './value-postings.js';

/** Filters whose per-value counts are remembered at once (see listedCounts). */
const MAX_LISTED_COUNTS = 16;
/**
 * Filter shapes, and members per shape, kept for carrying counts over (see listedFamilies): a
 * complete member holds a count per venue (20,000 at a million events), so at most 32 are kept.
 */
const MAX_LISTED_FAMILIES = 8;
const MAX_FAMILY_MEMBERS = 4;
/** Values to count past which one pass over the index (of this many entries per value) beats two seeks each. */
const FULL_PASS_VALUES = 1_000;

interface UniqueIndex {
  name: string;
  fields: string[];
  owners: Map<string, number>;
}

/** Everything a document contributes to the indexes, computed before any write. */
interface IndexEntries {
  uniqueKeys: string[][];
  /** The points for each of `geoIndexes`, in its order (none without geo indexes: no per-write Map). */
  points: ReadonlyArray<LngLat[]>;
}

const NO_POINTS: ReadonlyArray<LngLat[]> = Object.freeze([]);

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

export class EmbeddedCollection<T extends { _id: number }> implements Collection<T> {
  private readonly name: string;
  private readonly definitions: readonly IndexDefinition[];
  private readonly assertOpen: () => void;
  /** Documents by slot; slots follow insertion order and are never reused, so slot order is natural order. */
  private readonly docs: Array<StoredDoc | undefined> = [];
  private readonly slots = new Map<number, number>();
  /** The `_id` of each slot's document (an id never changes; slots are never reused): read without touching the document. */
  private readonly slotIds: number[] = [];
  private readonly live = new Bitset();
  private nextSlot = 0;
  private readonly built = new Set<string>();
  private readonly uniqueIndexes: UniqueIndex[] = [];
  private readonly sortedIndexes: SortedIndex[] = [];
  private readonly geoIndexes: GeoIndex[] = [];
  /** Compound non-text indexes: MongoDB refuses documents with arrays in two of their fields. */
  private readonly compoundKeys: Array<{ name: string; fields: string[] }> = [];
  /** Whether a document breaks that rule for some compound index (compiled when first needed). */
  private parallelArrays: ((doc: StoredDoc) => boolean) | null = null;
  private textIndex: TextIndex | null = null;
  /**
   * Slots written since their entries in the sorted indexes and the text index were last brought
   * up to date (see catchUp). Unique and geo entries are never deferred: they decide whether a
   * write is accepted.
   */
  private readonly unindexed: number[] = [];
  /** Bitsets the cache drops go back to the planner: see Planner.release. */
  private readonly cache = new ClauseCache((bits) => this.planner.release(bits));
  private readonly dateColumns = new Map<string, DateColumn>();
  private readonly valuePostings = new Map<string, ValuePostings>();
  /**
   * Per-value counts of `countValues` calls that list the values (`venueId $in` the venues near a
   * point), by field and the rest of the filter: "events near me" asks about the same city's
   * venues under the same date window again and again. Values are filled as they are asked for;
   * every write clears them all.
   */
  private readonly listedCounts = new Map<string, ListedCounts>();
  /**
   * The last few listed counts per filter shape with its Date bounds left out (see
   * dateBoundFamily), with their bounds: the status filter's `dateUtc <= now` moves every second,
   * while the documents it matches only change when a scheduled post's date passes. Cleared with
   * listedCounts.
   */
  private readonly listedFamilies = new Map<string, Array<{ bounds: Map<string, DateBound>; entry: ListedCounts }>>();
  private readonly planner: Planner;

  constructor(options: EmbeddedCollectionOptions) {
    this.name = options.name;
    this.definitions = options.definitions;
    this.assertOpen = options.assertOpen;
    const collection = this;
    const host: PlannerHost = {
      docs: this.docs,
      live: this.live,
      get liveCount() {
        return collection.slots.size;
      },
      slotOfId: (id) => this.slots.get(id),
      uniqueOwner: (field) => {
        const index = this.uniqueIndexOn(field);
        return index === undefined ? undefined : (value) => index.owners.get(ownerKey(value));
      },
      sortedIndexes: this.sortedIndexes,
      get textIndex() {
        return collection.textIndex;
      },
      geoIndexFor: (field) => this.geoIndexes.find((index) => index.field === field),
      predicateContext: {
        // Also asked while a write refreshes a cached $text clause, outside read().
        hasAnyTerm: (slot, terms) => {
          this.catchUp();
          return this.textIndex?.hasAny(slot, terms) ?? false;
        },
        dateColumn: (field) => this.dateColumn(field),
      },
      postings: (field) => this.valuePostings.get(field),
      buildPostings: (field) => {
        let postings = this.valuePostings.get(field);
        if (postings === undefined) {
          postings = new ValuePostings(field);
          for (const { slot, doc } of this.stored()) postings.add(slot, doc, this.nextSlot);
          this.valuePostings.set(field, postings);
        }
        return postings;
      },
      cache: this.cache,
    };
    this.planner = new Planner(host);
  }

  private dateColumn(field: string): DateColumn {
    let column = this.dateColumns.get(field);
    if (column === undefined) {
      column = new DateColumn(field);
      for (const { slot, doc } of this.stored()) column.set(slot, doc);
      this.dateColumns.set(field, column);
    }
    return column;
  }

  /**
   * Keeps the derived structures current after a write: postings and Date columns, then cached
   * clauses (which may read them). `previous` is the document the slot held before.
   */
  private refresh(slot: number, doc: StoredDoc | undefined, previous: StoredDoc | undefined): void {
    for (const postings of this.valuePostings.values()) {
      postings.remove(slot, previous);
      postings.add(slot, doc, this.nextSlot);
    }
    for (const column of this.dateColumns.values()) column.set(slot, doc);
    this.cache.refresh(slot, doc);
    // Only when they hold something: V8's Map#clear allocates a fresh table even for an empty map,
    // two per stored document of a bulk load, which never lists counts.
    if (this.listedCounts.size > 0) this.listedCounts.clear();
    if (this.listedFamilies.size > 0) this.listedFamilies.clear();
  }

  // -------------------------------------------------------------------------
  // Indexes
  // -------------------------------------------------------------------------

  /** Builds the indexes not built yet (idempotent), refusing like MongoDB when existing data violates one. */
  ensureIndexes(): void {
    // A new index is built from the stored documents, deferred ones included.
    this.catchUp();
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

  private *stored(): Generator<{ slot: number; doc: StoredDoc }> {
    for (const slot of this.slots.values()) yield { slot, doc: this.docs[slot]! };
  }

  private buildIndex(definition: IndexDefinition): void {
    const keys = Object.entries(definition.key);
    const types = new Set(keys.map(([, type]) => type));
    if (types.has('text')) {
      const index = new TextIndex(definition);
      for (const { slot, doc } of this.stored()) index.add(slot, doc);
      this.textIndex = index;
      return;
    }
    const geoFields = keys.filter(([, type]) => type === '2dsphere').map(([field]) => field);
    if (geoFields.length > 0) {
      if (definition.unique === true) refuse(`Index ${definition.name}: a unique 2dsphere index is not supported.`);
      const indexes = geoFields.map((field) => new GeoIndex(definition.name, field));
      const points = new Map<GeoIndex, Map<number, LngLat[]>>(indexes.map((index) => [index, new Map()]));
      // Extract every point first, so a document MongoDB would refuse leaves no half-built index.
      for (const { slot, doc } of this.stored()) {
        for (const index of indexes) points.get(index)!.set(slot, index.pointsOf(doc._id, valueAt(doc, index.field)));
      }
      for (const index of indexes) {
        for (const [slot, found] of points.get(index)!) index.set(slot, found);
        this.geoIndexes.push(index);
      }
      return;
    }
    const fields = keys.map(([field]) => field);
    if (fields.length > 1) {
      for (const { doc } of this.stored()) this.checkParallelArrays(doc, [{ name: definition.name, fields }]);
    }
    let unique: UniqueIndex | null = null;
    if (definition.unique === true) {
      unique = { name: definition.name, fields, owners: new Map() };
      for (const { doc } of this.stored()) {
        for (const key of this.uniqueKeysOf(doc, fields)) {
          const owner = unique.owners.get(key);
          if (owner !== undefined && owner !== doc._id) throw new DuplicateKeyError(definition.name);
          unique.owners.set(key, doc._id);
        }
      }
    }
    // Register only once the existing data passed every check.
    if (fields.length > 1) {
      this.compoundKeys.push({ name: definition.name, fields });
      this.parallelArrays = null;
    }
    if (unique !== null) this.uniqueIndexes.push(unique);
    const sorted = new SortedIndex(definition.name, fields, { unique: definition.unique === true });
    sorted.build([...this.stored()].map(({ slot, doc }) => ({ slot, id: doc._id, doc })));
    this.sortedIndexes.push(sorted);
  }

  /**
   * A document's keys in a (possibly compound, possibly multikey) unique index: `ownerKey`s for one
   * field, `encodeKey`s joined for several; missing fields count as null.
   */
  private uniqueKeysOf(doc: StoredDoc, fields: readonly string[]): string[] {
    if (fields.length === 1 && !fields[0]!.includes('.')) {
      // One top-level field holding a scalar (a slug): its one key.
      const value = doc[fields[0]!];
      if (value === undefined || value === null || typeof value !== 'object' || value instanceof Date) return [ownerKey(value ?? null)];
    }
    // An array's elements of a one-field index are keyed as its scalars are, so they clash with them.
    const encode = fields.length === 1 ? ownerKey : encodeKey;
    let keys: string[][] = [[]];
    for (const field of fields) {
      const values = [...new Set(keyValuesAt(doc, field).map(encode))];
      keys = keys.flatMap((prefix) => values.map((value) => [...prefix, value]));
    }
    return [...new Set(keys.map((parts) => parts.join('\u0000')))];
  }

  private checkParallelArrays(doc: StoredDoc, indexes: ReadonlyArray<{ name: string; fields: string[] }>): void {
    for (const { name, fields } of indexes) {
      let count = 0;
      for (const field of fields) if (Array.isArray(valueAt(doc, field))) count += 1;
      if (count > 1) {
        const arrays = fields.filter((field) => Array.isArray(valueAt(doc, field)));
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
    // The compiled test first; the general check names the index and fields of a refusal.
    if ((this.parallelArrays ??= compileParallelArrays(this.compoundKeys))(doc)) this.checkParallelArrays(doc, this.compoundKeys);
    const uniqueKeys = this.uniqueIndexes.map((index, i) => {
      const keys = this.uniqueKeysOf(doc, index.fields);
      for (const key of keys) {
        const owner = index.owners.get(key);
        const claimed = pending?.[i]?.get(key);
        if ((owner !== undefined && owner !== doc._id) || (claimed !== undefined && claimed !== doc._id)) throw new DuplicateKeyError(index.name);
      }
      return keys;
    });
    const points = this.geoIndexes.length === 0 ? NO_POINTS : this.geoIndexes.map((index) => index.pointsOf(doc._id, valueAt(doc, index.field)));
    return { uniqueKeys, points };
  }

  private addEntries(slot: number, doc: StoredDoc, entries: IndexEntries): void {
    this.uniqueIndexes.forEach((index, i) => {
      for (const key of entries.uniqueKeys[i]!) index.owners.set(key, doc._id);
    });
    entries.points.forEach((points, i) => this.geoIndexes[i]!.set(slot, points));
    if (this.sortedIndexes.length > 0 || this.textIndex !== null) this.unindexed.push(slot);
  }

  /**
   * Adds the deferred slots' entries to the sorted indexes and the text index. Whatever reads them
   * calls it first: every read goes through read(), removals through removeEntries, and a write
   * refreshing a cached $text clause through hasAnyTerm. A bulk load (the seed CLI storing 100,000
   * events a thousand at a time, looking them up by slug in between, which the unique index
   * answers) never reads them: its process ends without paying for them (12–15% of its time), and a
   * durable store's next process builds them from LMDB at start-up anyway. Adding a document's
   * entries later gives the same indexes (they cannot refuse it), and removals catch up first, so a
   * deferred slot always still holds the document it was deferred with.
   */
  private catchUp(): void {
    const slots = this.unindexed;
    if (slots.length === 0) return;
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      const doc = this.docs[slot]!;
      for (const index of this.sortedIndexes) index.add(slot, doc._id, doc);
      this.textIndex?.add(slot, doc);
    }
    slots.length = 0;
  }

  private removeEntries(slot: number, doc: StoredDoc): void {
    this.catchUp();
    for (const index of this.uniqueIndexes) {
      for (const key of this.uniqueKeysOf(doc, index.fields)) {
        if (index.owners.get(key) === doc._id) index.owners.delete(key);
      }
    }
    for (const index of this.sortedIndexes) index.remove(slot, doc._id, doc);
    for (const index of this.geoIndexes) index.remove(slot);
    this.textIndex?.remove(slot, doc);
  }

  // -------------------------------------------------------------------------
  // Reads
  // -------------------------------------------------------------------------

  private parse(filter: Filter): Expr {
    const expr = parseFilter(filter);
    // MongoDB: "text index required for $text query".
    if (this.textIndex === null && hasText(expr)) refuse(`$text needs a text index, and collection ${this.name} has none.`);
    return expr;
  }

  /** Only inside `read`: a MatchSet may use scratch memory that is reused once `read` returns. */
  private match(expr: Expr): MatchSet {
    return this.planner.evaluate(expr);
  }

  /** Evaluates filters and consumes their MatchSets, then lets the planner reuse its scratch memory. */
  private read<R>(body: () => R): R {
    this.catchUp();
    return this.planner.scoped(body);
  }

  /** The stored documents matching a filter, in natural order. */
  private select(filter: Filter): StoredDoc[] {
    return this.read(() => this.matchedDocs(this.match(this.parse(filter))));
  }

  private page(expr: Expr, matches: MatchSet, query: CompiledQuery): StoredDoc[] {
    const sort = checkSort(query.sort);
    const skip = checkCount(query.skip, 'skip');
    const limit = checkCount(query.limit, 'limit');
    const host = { docs: this.docs, sortedIndexes: this.sortedIndexes };
    return pageSlots(host, matches, { sort, skip, limit }, this.planner.restrictions(expr)).map((slot) => this.docs[slot]!);
  }

  async insertOne(doc: T): Promise<void> {
    this.assertOpen();
    const stored = this.insertable(doc, 'insertOne');
    if (this.slots.has(stored._id)) throw new DuplicateKeyError('_id_');
    this.store(stored, this.prepareEntries(stored));
  }

  async insertMany(docs: readonly T[]): Promise<InsertManyFailure[]> {
    this.assertOpen();
    // Every document is checked against the stored ones and the earlier ones of the list before
    // any is stored: only duplicate keys fail a document alone; anything else refuses them all.
    const stored = docs.map((doc) => this.insertable(doc, 'insertMany'));
    const failures: InsertManyFailure[] = [];
    const pending = this.uniqueIndexes.map(() => new Map<string, number>());
    const ids = new Set<number>();
    const accepted: Array<{ doc: StoredDoc; entries: IndexEntries }> = [];
    stored.forEach((doc, index) => {
      try {
        if (this.slots.has(doc._id) || ids.has(doc._id)) throw new DuplicateKeyError('_id_');
        const entries = this.prepareEntries(doc, pending);
        entries.uniqueKeys.forEach((keys, i) => {
          for (const key of keys) pending[i]!.set(key, doc._id);
        });
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

  /** The frozen copy a write stores, or a refusal naming what MongoDB would not store either. */
  private insertable(doc: T, operation: string): StoredDoc {
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

  private store(stored: StoredDoc, entries: IndexEntries): void {
    const slot = this.nextSlot++;
    this.docs[slot] = stored;
    this.slotIds[slot] = stored._id;
    this.slots.set(stored._id, slot);
    this.live.add(slot);
    this.addEntries(slot, stored, entries);
    this.refresh(slot, stored, undefined);
  }

  async findById(id: number): Promise<T | null> {
    this.assertOpen();
    const slot = this.slots.get(id);
    return slot === undefined ? null : (this.docs[slot]! as unknown as T);
  }

  async findOne(filter: Filter): Promise<T | null> {
    this.assertOpen();
    const first = this.read(() => {
      let found: StoredDoc | undefined;
      this.match(this.parse(filter)).forEach((slot) => {
        found = this.docs[slot];
        return false;
      });
      return found;
    });
    return first === undefined ? null : (first as unknown as T);
  }

  async find(query: CompiledQuery): Promise<T[]> {
    this.assertOpen();
    // The linked records of every listed page (`_id $in` a few ids) are slot look-ups: parsing and
    // planning such a filter cost more than reading the documents.
    const lookup = keyLookup(query);
    if (lookup !== null) {
      const ids = this.idsOf(lookup.field, lookup.values);
      if (ids !== null) return this.byIds(ids) as unknown as T[];
    }
    const expr = this.parse(query.filter);
    return this.read(() => this.page(expr, this.match(expr), query)) as unknown as T[];
  }

  /**
   * The ids of the documents whose `field` equals one of the values, when `_id` or a single-field
   * unique index (a slug) answers it by look-ups; null otherwise. The seed loader asks for hundreds
   * of slugs per batch: planning such a list costs more than looking each one up.
   */
  private idsOf(field: string, values: ReadonlyArray<string | number>): number[] | null {
    if (field === '_id') return values.filter((value): value is number => typeof value === 'number');
    const index = this.uniqueIndexOn(field);
    if (index === undefined) return null;
    const ids: number[] = [];
    for (const value of values) {
      const id = index.owners.get(ownerKey(value));
      if (id !== undefined) ids.push(id);
    }
    return ids;
  }

  /** The single-field unique index on `field` (a slug's), if there is one: its key map names each value's owner. */
  private uniqueIndexOn(field: string): UniqueIndex | undefined {
    return this.uniqueIndexes.find((candidate) => candidate.fields.length === 1 && candidate.fields[0] === field);
  }

  /** The stored documents with these ids, in natural (slot) order like any unsorted find. */
  private byIds(ids: readonly number[]): StoredDoc[] {
    const slots: number[] = [];
    for (const id of ids) {
      const slot = this.slots.get(id);
      if (slot !== undefined) slots.push(slot);
    }
    return sortedUnique(slots).map((slot) => this.docs[slot]!);
  }

  async findPage(query: CompiledQuery): Promise<Page<T>> {
    this.assertOpen();
    const expr = this.parse(query.filter);
    const { docs, total } = this.read(() => {
      const matches = this.match(expr);
      return { docs: this.page(expr, matches, query), total: matches.size };
    });
    return { items: docs as unknown as T[], total };
  }

  async explain(query: CompiledQuery): Promise<QueryPlan> {
    this.assertOpen();
    const expr = this.parse(query.filter);
    return this.read(() => {
      const uses = this.planner.explain(expr);
      const request = { sort: checkSort(query.sort), skip: checkCount(query.skip, 'skip'), limit: checkCount(query.limit, 'limit') };
      const order = orderPlan({ docs: this.docs, sortedIndexes: this.sortedIndexes }, this.match(expr), request, this.planner.restrictions(expr));
      const indexes = [...new Set([...uses.indexes, ...(order.index === undefined ? [] : [order.index])])].sort();
      return { indexes, collectionScan: uses.scan, sort: order.sort };
    });
  }

  async count(filter: Filter): Promise<number> {
    this.assertOpen();
    return this.read(() => this.match(this.parse(filter)).size);
  }

  /** MongoDB's $geoNear: exact great-circle distances from the 2dsphere index, nearest first, ties by _id. */
  async near(field: string, query: NearQuery): Promise<NearHit[]> {
    this.assertOpen();
    const index = this.geoIndexes.find((candidate) => candidate.field === field);
    // MongoDB: "$geoNear requires a 2d or 2dsphere index".
    if (index === undefined) refuse(`$geoNear needs a 2dsphere index on ${field}, and collection ${this.name} has none.`);
    const expr = this.parse(query.filter);
    // MongoDB refuses $text inside $geoNear's query.
    if (hasText(expr)) refuse('$geoNear cannot be combined with $text.');
    const center: LngLat = query.point;
    const inCap = index.nearest(center, query.maxDistance);
    if (inCap.slots.length === 0) return [];
    const hits = this.read(() => {
      const matches = this.match(expr);
      const found: NearHit[] = [];
      for (let i = 0; i < inCap.slots.length; i++) {
        const slot = inCap.slots[i]!;
        if (!matches.has(slot)) continue;
        // The points the index holds for the document are the ones its field yields.
        found.push({ _id: this.slotIds[slot]!, distance: inCap.angles[i]! });
      }
      return found;
    });
    // In order of distance already (the geo index's): the merge sort only orders ties by id.
    return hits.sort((a, b) => a.distance - b.distance || a._id - b._id);
  }

  private matchedDocs(matches: MatchSet): StoredDoc[] {
    const docs: StoredDoc[] = [];
    matches.forEach((slot) => void docs.push(this.docs[slot]!));
    return docs;
  }

  /**
   * A sorted index led by a top-level `field` whose other fields hold no arrays (which would put a
   * document twice under one value): its entries of one leading value are the documents holding it.
   */
  private countingIndex(field: string): SortedIndex | undefined {
    if (field.includes('.')) return undefined;
    return this.sortedIndexes.find((candidate) => candidate.fields[0] === field && candidate.arrayDocs.every((count, i) => i === 0 || count === 0));
  }

  /**
   * Per distinct value of a top-level field, how many matching documents hold it (1 at most with
   * `firstOnly`), read from a sorted index led by that field instead of from every matching
   * document — term counts over all published events. For a top-level field, the index's keys
   * (elements of an array, each once per document) group exactly like the aggregation path and
   * like distinct; null, missing and empty arrays are left out as both do. Null when no such
   * index exists, or when the matches are so few that reading them is cheaper. Ascending BSON order.
   */
  private indexedValueCounts(field: string, matches: MatchSet, firstOnly: boolean, expr: Expr): Array<{ value: unknown; count: number }> | null {
    const index = this.countingIndex(field);
    if (index === undefined) return null;
    // A filter listing the field's values names the only values that can match: just those are
    // looked up. Not for a field holding arrays: a listed element's documents count their other
    // elements too.
    const listedValues =
      index.arrayDocs[0] !== 0
        ? undefined
        : this.planner.restrictions(expr).find((r): r is { field: string; values: Scalar[] } => r.field === field && 'values' in r)?.values;
    const values = listedValues === undefined ? index.leadingValues() : distinctValues(listedValues);
    // The index visits the entries of each value (a bit test each) plus two seeks per value; the
    // documents' path reads each match (a few cache misses).
    const entries = (index.size * values.length) / Math.max(1, index.distinctLeading);
    if (entries * 4 + values.length * 2_000 > matches.size * 150) return null;
    const bits = matches.asBits();
    const counts: Array<{ value: unknown; count: number }> = [];
    for (const value of values) {
      if (value === null || value === EMPTY_ARRAY_KEY) continue;
      const count = index.countMarked(index.seek([value], false), index.seek([value], true), bits, firstOnly);
      if (count > 0) counts.push({ value, count });
    }
    return counts.sort((a, b) => compareValues(a.value, b.value));
  }

  /**
   * Whether two filters of one family (see dateBoundFamily) match the same documents: no stored
   * document holds a Date between any bound's two values (inclusive), and none an array there.
   * One pass over the field's Date column per moved bound.
   */
  private sameDateMatches(before: ReadonlyMap<string, DateBound>, after: ReadonlyMap<string, DateBound>): boolean {
    for (const [name, bound] of after) {
      const previous = before.get(name);
      if (previous === undefined) return false;
      if (previous.time === bound.time) continue;
      const column = this.dateColumn(bound.field);
      if (column.arrays.count() > 0) return false;
      const low = Math.min(previous.time, bound.time);
      const high = Math.max(previous.time, bound.time);
      const times = column.values;
      const end = Math.min(times.length, this.nextSlot);
      // NaN (no Date, or a free slot) compares false.
      for (let slot = 0; slot < end; slot++) {
        const time = times[slot]!;
        if (time >= low && time <= high) return false;
      }
    }
    return true;
  }

  /**
   * countValues for a filter with a `field $in [numbers or strings]` clause (see listedClause):
   * each listed value counted under the rest of the filter, through the value's index entries,
   * and remembered for the next call with the same rest (until a write). Null when the field has
   * no counting index or holds arrays. In the order the values are listed; fresh scalars, nothing
   * to clone.
   */
  private listedValueCounts(field: string, listed: { values: Scalar[]; rest: Expr }): Array<{ value: Scalar; count: number }> | null {
    const index = this.countingIndex(field);
    // A listed element of an array field would count its documents' other elements too.
    if (index === undefined || index.arrayDocs[0] !== 0) return null;
    const key = `${field}\u0000${exprKey(listed.rest)}`;
    let memo = this.listedCounts.get(key);
    if (memo === undefined) {
      const family = dateBoundFamily(listed.rest);
      const familyKey = family === null ? '' : `${field}\u0000${family.key}`;
      const members = family === null ? [] : (this.listedFamilies.get(familyKey) ?? []);
      // The same filter with a moved Date bound matches the same documents when none holds a Date
      // between the old bound and the new one: its counts carry over. Several date windows share
      // a shape (the default one, next week's), so a family keeps a few members, newest last.
      const reused = members.findLast((member) => this.sameDateMatches(member.bounds, family!.bounds));
      memo = reused?.entry ?? { counts: new Map(), complete: false };
      this.listedCounts.set(key, memo);
      // Keys move with the clock (a status bound to the second): the oldest go first.
      if (this.listedCounts.size > MAX_LISTED_COUNTS) this.listedCounts.delete(this.listedCounts.keys().next().value!);
      if (family !== null) {
        const kept = members.filter((member) => member !== reused);
        kept.push({ bounds: family.bounds, entry: memo });
        if (kept.length > MAX_FAMILY_MEMBERS) kept.shift();
        this.listedFamilies.delete(familyKey);
        this.listedFamilies.set(familyKey, kept);
        if (this.listedFamilies.size > MAX_LISTED_FAMILIES) this.listedFamilies.delete(this.listedFamilies.keys().next().value!);
      }
    }
    const counts = memo.counts;
    // Plain strings and numbers (no NaN): a Set and a Map key them by BSON equality.
    const values = [...new Set(listed.values as Array<string | number>)];
    const missing = memo.complete ? [] : values.filter((value) => !counts.has(value));
    if (missing.length > 0) {
      const bits = this.match(listed.rest).asBits();
      // Two seeks per value, or one pass over the whole index that counts every value at once
      // (a city's venues at a million events: thousands of values).
      if (missing.length * FULL_PASS_VALUES > index.size) {
        index.countMarkedRuns(bits, (value, count) => {
          if (typeof value === 'string' || typeof value === 'number') counts.set(value, count);
        });
        memo.complete = true;
      } else {
        for (const value of missing) counts.set(value, index.countMarked(index.seek([value], false), index.seek([value], true), bits, false));
      }
    }
    const found: Array<{ value: Scalar; count: number }> = [];
    for (const value of values) {
      const count = counts.get(value) ?? 0;
      if (count > 0) found.push({ value, count });
    }
    // In the listed order: the port leaves the order open, and a near-me list is thousands long.
    return found;
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
    const expr = this.parse(filter);
    const { indexed, docs } = this.read(() => {
      const matches = this.match(expr);
      const counts = this.indexedValueCounts(field, matches, true, expr);
      return { indexed: counts, docs: counts === null ? this.matchedDocs(matches) : [] };
    });
    if (indexed !== null) return cloneValue(indexed.map((group) => group.value)) as Scalar[];
    const values: unknown[] = [];
    for (const doc of docs) {
      for (const value of keyValuesAt(doc, field)) {
        if (value !== null && value !== undefined && value !== EMPTY_ARRAY_KEY) values.push(value);
      }
    }
    values.sort(compareValues);
    const unique: unknown[] = [];
    for (const value of values) {
      if (unique.length === 0 || compareValues(unique[unique.length - 1], value) !== 0) unique.push(value);
    }
    return cloneValue(unique) as Scalar[];
  }

  /**
   * The mongodb engine's `$match` → per-document `$setUnion` → `$unwind` → `$group` over `select`
   * (same planning and refusals as `find`). The field is read the way an aggregation field path
   * (`'$a.b'`) reads it (see `expressionValueAt`); an array contributes its distinct elements, any
   * other value itself; null, missing and empty arrays contribute nothing. Values are grouped by
   * BSON equality (numbers by value, Dates by time). Ascending BSON order, for determinism only,
   * except for a filter listing the field's values (see listedValueCounts).
   */
  async countValues(field: string, filter: Filter): Promise<Array<{ value: Scalar; count: number }>> {
    this.assertOpen();
    if (typeof field !== 'string') refuse('countValues needs a field path string.');
    checkFieldPath(field, 'countValues');
    const expr = this.parse(filter);
    // Counting value by value applies a `field $in [...]` clause by itself: the rest of the filter
    // is evaluated without it (a list of hundreds of venues otherwise costs its index seeks twice).
    const listed = listedClause(expr, field);
    if (listed !== null) {
      const counts = this.read(() => this.listedValueCounts(field, listed));
      if (counts !== null) return counts;
    }
    const { indexed, docs } = this.read(() => {
      const matches = this.match(expr);
      const counts = this.indexedValueCounts(field, matches, false, expr);
      return { indexed: counts, docs: counts === null ? this.matchedDocs(matches) : [] };
    });
    if (indexed !== null) return cloneValue(indexed) as Array<{ value: Scalar; count: number }>;
    const segments = field.split('.');
    const groups = new Map<string, { value: unknown; count: number }>();
    // Plain numbers (ids: venueId per event) are counted by value, without a key string each.
    const numbers = new Map<number, { value: number; count: number }>();
    for (const doc of docs) {
      const value = expressionValueAt(doc, segments, 0);
      if (typeof value === 'number' && !Number.isNaN(value)) {
        const normal = value === 0 ? 0 : value;
        const group = numbers.get(normal);
        if (group === undefined) numbers.set(normal, { value: normal, count: 1 });
        else group.count += 1;
        continue;
      }
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
    for (const group of numbers.values()) {
      const key = encodeKey(group.value);
      const same = groups.get(key);
      if (same === undefined) groups.set(key, group);
      else same.count += group.count;
    }
    const counts = [...groups.values()].sort((a, b) => compareValues(a.value, b.value));
    return cloneValue(counts) as Array<{ value: Scalar; count: number }>;
  }

  // -------------------------------------------------------------------------
  // Writes
  // -------------------------------------------------------------------------

  /** Replaces a stored document (indexes first, then the clause cache, which may consult them). */
  private replace(slot: number, previous: StoredDoc, next: StoredDoc, entries: IndexEntries): void {
    this.removeEntries(slot, previous);
    this.docs[slot] = next;
    this.addEntries(slot, next, entries);
    this.refresh(slot, next, previous);
  }

  async updateById(id: number, update: Update<T>): Promise<T | null> {
    this.assertOpen();
    const { set, unset } = checkUpdate(update);
    const slot = this.slots.get(id);
    if (slot === undefined) return null;
    const current = this.docs[slot]!;
    // Untouched fields are shared with the previous version: both are frozen.
    const next: StoredDoc = { ...current };
    for (const [field, value] of set) next[field] = cloneValue(value);
    for (const field of unset) delete next[field];
    checkIdKept(next, id);
    if (valuesEqual(next, current)) return current as unknown as T;
    deepFreeze(next);
    const entries = this.prepareEntries(next);
    this.replace(slot, current, next, entries);
    return next as unknown as T;
  }

  async updateMany(filter: Filter, update: ManyUpdate): Promise<number> {
    this.assertOpen();
    const { set, pull } = checkManyUpdate(update);
    const changed: Array<{ slot: number; current: StoredDoc; next: StoredDoc }> = [];
    for (const doc of this.select(filter)) {
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
      if (!valuesEqual(next, doc)) changed.push({ slot: this.slots.get(doc._id)!, current: doc, next: deepFreeze(next) });
    }
    // MongoDB applies updateMany document by document; checking every document before writing any
    // keeps a refused batch from leaving part of it applied.
    const pending = this.uniqueIndexes.map(() => new Map<string, number>());
    const prepared = changed.map((change) => {
      const entries = this.prepareEntries(change.next, pending);
      entries.uniqueKeys.forEach((keys, i) => {
        for (const key of keys) pending[i]!.set(key, change.next._id);
      });
      // Not `{ ...change, entries }`: a spread plus a new key gives each object a hidden class of its own.
      return { slot: change.slot, current: change.current, next: change.next, entries };
    });
    // Keys released by one document may be claimed by another in the same batch.
    for (const { slot, current } of prepared) this.removeEntries(slot, current);
    for (const { slot, next, entries } of prepared) {
      this.docs[slot] = next;
      this.addEntries(slot, next, entries);
    }
    for (const { slot, next, current } of prepared) this.refresh(slot, next, current);
    return prepared.length;
  }

  async deleteById(id: number): Promise<boolean> {
    this.assertOpen();
    const slot = this.slots.get(id);
    if (slot === undefined) return false;
    const previous = this.docs[slot]!;
    this.removeEntries(slot, previous);
    this.docs[slot] = undefined;
    this.slots.delete(id);
    this.live.delete(slot);
    this.refresh(slot, undefined, previous);
    return true;
  }
}

/**
 * The values of a filter that is one equality or `$in` on one top-level field, with plain keys only
 * (strings and numbers other than NaN: their encoded key is what a unique index stores, and their
 * equality is the matcher's), for an unsorted, unpaged find. Null for anything else.
 */
function keyLookup(query: CompiledQuery): { field: string; values: ReadonlyArray<string | number> } | null {
  if ((query.sort !== undefined && query.sort.length > 0) || query.skip || query.limit) return null;
  const filter = query.filter as Record<string, unknown>;
  let only: string | undefined;
  for (const key in filter) {
    if (only !== undefined) return null;
    only = key;
  }
  if (only === undefined || only.startsWith('$') || !Object.hasOwn(filter, only)) return null;
  const value = filter[only];
  if (isPlainKey(value)) return { field: only, values: [value] };
  if (!isPlainObject(value)) return null;
  const list = (value as Record<string, unknown>).$in;
  if (!Array.isArray(list) || Object.keys(value).length !== 1) return null;
  for (const item of list) if (!isPlainKey(item)) return null;
  return { field: only, values: list as Array<string | number> };
}

/**
 * Whether a document holds arrays in two or more fields of one of `indexes`, as a function with one
 * property read per field, each at a site of its own: `checkParallelArrays` reads `doc[field]` in a
 * loop, and with the events' 7 compound indexes (15 fields) each of those reads was a megamorphic
 * keyed look-up, for every stored document. Field names come from the index definitions and are
 * written as string literals.
 */
function compileParallelArrays(indexes: ReadonlyArray<{ fields: readonly string[] }>): (doc: StoredDoc) => boolean {
  if (indexes.length === 0) return () => false;
  const read = (field: string) => (field.includes('.') ? `valueAt(doc, ${JSON.stringify(field)})` : `doc[${JSON.stringify(field)}]`);
  const tests = indexes.map(({ fields }) => `(${fields.map((field) => `(Array.isArray(${read(field)}) ? 1 : 0)`).join(' + ')}) > 1`);
  return new Function('valueAt', `return (doc) => ${tests.join(' || ')};`)(valueAt) as (doc: StoredDoc) => boolean;
}

function hasText(expr: Expr): boolean {
  if (expr.kind === 'text') return true;
  return (expr.kind === 'and' || expr.kind === 'or' || expr.kind === 'nor') && expr.children.some(hasText);
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

interface ListedCounts {
  counts: Map<string | number, number>;
  /** Every value's count is in `counts` (one pass over the index counted them all). */
  complete: boolean;
}

interface DateBound {
  field: string;
  time: number;
}

const RANGE_OPERATORS: ReadonlySet<string> = new Set(['$lt', '$lte', '$gt', '$gte']);

/**
 * A filter's shape with the Date operands of its range comparisons left out (the key), and those
 * bounds by field and operator. Null when there are none, when one field and operator occur twice
 * (the bounds could not be paired), or for a dotted field (no Date column).
 */
function dateBoundFamily(expr: Expr): { key: string; bounds: Map<string, DateBound> } | null {
  const bounds = new Map<string, DateBound>();
  let pairable = true;
  const mask = (node: Expr): Expr => {
    if (node.kind === 'and' || node.kind === 'or' || node.kind === 'nor') return { kind: node.kind, children: node.children.map(mask) };
    if (node.kind !== 'cmp' || !(node.value instanceof Date) || !RANGE_OPERATORS.has(node.op)) return node;
    const name = `${node.field}\u0000${node.op}`;
    if (bounds.has(name) || node.field.includes('.')) pairable = false;
    bounds.set(name, { field: node.field, time: node.value.getTime() });
    return { ...node, value: DATE_PLACEHOLDER };
  };
  const masked = mask(expr);
  return pairable && bounds.size > 0 ? { key: exprKey(masked), bounds } : null;
}

/** Stands for every Date bound in a family's key. */
const DATE_PLACEHOLDER = new Date(0);

/**
 * A top-level `field $in [numbers or strings]` clause of a conjunction, and the conjunction
 * without it. Only plain values: null (missing fields) and NaN follow matcher rules, not index keys.
 */
function listedClause(expr: Expr, field: string): { values: Scalar[]; rest: Expr } | null {
  if (expr.kind !== 'and' || field.includes('.')) return null;
  const at = expr.children.findIndex(
    (child) =>
      child.kind === 'in' &&
      child.field === field &&
      !child.negated &&
      child.values.every(isPlainKey),
  );
  if (at < 0) return null;
  const clause = expr.children[at] as Extract<Expr, { kind: 'in' }>;
  return { values: clause.values, rest: { kind: 'and', children: expr.children.filter((_, i) => i !== at) } };
}
