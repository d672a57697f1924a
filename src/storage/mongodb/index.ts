/**
 * The MongoDB engine: the only module tree that imports `mongodb` at run time.
 * Everything it returns speaks the port's types; driver errors are translated in ./errors.ts.
 */
import { type Db, MongoClient, type MongoClientOptions, MongoServerError } from 'mongodb';
import { StorageUnavailableError } from '../../errors.js';
import { type CollectionName, type DocumentTypes, type IndexSet, type Storage } from '../port.js';
import { createMongoCollection, type StoredDocument } from './collection.js';
import { type CounterDoc, createSequences } from './counters.js';
import { createSharedChangeVersion } from './change-version.js';
import { trackWrites } from '../change-version.js';
import { guarded, translateMongoError } from './errors.js';
import { describeDroppedConflict, type IndexTarget, type ListedIndex, prepareIndexSet } from './index-diff.js';

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
  /** Hears what ensureIndexes changed besides creating indexes (a conflicting index dropped). */
  log?: { warn(msg: string): void };
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

/** MongoDB's NamespaceNotFound: listing the indexes of a collection that does not exist yet. */
const NAMESPACE_NOT_FOUND = 26;
/** MongoDB's IndexNotFound: dropping an index another process has just dropped. */
const INDEX_NOT_FOUND = 27;

/** The indexes of a database as index-diff.ts reaches them; driver errors are translated here. */
export function mongoIndexTarget(db: Pick<Db, 'collection'>): IndexTarget {
  return {
    list: (collection) =>
      guarded(`${collection}.listIndexes`, async () => {
        try {
          return (await db.collection(collection).listIndexes().toArray()) as ListedIndex[];
        } catch (error) {
          if (error instanceof MongoServerError && error.code === NAMESPACE_NOT_FOUND) return [];
          throw error;
        }
      }),
    create: (collection, definitions) =>
      guarded(`${collection}.createIndexes`, async () => {
        // The definitions are structurally the driver's IndexDescription (port.ts).
        await db.collection(collection).createIndexes(definitions);
      }),
    drop: (collection, name) =>
      guarded(`${collection}.dropIndex`, async () => {
        try {
          await db.collection(collection).dropIndex(name);
        } catch (error) {
          // Two instances starting together both drop the same conflicting index; the second finds it gone.
          if (error instanceof MongoServerError && error.code === INDEX_NOT_FOUND) return;
          throw error;
        }
      }),
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
    // The message could quote the URI, credentials included: name the class only, and keep no cause.
    // eslint-disable-next-line preserve-caught-error -- see above
    throw new Error(`Invalid MongoDB connection string (${error instanceof Error ? error.name : 'error'})`);
  }
  const db = client.db(options.dbName);
  const limits = { operationMS: timeouts.operationMS };

  const nextId = createSequences(db.collection<CounterDoc>('counters'), limits);
  const changes = createSharedChangeVersion(db.collection<CounterDoc>('counters'), limits);

  const collection = <K extends CollectionName>(name: K) =>
    trackWrites(createMongoCollection<DocumentTypes[K]>(db.collection<StoredDocument>(name), options.indexes[name], limits), () => changes.written());

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
    tombstones: collection('tombstones'),
    series: collection('series'),

    nextId,
    changeVersion: () => changes.version(),

    async ensureIndexes() {
      // Connected first, on its own: operations started together on an unconnected client race its
      // connection, and when that fails the driver closes the topology under the others, which then
      // fail with "Topology is closed" instead of the reason (refused, DNS, authentication, TLS).
      await guarded('connect', () => client.connect());
      // Indexes not in indexes/ that would block a creation (a renamed index) are dropped first;
      // a drop removes something indexes/ never named, so each one is logged as a warning.
      await prepareIndexSet(mongoIndexTarget(db), options.indexes, (conflict) => options.log?.warn(describeDroppedConflict(conflict)));
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
      changes.stop();
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
