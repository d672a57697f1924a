/**
 * `npm run indexes` against a MongoDB database: the driver side of ./index-diff.ts. Connects with
 * the service's client options (./index.ts), lists, creates and drops indexes; driver errors are
 * translated at this boundary like every other operation.
 */
import { MongoClient, MongoServerError } from 'mongodb';
import { type CollectionName, type IndexDefinition, type IndexSet } from '../port.js';
import { guarded } from './errors.js';
import { DEFAULT_MONGO_TIMEOUTS, mongoClientOptions, type MongoTimeouts } from './index.js';
import { type IndexSyncMode, type IndexSyncReport, type IndexTarget, type ListedIndex, syncIndexSet } from './index-diff.js';

export type { CollectionIndexDiff, IndexSyncMode, IndexSyncReport } from './index-diff.js';

export interface MongoIndexSyncOptions {
  uri: string;
  dbName: string;
  indexes: IndexSet;
  mode: IndexSyncMode;
  timeouts?: Partial<MongoTimeouts>;
}

/** MongoDB's NamespaceNotFound: listing the indexes of a collection that does not exist yet. */
const NAMESPACE_NOT_FOUND = 26;

export async function syncMongoIndexes(options: MongoIndexSyncOptions): Promise<IndexSyncReport> {
  let client: MongoClient;
  try {
    client = new MongoClient(options.uri, mongoClientOptions({ ...DEFAULT_MONGO_TIMEOUTS, ...options.timeouts }));
  } catch (error) {
    // The message could quote the URI, credentials included: name the class only.
    throw new Error(`Invalid MongoDB connection string (${error instanceof Error ? error.name : 'error'})`);
  }
  const db = client.db(options.dbName);
  const target: IndexTarget = {
    list: (collection: CollectionName) =>
      guarded(`${collection}.listIndexes`, async () => {
        try {
          return (await db.collection(collection).listIndexes().toArray()) as ListedIndex[];
        } catch (error) {
          if (error instanceof MongoServerError && error.code === NAMESPACE_NOT_FOUND) return [];
          throw error;
        }
      }),
    create: (collection: CollectionName, definitions: IndexDefinition[]) =>
      guarded(`${collection}.createIndexes`, async () => {
        // The definitions are structurally the driver's IndexDescription (port.ts).
        await db.collection(collection).createIndexes(definitions);
      }),
    drop: (collection: CollectionName, name: string) =>
      guarded(`${collection}.dropIndex`, async () => {
        await db.collection(collection).dropIndex(name);
      }),
  };
  try {
    return await syncIndexSet(target, options.indexes, options.mode);
  } finally {
    await client.close();
  }
}
