/**
 * One collection of the embedded engine, as the port's `Collection`: the parts below composed, each
 * port method checking that the storage is open and handing over to its part.
 *
 * - document-table.ts: documents in slots numbered in insertion (natural) order;
 * - index-set.ts: the indexes of its `IndexDefinition`s, kept current write by write;
 * - derived.ts: structures derived on demand from the queries it answers (cached clause bitsets,
 *   Date columns, value postings of unindexed fields);
 * - count-memo.ts: the remembered per-value counts of filters that list the values;
 * - query.ts, value-counts.ts, near.ts: reads, planned by planner.ts and paged by ordering.ts;
 * - writes.ts: inserts, updates and deletes.
 */
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
import { ListedCountMemo } from './count-memo.js';
import { DerivedStructures } from './derived.js';
import { DocumentTable } from './document-table.js';
import { IndexSet } from './index-set.js';
import { geoNear } from './near.js';
import { Planner, type PlannerHost } from './planner.js';
import { QueryExecution } from './query.js';
import { ScratchBits } from './scratch-bits.js';
import { ValueCounts } from './value-counts.js';
import { Writes } from './writes.js';

export interface EmbeddedCollectionOptions {
  name: string;
  definitions: readonly IndexDefinition[];
  /** Throws StorageUnavailableError once the storage is closed. */
  assertOpen: () => void;
}

export class EmbeddedCollection<T extends { _id: number }> implements Collection<T> {
  private readonly assertOpen: () => void;
  private readonly table = new DocumentTable();
  private readonly indexes: IndexSet;
  private readonly queries: QueryExecution;
  private readonly values: ValueCounts;
  private readonly writes: Writes;

  constructor(options: EmbeddedCollectionOptions) {
    this.assertOpen = options.assertOpen;
    const table = this.table;
    const indexes = new IndexSet(options.name, options.definitions, table);
    const bits = new ScratchBits(table.live);
    const derived = new DerivedStructures(table, (released) => bits.release(released));
    const host: PlannerHost = {
      docs: table.docs,
      live: table.live,
      get liveCount() {
        return table.size;
      },
      slotOfId: (id) => table.slotOf(id),
      uniqueOwner: (field) => indexes.uniqueOwner(field),
      sortedIndexes: indexes.sortedIndexes,
      get textIndex() {
        return indexes.textIndex;
      },
      geoIndexFor: (field) => indexes.geoIndexOn(field),
      predicateContext: {
        // Also asked while a write refreshes a cached $text clause, outside a read.
        hasAnyTerm: (slot, terms) => {
          indexes.catchUp();
          return indexes.textIndex?.hasAny(slot, terms) ?? false;
        },
        dateColumn: (field) => derived.dateColumn(field),
      },
      postings: (field) => derived.postings(field),
      buildPostings: (field) => derived.buildPostings(field),
      cache: derived.cache,
    };
    const planner = new Planner(host, bits);
    const memo = new ListedCountMemo(table, (field) => derived.dateColumn(field));
    this.indexes = indexes;
    this.queries = new QueryExecution(options.name, table, indexes, planner, bits);
    this.values = new ValueCounts(table, indexes, planner, this.queries, memo);
    this.writes = new Writes(table, indexes, derived, memo, this.queries);
  }

  /** Builds the indexes not built yet (idempotent), refusing like MongoDB when existing data violates one. */
  ensureIndexes(): void {
    this.indexes.ensureIndexes();
  }

  async insertOne(doc: T): Promise<void> {
    this.assertOpen();
    this.writes.insertOne(doc);
  }

  async insertMany(docs: readonly T[]): Promise<InsertManyFailure[]> {
    this.assertOpen();
    return this.writes.insertMany(docs);
  }

  async findById(id: number): Promise<T | null> {
    this.assertOpen();
    return (this.table.byId(id) as unknown as T | undefined) ?? null;
  }

  async findOne(filter: Filter): Promise<T | null> {
    this.assertOpen();
    return (this.queries.findOne(filter) as unknown as T | undefined) ?? null;
  }

  async find(query: CompiledQuery): Promise<T[]> {
    this.assertOpen();
    return this.queries.find(query) as unknown as T[];
  }

  async findPage(query: CompiledQuery): Promise<Page<T>> {
    this.assertOpen();
    const { docs, total } = this.queries.findPage(query);
    return { items: docs as unknown as T[], total };
  }

  async explain(query: CompiledQuery): Promise<QueryPlan> {
    this.assertOpen();
    return this.queries.explain(query);
  }

  async count(filter: Filter): Promise<number> {
    this.assertOpen();
    return this.queries.count(filter);
  }

  /** MongoDB's $geoNear: exact great-circle distances from the 2dsphere index, nearest first, ties by _id. */
  async near(field: string, query: NearQuery): Promise<NearHit[]> {
    this.assertOpen();
    return geoNear(this.queries, this.indexes, this.table, field, query);
  }

  async distinct(field: string, filter: Filter): Promise<Scalar[]> {
    this.assertOpen();
    return this.values.distinct(field, filter);
  }

  async countValues(field: string, filter: Filter): Promise<Array<{ value: Scalar; count: number }>> {
    this.assertOpen();
    return this.values.countValues(field, filter);
  }

  async updateById(id: number, update: Update<T>): Promise<T | null> {
    this.assertOpen();
    return this.writes.updateById(id, update) as unknown as T | null;
  }

  async updateMany(filter: Filter, update: ManyUpdate): Promise<number> {
    this.assertOpen();
    return this.writes.updateMany(filter, update);
  }

  async deleteById(id: number): Promise<boolean> {
    this.assertOpen();
    return this.writes.deleteById(id);
  }
}
