/**
 * The durable embedded engine: the in-memory embedded engine, kept in an LMDB environment in the
 * data directory — a sub-database per collection (documents as stored, keyed by _id, in lmdb's
 * msgpack) and `sequences` (the id counters). At open every document is read into the engine,
 * which then answers all reads.
 *
 * A write is applied to the engine first (its unique indexes and refusals decide), then queued in
 * LMDB — `put` of each changed document as now stored, `remove` of an id — and resolves once that
 * transaction is committed. Without overlappingSync (lmdb-js's default on POSIX: a write resolves
 * at commit and the sync follows), LMDB syncs the file inside the commit and lmdb-js resolves
 * after it: a resolved write is on disk. lmdb-js commits the writes queued in one turn of the event
 * loop, and those queued while a commit runs, together. A mutex applies and queues writes one at a
 * time, so LMDB's order is the order in which the engine changed. `nextId` queues its counter
 * without waiting: ahead of every write that can carry the id, it commits with it or before it
 * (and open raises each counter above the largest stored id). A failed commit stops the storage:
 * every later call rejects with StorageUnavailableError, since a write whose fate is unknown must
 * never be reported as done. A bulk load's writes (`bulkLoad()`: the seed command, acknowledged by
 * its report) resolve once queued; its `settle()` waits for the last commit.
 */
import { mkdir, open as openFile, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type Database, open as openLmdb, type RootDatabase } from 'lmdb';
import { addExtension } from 'msgpackr';
import { isPlainObject } from '../embedded/bson.js';
import { createEmbeddedStorage } from '../embedded/index.js';
import { assertIdCount, COLLECTION_NAMES, type Collection, type CollectionName, type IndexSet, type SequenceName, type Storage } from '../port.js';
import { DataDirectoryCorruptError, importLegacyDirectory } from './legacy-import.js';
import { lockDirectory, syncDirectory } from './lock.js';
import { createWriteQueue, type WriteQueue } from './write-queue.js';

export { DataDirectoryCorruptError } from './legacy-import.js';
export { DataDirectoryLockedError } from './lock.js';

export interface LmdbStorageOptions {
  /** The data directory (created if missing); relative paths resolve against the working directory. */
  dir: string;
  indexes: IndexSet;
  reason: string;
  log?: { info(msg: string): void; warn(msg: string): void };
  /** A seam for tests: given the commit of each write (and counter), returns what is awaited instead. */
  hooks?: { commit?(committed: Promise<unknown>): Promise<unknown> };
}

export interface LmdbStorage extends Storage {
  stats(): { dir: string; openMs: number; documents: number };
}

/** A value that cannot be stored (it would not come back as it went in). */
export class UnstorableValueError extends TypeError {
  constructor(path: string, what: string) {
    super(`${path} holds ${what}, which the durable storage cannot store.`);
    this.name = 'UnstorableValueError';
  }
}

/** msgpack writes -0 as the integer 0: a document holding -0 is written with this in its place. */
class NegativeZero {}
const NEGATIVE_ZERO = new NegativeZero();
addExtension({ Class: NegativeZero, type: 0x2d, write: () => 0, read: () => -0 });
const UNSTORABLE = new UnstorableValueError('value', 'something');

/** `value` as it can be written: itself, or a copy with NEGATIVE_ZERO for each -0; throws UNSTORABLE. */
function writable(value: unknown): unknown {
  if (typeof value === 'string' || typeof value === 'boolean' || value === null || value === undefined || value instanceof Date) return value;
  if (typeof value === 'number') return value === 0 && 1 / value < 0 ? NEGATIVE_ZERO : value;
  if (!Array.isArray(value) && !isPlainObject(value)) throw UNSTORABLE;
  let out = value as Record<string, unknown>;
  // for-in: the fast walk over an object's own fields (a plain object inherits no enumerable one).
  // eslint-disable-next-line @typescript-eslint/no-for-in-array -- arrays too: only -0 needs replacing, and a hole holds none
  for (const key in value) {
    if (key === '__proto__') throw UNSTORABLE;
    const child = (value as Record<string, unknown>)[key];
    const written = writable(child);
    if (written === child) continue;
    if (out === value) out = (Array.isArray(value) ? [...value] : { ...value }) as Record<string, unknown>;
    out[key] = written;
  }
  return out;
}

/**
 * `value` as it can be written; UnstorableValueError (naming the path, walked again only then) for
 * what msgpack would not give back as it was: values other than JSON's and Dates, `__proto__`
 * fields (read back renamed). Undefined is left to the engine, which refuses it.
 */
export function storable(value: unknown, path: string): unknown {
  try {
    return writable(value);
  } catch (error) {
    if (error !== UNSTORABLE) throw error;
    if (Array.isArray(value) || isPlainObject(value)) {
      for (const key of Object.keys(value)) {
        if (key === '__proto__') throw new UnstorableValueError(path, 'a field named __proto__');
        storable((value as Record<string, unknown>)[key], `${path}.${key}`);
      }
    }
    throw new UnstorableValueError(
      path,
      typeof value === 'object' && value !== null ? `a ${value.constructor?.name ?? 'non-plain'} object` : `a value of type ${typeof value}`,
    );
  }
}

type Doc = { _id: number };
type Stores = Record<CollectionName | 'sequences', Database>;

/**
 * A data directory's environment (data.mdb, lock.mdb). Each collection keeps its documents' field
 * lists once (msgpack's shared structures, under a key ranges skip; lmdb-js commits a new one before
 * the write using it is queued): half the bytes, read back in a third of the time.
 */
function openEnvironment(dir: string): { env: RootDatabase; dbs: Stores } {
  const env = openLmdb({ path: dir, maxDbs: COLLECTION_NAMES.length + 1, overlappingSync: false });
  const dbs = Object.fromEntries(
    ['sequences', ...COLLECTION_NAMES].map((name) => [name, env.openDB(name, { encoding: 'msgpack', sharedStructuresKey: Symbol.for('structures') })]),
  );
  return { env, dbs: dbs as Stores };
}

const SEQUENCE_OF: Partial<Record<CollectionName, SequenceName>> = {
  events: 'posts',
  venues: 'posts',
  organizers: 'posts',
  categories: 'terms',
  tags: 'terms',
};
const READS = ['findById', 'findOne', 'find', 'findPage', 'count', 'distinct', 'countValues', 'explain', 'near'] as const;

/**
 * Opens the environment and reads every stored document into `inner` (importing a legacy
 * write-ahead log first), then builds its indexes; the environment is closed again on failure.
 */
async function loadDirectory(dir: string, inner: ReturnType<typeof createEmbeddedStorage>, log: Pick<NonNullable<LmdbStorageOptions['log']>, 'info'>) {
  const { env, dbs } = openEnvironment(dir);
  const counters = new Map<SequenceName, number>();
  let documents = 0;
  try {
    const imported = await importLegacyDirectory(dir, (state) =>
      env.transaction(() => {
        for (const name of COLLECTION_NAMES) for (const doc of state.docs[name].values()) void dbs[name].put(doc._id, storable(doc, 'document'));
        for (const [sequence, value] of state.sequences) void dbs.sequences.put(sequence, value);
      }),
    );
    if (imported)
      log.info(
        `durable storage: imported ${imported.documents} documents of the write-ahead log into LMDB; its files are in ${imported.aside}${imported.torn ? ` (${imported.torn})` : ''}`,
      );
    for (const sequence of ['posts', 'terms'] as const) counters.set(sequence, (dbs.sequences.get(sequence) as number | undefined) ?? 0);
    for (const name of COLLECTION_NAMES) {
      const collection = inner[name] as unknown as Collection<Doc>;
      const sequence = SEQUENCE_OF[name];
      for (const { value } of dbs[name].getRange()) {
        await collection.insertOne(value as Doc);
        documents++;
        if (sequence && (value as Doc)._id > counters.get(sequence)!) counters.set(sequence, (value as Doc)._id);
      }
    }
    await inner.ensureIndexes().catch((error: unknown) => {
      throw new DataDirectoryCorruptError(`the stored documents violate an index: ${error instanceof Error ? error.message : String(error)}`);
    });
  } catch (error) {
    await env.close().catch(() => undefined);
    throw error;
  }
  return { env, dbs, counters, documents };
}

/** A collection of the engine whose writes are also queued in LMDB, each resolving once committed (or queued, `bulk`). */
function wrapCollection<T extends Doc>(db: Database, target: Collection<T>, writes: WriteQueue, bulk: boolean): Collection<T> {
  const { assertUsable, failWith, queued, mutate } = writes;
  /** Queues the documents as stored now (removals for those gone); a failure here leaves memory ahead of disk. */
  const postImages = async (ids: readonly number[]): Promise<{ committed: Promise<unknown> | null }> => {
    try {
      const docs = await Promise.all(ids.map((id) => target.findById(id)));
      const images = docs.map((doc) => doc && storable(doc, 'document'));
      // In an object: an async function returning the promise itself would wait for the commit.
      return { committed: queued(db.batch(() => ids.forEach((id, i) => void (images[i] === null ? db.remove(id) : db.put(id, images[i]))))) };
    } catch (error) {
      throw failWith(error);
    }
  };
  const reads = READS.map((method) => [method, async (...args: unknown[]) => (assertUsable(), (target[method] as (...a: unknown[]) => unknown)(...args))]);
  return {
    ...(Object.fromEntries(reads) as Pick<Collection<T>, (typeof READS)[number]>),
    insertOne: (doc) =>
      mutate(bulk, async () => {
        // Checked before the insert: a value that cannot be stored is refused before anything changes.
        const value = storable(doc, 'document');
        await target.insertOne(doc);
        return { result: undefined, committed: queued(db.put(doc._id, value)) };
      }),
    insertMany: (docs) =>
      mutate(bulk, async () => {
        const values = docs.map((doc, i) => storable(doc, `document ${i}`));
        const failures = await target.insertMany(docs);
        const failed = new Set(failures.map((failure) => failure.index));
        // One batch: lmdb-js then queues the puts without waking its writer thread for each.
        const write = db.batch(() => docs.forEach((doc, i) => failed.has(i) || void db.put(doc._id, values[i])));
        return { result: failures, committed: queued(write) };
      }),
    updateById: (id, update) =>
      mutate(bulk, async () => {
        storable(update, 'update');
        const doc = await target.updateById(id, update);
        return { result: doc, ...(doc === null ? { committed: null } : await postImages([id])) };
      }),
    updateMany: (filter, update) =>
      mutate(bulk, async () => {
        storable(update, 'update');
        // Same filter, same documents: their post-images are what the update changed.
        const ids = (await target.distinct('_id', filter)) as number[];
        const modified = await target.updateMany(filter, update);
        return { result: modified, ...(modified > 0 ? await postImages(ids) : { committed: null }) };
      }),
    deleteById: (id) =>
      mutate(bulk, async () => {
        const removed = await target.deleteById(id);
        return { result: removed, committed: removed ? queued(db.remove(id)) : null };
      }),
  };
}

export async function openLmdbStorage(options: LmdbStorageOptions): Promise<LmdbStorage> {
  const dir = resolve(options.dir);
  const log = options.log ?? { info: () => undefined, warn: () => undefined };
  await mkdir(dir, { recursive: true });
  const lock = await lockDirectory(dir);
  const started = performance.now();
  const inner = createEmbeddedStorage({ indexes: options.indexes, reason: options.reason });
  let loaded: Awaited<ReturnType<typeof loadDirectory>>;
  try {
    loaded = await loadDirectory(dir, inner, log);
  } catch (error) {
    await lock.release().catch(() => undefined);
    throw error;
  }
  const { env, dbs, counters, documents } = loaded;
  const stats = { dir, openMs: Math.round(performance.now() - started), documents };
  log.info(`durable storage: ${documents} documents read from ${dir} in ${stats.openMs} ms`);

  const writes = createWriteQueue(log, options.hooks);
  const { assertUsable, queued } = writes;
  let closing: Promise<void> | null = null;

  const collections = (bulk: boolean) =>
    Object.fromEntries(
      COLLECTION_NAMES.map((name) => [name, wrapCollection(dbs[name], inner[name] as unknown as Collection<Doc>, writes, bulk)]),
    ) as unknown as Pick<Storage, CollectionName>;

  const storage: LmdbStorage = {
    engine: 'embedded',
    reason: inner.reason,
    // Reads are the in-memory engine's (wrapCollection); only writes wait for LMDB.
    readsSettleAtOnce: true,
    ...collections(false),
    // The in-memory engine's writes, counted as each changes memory (before its commit is awaited).
    changeVersion: () => inner.changeVersion(),
    async nextId(sequence, count = 1) {
      assertUsable();
      assertIdCount(count);
      const first = (counters.get(sequence) ?? 0) + 1;
      counters.set(sequence, first + count - 1);
      // Not awaited: see the module comment. The counter holds the last id reserved.
      void queued(dbs.sequences.put(sequence, first + count - 1));
      return first;
    },
    async ensureIndexes() {
      assertUsable();
      await inner.ensureIndexes();
    },
    async ping() {
      assertUsable();
      await inner.ping();
    },
    bulkLoad: () => ({
      storage: { ...storage, ...collections(true) },
      settle: writes.settle,
    }),
    stats: () => stats,
    close() {
      closing ??= (async () => {
        // Writes already queued on the mutex finish and are committed with the rest.
        await writes.close();
        try {
          await env.close();
        } finally {
          await inner.close();
          await lock.release();
        }
        if (writes.failed()) log.warn('durable storage: closed after a write failure; unacknowledged writes may be missing');
      })();
      return closing;
    },
  };
  return storage;
}

/**
 * Rewrites a data directory's LMDB file without its free pages (LMDB reuses them but never shrinks
 * the file): a compacted copy, synced, renamed over it. Refused while a process has it open.
 */
export async function compactDataDirectory(dir: string): Promise<{ file: string; before: number; after: number }> {
  dir = resolve(dir);
  const file = join(dir, 'data.mdb');
  const before = (await stat(file).catch(() => null))?.size;
  if (before === undefined) throw new Error(`${dir} holds no LMDB data (data.mdb) to compact`);
  const lock = await lockDirectory(dir);
  const copyDir = join(dir, 'compacting');
  try {
    await rm(copyDir, { recursive: true, force: true });
    await mkdir(copyDir);
    const { env } = openEnvironment(dir);
    await env.backup(copyDir, true).finally(() => env.close());
    const copy = await openFile(join(copyDir, 'data.mdb'), 'r+');
    await copy.sync().finally(() => copy.close());
    await rename(join(copyDir, 'data.mdb'), file);
    // The lock file describes the old file's readers and transactions; LMDB makes a new one.
    await rm(join(dir, 'lock.mdb'), { force: true });
    await syncDirectory(dir);
    await rm(copyDir, { recursive: true, force: true });
    return { file, before, after: (await stat(file)).size };
  } finally {
    await lock.release();
  }
}
