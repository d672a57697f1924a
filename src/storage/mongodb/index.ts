/**
 * The MongoDB engine (design §3): the only module tree that imports `mongodb` at run time.
 * Everything it returns speaks the port's types; driver errors are translated in ./errors.ts.
 */
import { MongoClient, type MongoClientOptions } from 'mongodb';
import { StorageUnavailableError } from '../../errors.js';
import {
  COLLECTION_NAMES,
  type CollectionName,
  type DocumentTypes,
  type IndexSet,
  type Storage,
} from '../port.js';
import { createMongoCollection, type StoredDocument } from './collection.js';
import { type CounterDoc, createSequences } from './counters.js';
import { guarded, translateMongoError } from './errors.js';

export { translateMongoError } from './errors.js';

/**
 * Latency bounds. The installed driver (7.x) accepts `timeoutMS` (CSOT) but ignores it with a
 * deprecation warning, so an operation is bounded by its parts instead: server selection, the
 * connection handshake, the wait for a pooled connection, the server-side `maxTimeMS` and the
 * write concern's `wtimeoutMS`. With the defaults, one attempt costs at most ~5 s + 8 s and a
 * retried one stays under the 30 s request timeout.
 */
export interface MongoTimeouts {
  /** How long an operation waits for a suitable server (also bounds an unreachable URI). */
  serverSelectionMS: number;
  /** TCP connect + handshake of one connection. */
  connectMS: number;
  /** Wait for a free pooled connection when every connection is busy. */
  waitQueueMS: number;
  /** Server-side limit (`maxTimeMS`) of reads and findAndModify. */
  operationMS: number;
  /** How long a write waits for majority acknowledgement (`wtimeoutMS`). */
  writeConcernMS: number;
}

export const DEFAULT_MONGO_TIMEOUTS: Readonly<MongoTimeouts> = Object.freeze({
  serverSelectionMS: 5_000,
  connectMS: 5_000,
  waitQueueMS: 5_000,
  operationMS: 8_000,
  writeConcernMS: 8_000,
});

export interface MongoStorageOptions {
  uri: string;
  dbName: string;
  indexes: IndexSet;
  reason: string;
  /** Runs after the client is closed (e.g. stops an in-memory server). */
  onClose?: () => Promise<void>;
  timeouts?: Partial<MongoTimeouts>;
  /** Drop the whole database on close: for test harnesses that give each storage its own database. */
  dropDatabaseOnClose?: boolean;
}

export function mongoClientOptions(timeouts: MongoTimeouts): MongoClientOptions {
  return {
    appName: 'calendar-service',
    // Retried once by the driver on a failover or network blip (no-op on a standalone mongod).
    retryWrites: true,
    retryReads: true,
    // A write is acknowledged once a majority holds it, so a failover cannot roll it back; a
    // standalone mongod is its own majority and accepts it too.
    writeConcern: { w: 'majority', wtimeoutMS: timeouts.writeConcernMS },
    // `local` on the primary: every acknowledged write (including the caller's own, e.g. a GET
    // right after a POST) is visible at once. `majority` reads could lag behind the caller's own
    // writes without causal sessions and cost a snapshot; durability comes from w: majority.
    readConcern: { level: 'local' },
    readPreference: 'primary',
    serverSelectionTimeoutMS: timeouts.serverSelectionMS,
    connectTimeoutMS: timeouts.connectMS,
    waitQueueTimeoutMS: timeouts.waitQueueMS,
    // socketTimeoutMS stays 0 (the driver's default): a socket timeout would also cut index
    // builds at start-up; a hung connection is interrupted when the monitor's heartbeat fails.
  };
}

/**
 * Creates the storage without connecting: the first operation connects (and fails within
 * `serverSelectionMS` when nothing answers), so the caller decides when to fail start-up
 * (ensureIndexes or ping).
 */
export async function createMongoStorage(options: MongoStorageOptions): Promise<Storage> {
  const timeouts: MongoTimeouts = { ...DEFAULT_MONGO_TIMEOUTS, ...options.timeouts };
  let client: MongoClient;
  try {
    client = new MongoClient(options.uri, mongoClientOptions(timeouts));
  } catch (error) {
    // The message could quote the URI, credentials included: name the class only.
    throw new Error(`Invalid MongoDB connection string (${error instanceof Error ? error.name : 'error'})`);
  }
  const db = client.db(options.dbName);
  const limits = { operationMS: timeouts.operationMS };

  const collection = <K extends CollectionName>(name: K) =>
    createMongoCollection<DocumentTypes[K]>(db.collection<StoredDocument>(name), options.indexes[name], limits);

  const nextId = createSequences(db.collection<CounterDoc>('counters'), limits);

  let closed = false;

  return {
    engine: 'mongodb',
    reason: options.reason,
    events: collection('events'),
    venues: collection('venues'),
    organizers: collection('organizers'),
    categories: collection('categories'),
    tags: collection('tags'),
    idempotency: collection('idempotency'),

    nextId,

    async ensureIndexes() {
      await Promise.all(
        COLLECTION_NAMES.map((name) => {
          const definitions = options.indexes[name];
          if (definitions.length === 0) return Promise.resolve();
          return guarded(`${name}.createIndexes`, async () => {
            // The definitions are structurally the driver's IndexDescription (port.ts).
            await db.collection(name).createIndexes(definitions);
          });
        }),
      );
    },

    async ping() {
      try {
        await client.db('admin').command({ ping: 1 });
      } catch (error) {
        // Readiness: whatever the reason, the storage does not answer.
        const translated = translateMongoError(error, 'ping');
        if (translated instanceof StorageUnavailableError) throw translated;
        const unavailable = new StorageUnavailableError();
        unavailable.cause = error;
        throw unavailable;
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      let dropError: Error | undefined;
      if (options.dropDatabaseOnClose) {
        try {
          await db.dropDatabase();
        } catch (error) {
          dropError = translateMongoError(error, 'dropDatabase');
        }
      }
      try {
        await client.close();
      } finally {
        await options.onClose?.();
      }
      if (dropError) throw dropError;
    },
  };
}
