/**
 * `npm run indexes` against a MongoDB database: the driver side of ./index-diff.ts. Connects with
 * the service's client options and index target (./index.ts), which lists, creates and drops
 * indexes; driver errors are translated at that boundary like every other operation.
 */
import { MongoClient } from 'mongodb';
import { type IndexSet } from '../port.js';
import { DEFAULT_MONGO_TIMEOUTS, mongoClientOptions, mongoIndexTarget, type MongoTimeouts } from './index.js';
import { type IndexSyncMode, type IndexSyncReport, syncIndexSet } from './index-diff.js';

export type { CollectionIndexDiff, IndexSyncMode, IndexSyncReport } from './index-diff.js';

export interface MongoIndexSyncOptions {
  uri: string;
  dbName: string;
  indexes: IndexSet;
  mode: IndexSyncMode;
  timeouts?: Partial<MongoTimeouts>;
}

export async function syncMongoIndexes(options: MongoIndexSyncOptions): Promise<IndexSyncReport> {
  let client: MongoClient;
  try {
    client = new MongoClient(options.uri, mongoClientOptions({ ...DEFAULT_MONGO_TIMEOUTS, ...options.timeouts }));
  } catch (error) {
    // The message could quote the URI, credentials included: name the class only here; the
    // driver's error stays the cause, which describeMongoFailure words without credentials.
    throw new Error(`Invalid MongoDB connection string (${error instanceof Error ? error.name : 'error'})`, { cause: error });
  }
  try {
    return await syncIndexSet(mongoIndexTarget(client.db(options.dbName)), options.indexes, options.mode);
  } finally {
    await client.close();
  }
}
