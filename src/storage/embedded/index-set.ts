/**
 * The indexes of one collection's `IndexDefinition`s — a sorted index for every plain index,
 * unique-key maps, the text index and the 2dsphere indexes — built from the stored documents and
 * kept current on every write, with MongoDB's refusals: duplicate unique keys and parallel arrays
 * in a compound index. A write's entries are computed and checked before anything is written, so
 * a refused write changes nothing.
 */
import { DuplicateKeyError } from '../../errors.js';
import { type IndexDefinition, type Scalar } from '../port.js';
import { encodeKey, keyValuesAt, ownerKey } from './bson.js';
import { type DocumentTable } from './document-table.js';
import { refuse } from './filter.js';
import { GeoIndex, type LngLat } from './geo-index.js';
import { type StoredDoc, valueAt } from './predicate.js';
import { SortedIndex } from './sorted-index.js';
import { TextIndex } from './text-index.js';

interface UniqueIndex {
  name: string;
  fields: string[];
  owners: Map<string, number>;
}

/** Everything a document contributes to the indexes, computed before any write. */
export interface IndexEntries {
  uniqueKeys: string[][];
  /** The points for each of `geoIndexes`, in its order (none without geo indexes: no per-write Map). */
  points: ReadonlyArray<LngLat[]>;
}

/** Unique keys claimed by earlier documents of one batch write, per unique index. */
export type PendingKeys = Array<Map<string, number>>;

const NO_POINTS: ReadonlyArray<LngLat[]> = Object.freeze([]);

export class IndexSet {
  readonly sortedIndexes: SortedIndex[] = [];
  readonly geoIndexes: GeoIndex[] = [];
  private readonly built = new Set<string>();
  private readonly uniqueIndexes: UniqueIndex[] = [];
  /** Compound non-text indexes: MongoDB refuses documents with arrays in two of their fields. */
  private readonly compoundKeys: Array<{ name: string; fields: string[] }> = [];
  /** Whether a document breaks that rule for some compound index (compiled when first needed). */
  private parallelArrays: ((doc: StoredDoc) => boolean) | null = null;
  private text: TextIndex | null = null;
  /**
   * Slots written since their entries in the sorted indexes and the text index were last brought
   * up to date (see catchUp). Unique and geo entries are never deferred: they decide whether a
   * write is accepted.
   */
  private readonly unindexed: number[] = [];

  constructor(
    private readonly name: string,
    private readonly definitions: readonly IndexDefinition[],
    private readonly table: DocumentTable,
  ) {}

  get textIndex(): TextIndex | null {
    return this.text;
  }

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

  private buildIndex(definition: IndexDefinition): void {
    const keys = Object.entries(definition.key);
    const types = new Set(keys.map(([, type]) => type));
    if (types.has('text')) {
      const index = new TextIndex(definition);
      for (const { slot, doc } of this.table.stored()) index.add(slot, doc);
      this.text = index;
      return;
    }
    const geoFields = keys.filter(([, type]) => type === '2dsphere').map(([field]) => field);
    if (geoFields.length > 0) this.buildGeoIndexes(definition, geoFields);
    else
      this.buildSortedIndex(
        definition,
        keys.map(([field]) => field),
      );
  }

  private buildGeoIndexes(definition: IndexDefinition, fields: readonly string[]): void {
    if (definition.unique === true) refuse(`Index ${definition.name}: a unique 2dsphere index is not supported.`);
    const indexes = fields.map((field) => new GeoIndex(definition.name, field));
    const points = new Map<GeoIndex, Map<number, LngLat[]>>(indexes.map((index) => [index, new Map()]));
    // Extract every point first, so a document MongoDB would refuse leaves no half-built index.
    for (const { slot, doc } of this.table.stored()) {
      for (const index of indexes) points.get(index)!.set(slot, index.pointsOf(doc._id, valueAt(doc, index.field)));
    }
    for (const index of indexes) {
      for (const [slot, found] of points.get(index)!) index.set(slot, found);
      this.geoIndexes.push(index);
    }
  }

  /** A sorted index, and the unique-key map of a unique one; refused when the stored documents violate it. */
  private buildSortedIndex(definition: IndexDefinition, fields: string[]): void {
    if (fields.length > 1) {
      for (const { doc } of this.table.stored()) checkParallelArrays(doc, [{ name: definition.name, fields }]);
    }
    let unique: UniqueIndex | null = null;
    if (definition.unique === true) {
      unique = { name: definition.name, fields, owners: new Map() };
      for (const { doc } of this.table.stored()) {
        for (const key of uniqueKeysOf(doc, fields)) {
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
    sorted.build([...this.table.stored()].map(({ slot, doc }) => ({ slot, id: doc._id, doc })));
    this.sortedIndexes.push(sorted);
  }

  /** Fresh maps for the unique keys a batch write claims (see `prepareEntries` and `claim`). */
  pendingKeys(): PendingKeys {
    return this.uniqueIndexes.map(() => new Map<string, number>());
  }

  /** Notes the unique keys of a document accepted into a batch, so later ones of the batch clash with them. */
  claim(pending: PendingKeys, entries: IndexEntries, id: number): void {
    entries.uniqueKeys.forEach((keys, i) => {
      for (const key of keys) pending[i]!.set(key, id);
    });
  }

  /**
   * Computes a document's index entries and checks them against every other document, so a write
   * either passes all checks or changes nothing. `pending` holds keys claimed earlier in the same
   * batch (insertMany, updateMany).
   */
  prepareEntries(doc: StoredDoc, pending?: PendingKeys): IndexEntries {
    // The compiled test first; the general check names the index and fields of a refusal.
    if ((this.parallelArrays ??= compileParallelArrays(this.compoundKeys))(doc)) checkParallelArrays(doc, this.compoundKeys);
    const uniqueKeys = this.uniqueIndexes.map((index, i) => {
      const keys = uniqueKeysOf(doc, index.fields);
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

  /** Adds a stored document's prepared entries; its sorted and text entries wait for `catchUp`. */
  addEntries(slot: number, doc: StoredDoc, entries: IndexEntries): void {
    this.uniqueIndexes.forEach((index, i) => {
      for (const key of entries.uniqueKeys[i]!) index.owners.set(key, doc._id);
    });
    entries.points.forEach((points, i) => this.geoIndexes[i]!.set(slot, points));
    if (this.sortedIndexes.length > 0 || this.text !== null) this.unindexed.push(slot);
  }

  /**
   * Adds the deferred slots' entries to the sorted indexes and the text index. Whatever reads them
   * calls it first: every read goes through QueryExecution.read, removals through removeEntries,
   * and a write refreshing a cached $text clause through hasAnyTerm. A bulk load (the seed CLI
   * storing 100,000 events a thousand at a time, looking them up by slug in between, which the
   * unique index answers) never reads them: its process ends without paying for them (12–15% of
   * its time), and a durable store's next process builds them from LMDB at start-up anyway. Adding
   * a document's entries later gives the same indexes (they cannot refuse it), and removals catch
   * up first, so a deferred slot always still holds the document it was deferred with.
   */
  catchUp(): void {
    const slots = this.unindexed;
    if (slots.length === 0) return;
    const docs = this.table.docs;
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      const doc = docs[slot]!;
      for (const index of this.sortedIndexes) index.add(slot, doc._id, doc);
      this.text?.add(slot, doc);
    }
    slots.length = 0;
  }

  /** Removes a document's entries from every index (its deferred entries are added first). */
  removeEntries(slot: number, doc: StoredDoc): void {
    this.catchUp();
    for (const index of this.uniqueIndexes) {
      for (const key of uniqueKeysOf(doc, index.fields)) {
        if (index.owners.get(key) === doc._id) index.owners.delete(key);
      }
    }
    for (const index of this.sortedIndexes) index.remove(slot, doc._id, doc);
    for (const index of this.geoIndexes) index.remove(slot);
    this.text?.remove(slot, doc);
  }

  /** The owner (_id) of each value in the single-field unique index on `field`, if there is one. */
  uniqueOwner(field: string): ((value: Scalar) => number | undefined) | undefined {
    const index = this.uniqueIndexOn(field);
    return index === undefined ? undefined : (value) => index.owners.get(ownerKey(value));
  }

  /**
   * The ids of the documents whose `field` equals one of the values, when `_id` or a single-field
   * unique index (a slug) answers it by look-ups; null otherwise. The seed loader asks for hundreds
   * of slugs per batch: planning such a list costs more than looking each one up.
   */
  idsOf(field: string, values: ReadonlyArray<string | number>): number[] | null {
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

  geoIndexOn(field: string): GeoIndex | undefined {
    return this.geoIndexes.find((index) => index.field === field);
  }

  /**
   * A sorted index led by a top-level `field` whose other fields hold no arrays (which would put a
   * document twice under one value): its entries of one leading value are the documents holding it.
   */
  countingIndex(field: string): SortedIndex | undefined {
    if (field.includes('.')) return undefined;
    return this.sortedIndexes.find((candidate) => candidate.fields[0] === field && candidate.arrayDocs.every((count, i) => i === 0 || count === 0));
  }

  /** The single-field unique index on `field` (a slug's), if there is one: its key map names each value's owner. */
  private uniqueIndexOn(field: string): UniqueIndex | undefined {
    return this.uniqueIndexes.find((candidate) => candidate.fields.length === 1 && candidate.fields[0] === field);
  }
}

/**
 * A document's keys in a (possibly compound, possibly multikey) unique index: `ownerKey`s for one
 * field, `encodeKey`s joined for several; missing fields count as null.
 */
function uniqueKeysOf(doc: StoredDoc, fields: readonly string[]): string[] {
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

/** Refuses a document holding arrays in two or more fields of one of `indexes`, naming them. */
function checkParallelArrays(doc: StoredDoc, indexes: ReadonlyArray<{ name: string; fields: string[] }>): void {
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
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- code generation on purpose (above): field names are string literals
  const compile = new Function('valueAt', `return (doc) => ${tests.join(' || ')};`) as (at: typeof valueAt) => (doc: StoredDoc) => boolean;
  return compile(valueAt);
}
