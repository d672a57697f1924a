/**
 * One port collection over one driver collection. The port's CompiledQuery is a subset of
 * MongoDB's query language, so filters and sorts pass through unchanged; only results and
 * errors are converted at this boundary.
 */
import { type Collection as DriverCollection, type Document, type FindOptions, type Sort as DriverSort } from 'mongodb';
import {
  type Collection,
  type CompiledQuery,
  type Filter,
  type IndexDefinition,
  type ManyUpdate,
  type Page,
  type QueryPlan,
  type Scalar,
  type Sort,
  type Update,
} from '../port.js';
import { UnsupportedQueryError } from '../../errors.js';
import { guarded, insertManyFailures, translateMongoError } from './errors.js';

/** Every stored document has a numeric id (port.ts); the driver's default would be an ObjectId. */
export interface StoredDocument extends Document {
  _id: number;
}

/** The Earth radius MongoDB uses for distances between GeoJSON points (kRadiusOfEarthInMeters). */
export const MONGODB_EARTH_RADIUS_M = 6378.1 * 1000;

export interface CollectionLimits {
  /** Server-side time limit (maxTimeMS) for reads and findAndModify. */
  operationMS: number;
}

function driverSort(sort: Sort | undefined): DriverSort | undefined {
  // Kept as an array of pairs, which the driver reads in order; an object would let JavaScript
  // move integer-like field names to the front.
  return sort && sort.length > 0 ? sort : undefined;
}

/**
 * The driver would store `undefined` as null (or drop it, depending on its options) and MongoDB
 * refuses to change `_id`: both are refused up front, exactly as the embedded engine refuses
 * them, so the two engines agree on every update a service can send. The refusal names the path
 * as the embedded engine does (`document.organizerIds.1`, `$set.website`), and descends into the
 * same values: arrays and plain objects, with or without a prototype.
 */
function assertNoUndefined(value: unknown, path: string): void {
  if (value === undefined) throw new UnsupportedQueryError(`${path} is undefined; store null or leave the field out.`);
  if (Array.isArray(value)) {
    value.forEach((element, i) => assertNoUndefined(element, `${path}.${i}`));
  } else if (isPlainObject(value)) {
    for (const [key, child] of Object.entries(value)) assertNoUndefined(child, `${path}.${key}`);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

function checkedFields(fields: Record<string, unknown> | undefined, where: string): Document {
  const out: Document = {};
  for (const [field, value] of Object.entries(fields ?? {})) {
    if (field === '_id') throw new UnsupportedQueryError(`${where}: _id is immutable.`);
    assertNoUndefined(value, `${where}.${field}`);
    out[field] = value;
  }
  return out;
}

/**
 * The `$set` of updateById. MongoDB refuses an update that changes `_id` (ImmutableField) but
 * accepts one that sets it to the value it already has, and so does the embedded engine: such an
 * `_id` changes nothing and is left out of the update sent; any other `_id` is refused here,
 * before anything is written.
 */
function checkedSetById(fields: Record<string, unknown> | undefined, id: number): Document {
  if (fields === undefined || !Object.hasOwn(fields, '_id')) return checkedFields(fields, '$set');
  const { _id: kept, ...others } = fields;
  assertNoUndefined(kept, '$set._id');
  if (kept !== id) throw new UnsupportedQueryError(`$set: _id is immutable (document ${id}).`);
  return checkedFields(others, '$set');
}

/** An interval over every key of an index field, walked forwards or backwards, as explain prints it. */
const WHOLE_FIELD = new Set(['[MinKey, MaxKey]', '[MaxKey, MinKey]']);

/**
 * Whether an IXSCAN reads every entry of its index: each field's bounds are the single interval
 * `[MinKey, MaxKey]` (or `[MaxKey, MinKey]` backwards). MongoDB plans such a scan to provide a sort
 * (often on `_id_`); on an index of every document (neither partial nor sparse) it examines the
 * whole collection, like a COLLSCAN.
 */
function scansWholeCollection(node: Record<string, unknown>): boolean {
  if (node.isPartial === true || node.isSparse === true) return false;
  const bounds = node.indexBounds;
  if (bounds === null || typeof bounds !== 'object' || Array.isArray(bounds)) return false;
  const fields = Object.values(bounds as Record<string, unknown>);
  return fields.length > 0 && fields.every((intervals) => Array.isArray(intervals) && intervals.length === 1 && WHOLE_FIELD.has(intervals[0] as string));
}

/**
 * The shared plan of a `queryPlanner` winning plan: the classic tree (`stage`, `inputStage(s)`,
 * `indexName`) or, on the slot-based engine, the same tree under `queryPlan`. IXSCAN, TEXT*,
 * GEO_NEAR* and EXPRESS_* stages name their index; the point look-ups by `_id` that name none
 * (IDHACK, EXPRESS_CLUSTERED_IXSCAN) read the primary key, `_id_`. COLLSCAN, and an IXSCAN over
 * the whole of an index of every document, are collection scans. A SORT stage (of either `type`,
 * simple or default) sorts in memory; SORT_MERGE merges streams each already in index order.
 */
export function planOf(winningPlan: unknown, query: CompiledQuery): QueryPlan {
  const indexes = new Set<string>();
  let collectionScan = false;
  let memorySort = false;
  const visit = (value: unknown): void => {
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      value.forEach(visit);
      return;
    }
    const node = value as Record<string, unknown>;
    const stage = node.stage;
    if (typeof node.indexName === 'string') indexes.add(node.indexName);
    else if (stage === 'IDHACK' || (typeof stage === 'string' && stage.startsWith('EXPRESS_'))) indexes.add('_id_');
    if (stage === 'COLLSCAN' || (stage === 'IXSCAN' && scansWholeCollection(node))) collectionScan = true;
    if (stage === 'SORT') memorySort = true;
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') visit(child);
  };
  visit(winningPlan);
  const sorted = query.sort !== undefined && query.sort.length > 0;
  return { indexes: [...indexes].sort(), collectionScan, sort: !sorted ? 'none' : memorySort ? 'memory' : 'index' };
}

/** What the parts of one port collection share. */
interface MongoContext {
  collection: DriverCollection<StoredDocument>;
  name: string;
  indexes: readonly IndexDefinition[];
  /** Runs one driver operation, its errors translated to the port's. */
  run: <R>(operation: string, fn: () => Promise<R>) => Promise<R>;
  readOptions: { maxTimeMS: number };
}

type Reads = 'explain' | 'findById' | 'findOne' | 'find' | 'findPage' | 'count';
type Aggregations = 'distinct' | 'countValues' | 'near';
type Writes = 'insertOne' | 'insertMany' | 'updateById' | 'updateMany' | 'deleteById';

/** Documents by id, filter and page, their count, and the plan of a query. */
function mongoReads<T extends { _id: number }>({ collection, run, readOptions }: MongoContext): Pick<Collection<T>, Reads> {
  const findById = (id: number): Promise<T | null> => run('findOne', async () => (await collection.findOne({ _id: id }, readOptions)) as unknown as T | null);

  const find = (query: CompiledQuery): Promise<T[]> =>
    run('find', async () => {
      const options: FindOptions = { ...readOptions };
      const sort = driverSort(query.sort);
      if (sort !== undefined) options.sort = sort;
      if (query.skip !== undefined && query.skip > 0) options.skip = query.skip;
      // limit 0 means "no limit", in MongoDB as in the embedded engine.
      if (query.limit !== undefined && query.limit !== 0) options.limit = query.limit;
      return (await collection.find(query.filter as Document, options).toArray()) as unknown as T[];
    });

  // countDocuments is an aggregation whose first stage is `$match: filter`; `$text` is allowed
  // there because it is the first stage, and `$geoWithin` is allowed in `$match` (only $near is not).
  const count = (filter: Filter): Promise<number> => run('countDocuments', () => collection.countDocuments(filter as Document, readOptions));

  return {
    explain(query) {
      return run('explain', async () => {
        const options: FindOptions = {};
        const sort = driverSort(query.sort);
        if (sort !== undefined) options.sort = sort;
        if (query.skip !== undefined && query.skip > 0) options.skip = query.skip;
        if (query.limit !== undefined && query.limit !== 0) options.limit = query.limit;
        const explained = await collection.find(query.filter as Document, options).explain('queryPlanner');
        return planOf((explained as { queryPlanner?: { winningPlan?: unknown } }).queryPlanner?.winningPlan, query);
      });
    },

    findById,

    findOne(filter) {
      return run('findOne', async () => (await collection.findOne(filter as Document, readOptions)) as unknown as T | null);
    },

    find,

    async findPage(query): Promise<Page<T>> {
      const [items, total] = await Promise.all([find(query), count(query.filter)]);
      return { items, total };
    },

    count,
  };
}

/** Values and distances: distinct values, counts per value, documents by distance. */
function mongoAggregations<T extends { _id: number }>({ collection, run, readOptions }: MongoContext): Pick<Collection<T>, Aggregations> {
  return {
    distinct(field, filter) {
      return run('distinct', async () => {
        const values: unknown[] = await collection.distinct(field, filter as Document, readOptions);
        // MongoDB's distinct reports null (explicit nulls, null array elements); the port leaves it out.
        return values.filter((value) => value !== null && value !== undefined) as Scalar[];
      });
    },

    countValues(field, filter) {
      const path = `$${field}`;
      const pipeline: Document[] = [
        // `$text` is only allowed in the first stage's `$match`: it is.
        { $match: filter as Document },
        // Each document contributes each distinct element once (a plain $unwind would count a
        // repeated element twice); a non-array value becomes a one-element set, and a missing
        // one [null], left out below. An empty array yields no row at $unwind.
        { $project: { _id: 0, values: { $setUnion: [{ $cond: [{ $isArray: path }, path, [path]] }, []] } } },
        { $unwind: '$values' },
        { $group: { _id: '$values', count: { $sum: 1 } } },
      ];
      return run('aggregate', async () => {
        const groups = await collection.aggregate<{ _id: unknown; count: number }>(pipeline, readOptions).toArray();
        // Nulls (explicit, missing, null array elements) form a group of their own; the port leaves it out.
        return groups.filter((group) => group._id !== null && group._id !== undefined).map((group) => ({ value: group._id as Scalar, count: group.count }));
      });
    },

    /**
     * $geoNear on the 2dsphere index. For GeoJSON points MongoDB reports meters computed on its
     * own Earth radius (6378.1 km, kRadiusOfEarthInMeters); converting back with the same radius
     * gives the port's radians, which callers turn into kilometres on the mean radius.
     */
    async near(field, query) {
      const rows = await run('aggregate', async () =>
        collection
          .aggregate<{ _id: number; distance: number }>(
            [
              {
                $geoNear: {
                  near: { type: 'Point', coordinates: query.point },
                  key: field,
                  distanceField: 'distance',
                  spherical: true,
                  maxDistance: query.maxDistance * MONGODB_EARTH_RADIUS_M,
                  query: query.filter as Document,
                },
              },
              { $project: { _id: 1, distance: 1 } },
            ],
            readOptions,
          )
          .toArray(),
      );
      const hits = rows.map((row) => ({ _id: row._id, distance: row.distance / MONGODB_EARTH_RADIUS_M }));
      // Equal distances come back in no particular order; the port promises ties by _id.
      return hits.sort((a, b) => a.distance - b.distance || a._id - b._id);
    },
  };
}

/** Inserts, updates and deletes, refused up front where the embedded engine refuses them. */
function mongoWrites<T extends { _id: number }>(
  { collection, name, indexes, run, readOptions }: MongoContext,
  findById: Collection<T>['findById'],
): Pick<Collection<T>, Writes> {
  return {
    async insertOne(doc) {
      assertNoUndefined(doc, 'document');
      await run('insertOne', () => collection.insertOne(doc as unknown as StoredDocument));
    },

    async insertMany(docs) {
      if (docs.length === 0) return [];
      // Named `document…` like insertOne's refusal, as the embedded engine names it for both.
      for (const doc of docs) assertNoUndefined(doc, 'document');
      let result: { acknowledged: boolean; insertedCount: number };
      try {
        result = await collection.insertMany(docs, { ordered: false });
      } catch (error) {
        const failures = insertManyFailures(error, docs.length, indexes);
        if (failures === null) throw translateMongoError(error, `${name}.insertMany`, indexes);
        return failures;
      }
      // An acknowledged unordered insert without write errors stored every document; anything
      // else must not pass for success.
      if (result.acknowledged && result.insertedCount !== docs.length) {
        throw new Error(`MongoDB ${name}.insertMany stored ${result.insertedCount} of ${docs.length} documents without reporting why`);
      }
      return [];
    },

    async updateById(id, update: Update<T>) {
      const $set = checkedSetById(update.$set, id);
      const unset = update.$unset ?? [];
      for (const field of unset) {
        if (field === '_id') throw new UnsupportedQueryError('$unset: _id is immutable.');
        // MongoDB: "Updating the path 'x' would create a conflict at 'x'".
        if (Object.hasOwn($set, field)) throw new UnsupportedQueryError(`$set and $unset both target ${field}.`);
      }
      const driverUpdate: Document = {};
      if (Object.keys($set).length > 0) driverUpdate.$set = $set;
      if (unset.length > 0) driverUpdate.$unset = Object.fromEntries(unset.map((field) => [field, '']));
      // MongoDB refuses an update document without operators; nothing to change reads the document.
      if (Object.keys(driverUpdate).length === 0) return findById(id);
      return run('findOneAndUpdate', async () => {
        const after = await collection.findOneAndUpdate({ _id: id }, driverUpdate, {
          ...readOptions,
          returnDocument: 'after',
        });
        return after as unknown as T | null;
      });
    },

    async updateMany(filter, update: ManyUpdate) {
      const $set = checkedFields(update.$set, '$set');
      const $pull = checkedFields(update.$pull, '$pull');
      const driverUpdate: Document = {};
      if (Object.keys($set).length > 0) driverUpdate.$set = $set;
      if (Object.keys($pull).length > 0) driverUpdate.$pull = $pull;
      if (Object.keys(driverUpdate).length === 0) return 0;
      const result = await run('updateMany', () => collection.updateMany(filter as Document, driverUpdate));
      return result.modifiedCount;
    },

    async deleteById(id) {
      const result = await run('deleteOne', () => collection.deleteOne({ _id: id }));
      return result.deletedCount === 1;
    },
  };
}

export function createMongoCollection<T extends { _id: number }>(
  collection: DriverCollection<StoredDocument>,
  indexes: readonly IndexDefinition[],
  limits: CollectionLimits,
): Collection<T> {
  const name = collection.collectionName;
  const run = <R>(operation: string, fn: () => Promise<R>): Promise<R> => guarded(`${name}.${operation}`, fn, indexes);
  const context: MongoContext = { collection, name, indexes, run, readOptions: { maxTimeMS: limits.operationMS } };
  const reads = mongoReads<T>(context);
  return { ...reads, ...mongoAggregations<T>(context), ...mongoWrites<T>(context, reads.findById) };
}
