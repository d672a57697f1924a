/**
 * The durable embedded engine (issue 9.4): the in-memory embedded engine, made crash-safe by a
 * write-ahead log in a data directory.
 *
 * - Reads go straight to the embedded engine.
 * - A write is applied to the embedded engine first (its unique indexes and refusals decide), then
 *   its effect is appended to the log as idempotent post-images — `put` of the whole document as
 *   stored, `del` of an id — and the call resolves only once those bytes are fdatasync'ed. Writes
 *   in flight together share one write+fdatasync (group-commit.ts). Writes are applied and logged
 *   one at a time (a mutex), so the log's order is the order in which the engine changed.
 * - Sequences are counted here; `nextId` logs `seq` and returns at once: its record is queued ahead
 *   of any record that can carry the id, so an acknowledged write implies its id is on disk, and
 *   recovery also raises each counter above the largest stored id.
 * - A failed append or fdatasync stops the storage: that write and every later call reject with
 *   StorageUnavailableError (readiness fails), because a write whose fate is unknown must never be
 *   reported as done. Restarting recovers from the disk.
 * - Compaction runs in the background when the log outgrows `max(compactMinBytes, compactRatio ×
 *   snapshot size)` — once writes pause, or at twice that size under a steady write load: start a
 *   new log generation, write a snapshot of the current state next to it (temp file, fdatasync,
 *   rename, directory fsync), then delete the older generations.
 *
 * - A bulk load (`bulkLoad()`: the seed command, acknowledged once by its report) writes through a
 *   view whose writes resolve once applied and logged in memory; the log syncs beside the load,
 *   and the load's `settle()` waits until all of it is on disk before anything is reported done.
 *
 * Reads can see a write that is not yet on disk (like MongoDB's readConcern "local"); a crash may
 * lose such a write, but never one that was acknowledged, and never anything logged before it.
 */
import { mkdir, open, rename } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { StorageUnavailableError } from '../../errors.js';
import { createEmbeddedStorage } from '../embedded/index.js';
import {
  assertIdCount,
  COLLECTION_NAMES,
  type Collection,
  type CollectionName,
  type IndexSet,
  type SequenceName,
  type Storage,
} from '../port.js';
import { type AppendFile, appendFileOf, lockDirectory, removeIfPresent, snapshotName, syncDirectory, walName } from './files.js';
import { GroupCommitLog } from './group-commit.js';
import { assertStorable, delRecord, endRecord, FORMAT, headerRecord, putRecord, putRecords, seqRecord } from './record.js';
import { DataDirectoryCorruptError, recover } from './recovery.js';

export { DataDirectoryCorruptError } from './recovery.js';
export { DataDirectoryLockedError, type AppendFile } from './files.js';

export type CompactionStep = 'rotated' | 'snapshot-written' | 'snapshot-renamed' | 'cleaned';

/** Seams for tests: fault injection and pauses between compaction steps. Production passes none. */
export interface DurableHooks {
  /** Wraps every file the engine appends to (logs and snapshots). */
  wrapFile?(file: AppendFile, path: string): AppendFile;
  /** Awaited after each compaction step; may stall (to copy the directory as a crash would leave it) or throw. */
  compactionStep?(step: CompactionStep, generation: number): void | Promise<void>;
}

export interface DurableStorageOptions {
  /** The data directory (created if missing); relative paths resolve against the working directory. */
  dir: string;
  indexes: IndexSet;
  reason: string;
  /** The log is compacted once it holds at least this many bytes… (default 64 MiB) */
  compactMinBytes?: number;
  /** …and at least this multiple of the last snapshot's size, so compaction costs O(writes) (default 1). */
  compactRatio?: number;
  /** A log past that size is compacted once writes pause this long, or at twice the size (default 250 ms). */
  compactionLullMs?: number;
  /** A bulk load's write waits until durable while more than this is queued for the log (default 32 MiB). */
  bulkQueueBytes?: number;
  log?: { info(msg: string): void; warn(msg: string): void };
  hooks?: DurableHooks;
}

export interface DurableStats {
  dir: string;
  generation: number;
  logBytes: number;
  snapshotBytes: number;
  compactions: number;
  recovery: {
    ms: number;
    documents: number;
    snapshotRecords: number;
    logRecords: number;
    logBytes: number;
    droppedBytes: number;
  };
}

export interface DurableStorage extends Storage {
  /** Compacts now (or joins the compaction under way); rejects if it fails. */
  compact(): Promise<void>;
  stats(): DurableStats;
}

const DEFAULT_COMPACT_MIN_BYTES = 64 * 1024 * 1024;
/** Pause in writes after which a log past the compaction threshold is compacted. */
const DEFAULT_COMPACTION_LULL_MS = 250;
/** Documents read per turn of the mutex while a snapshot is written (keeps writes flowing). */
const SNAPSHOT_SLICE = 256;
const SNAPSHOT_WRITE_BYTES = 1024 * 1024;
/** A bulk load's writes wait for the log while more than this is queued for it (memory stays bounded). */
const DEFAULT_BULK_QUEUE_BYTES = 32 * 1024 * 1024;

const POST_COLLECTIONS: readonly CollectionName[] = ['events', 'venues', 'organizers'];
const TERM_COLLECTIONS: readonly CollectionName[] = ['categories', 'tags'];
const SEQUENCE_COLLECTIONS: Record<SequenceName, readonly CollectionName[]> = { posts: POST_COLLECTIONS, terms: TERM_COLLECTIONS };

/** Runs async sections one at a time, in call order. */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(section: () => Promise<T>): Promise<T> {
    const result = this.tail.then(section);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

class CompactionAborted extends Error {
  constructor() {
    super('compaction aborted: the storage is closing');
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function openDurableStorage(options: DurableStorageOptions): Promise<DurableStorage> {
  const dir = resolve(options.dir);
  const log = options.log ?? { info: () => undefined, warn: () => undefined };
  const hooks = options.hooks ?? {};
  const wrap = (file: AppendFile, path: string): AppendFile => hooks.wrapFile?.(file, path) ?? file;
  const compactMinBytes = options.compactMinBytes ?? DEFAULT_COMPACT_MIN_BYTES;
  const compactRatio = options.compactRatio ?? 1;
  const compactionLullMs = options.compactionLullMs ?? DEFAULT_COMPACTION_LULL_MS;
  const bulkQueueBytes = options.bulkQueueBytes ?? DEFAULT_BULK_QUEUE_BYTES;

  await mkdir(dir, { recursive: true });
  const dirLock = await lockDirectory(dir);
  try {
    const started = performance.now();
    const state = await recover(dir);
    for (const warning of state.warnings) log.warn(`durable storage: ${warning}`);

    const inner = createEmbeddedStorage({ indexes: options.indexes, reason: options.reason });
    let documents = 0;
    for (const name of COLLECTION_NAMES) {
      const collection = inner[name] as unknown as Collection<{ _id: number }>;
      for (const doc of state.docs[name].values()) await collection.insertOne(doc);
      documents += state.docs[name].size;
      state.docs[name].clear();
    }
    try {
      await inner.ensureIndexes();
    } catch (error) {
      throw new DataDirectoryCorruptError(`the restored documents violate an index: ${errorMessage(error)}`);
    }
    const counters = new Map<SequenceName, number>();
    for (const sequence of ['posts', 'terms'] as const) {
      let top = state.sequences.get(sequence) ?? 0;
      for (const name of SEQUENCE_COLLECTIONS[sequence]) {
        const [last] = await inner[name].find({ filter: {}, sort: [['_id', -1]], limit: 1 });
        if (last !== undefined && last._id > top) top = last._id;
      }
      counters.set(sequence, top);
    }

    // The log to append to: the newest one, or generation 1 in a new directory. A log of an older
    // format is left as it is and a new generation begins: one file holds one format, so a version
    // that cannot read this one refuses it instead of misreading its newer records.
    const olderFormat = state.wal !== null && state.wal.format !== null && state.wal.format !== FORMAT;
    const fresh = state.wal === null || olderFormat;
    const generation = state.wal === null ? 1 : state.wal.generation + (olderFormat ? 1 : 0);
    const walPath = join(dir, walName(generation));
    const handle = await open(walPath, fresh ? 'wx' : 'a');
    const walFile = wrap(appendFileOf(handle), walPath);
    let walBytes = fresh ? 0 : state.wal!.bytes;
    try {
      if (fresh || state.wal?.format === null) {
        const header = headerRecord('wal', generation);
        await walFile.append([header]);
        await walFile.datasync();
        walBytes = header.length;
      }
      if (fresh) await syncDirectory(dir);
      for (const name of state.obsolete) await removeIfPresent(join(dir, name));
      if (state.obsolete.length > 0) await syncDirectory(dir);
    } catch (error) {
      await walFile.close().catch(() => undefined);
      throw error;
    }

    const recoveryStats: DurableStats['recovery'] = {
      ms: Math.round(performance.now() - started),
      documents,
      snapshotRecords: state.stats.snapshotRecords,
      logRecords: state.stats.logRecords,
      logBytes: state.stats.logBytes,
      droppedBytes: state.stats.droppedBytes,
    };
    log.info(
      `durable storage: ${documents} documents restored from ${dir} in ${recoveryStats.ms} ms ` +
        `(snapshot ${state.snapshotGeneration || 'none'}, ${recoveryStats.logRecords} log records)`,
    );

    return createDurable({
      dir,
      inner,
      counters,
      generation,
      snapshotBytes: state.snapshotBytes,
      walFile,
      walBytes,
      recoveryStats,
      compactMinBytes,
      compactRatio,
      compactionLullMs,
      bulkQueueBytes,
      log,
      hooks,
      wrap,
      releaseLock: () => dirLock.release(),
    });
  } catch (error) {
    await dirLock.release().catch(() => undefined);
    throw error;
  }
}

interface DurableParts {
  dir: string;
  inner: Storage;
  counters: Map<SequenceName, number>;
  generation: number;
  snapshotBytes: number;
  walFile: AppendFile;
  walBytes: number;
  recoveryStats: DurableStats['recovery'];
  compactMinBytes: number;
  compactRatio: number;
  compactionLullMs: number;
  bulkQueueBytes: number;
  log: { info(msg: string): void; warn(msg: string): void };
  hooks: DurableHooks;
  wrap: (file: AppendFile, path: string) => AppendFile;
  releaseLock: () => Promise<void>;
}

function createDurable(parts: DurableParts): DurableStorage {
  const { dir, inner, counters, log, hooks, wrap } = parts;
  let generation = parts.generation;
  let snapshotBytes = parts.snapshotBytes;
  let compactions = 0;
  let closed = false;
  let closing: Promise<void> | null = null;
  let compaction: Promise<void> | null = null;
  /** After a failed compaction, wait for this much more log before trying again. */
  let retryCompactionAt = 0;
  const mutex = new Mutex();

  const threshold = (): number => Math.max(parts.compactMinBytes, parts.compactRatio * snapshotBytes);
  /** Pending start of a compaction once writes pause (see `considerCompaction`). */
  let lull: NodeJS.Timeout | null = null;

  const startCompaction = (): void => {
    if (lull !== null) clearTimeout(lull);
    lull = null;
    if (compaction !== null || closed || wal.fileBytes < retryCompactionAt) return;
    compact().catch((error: unknown) => {
      if (error instanceof CompactionAborted) return;
      retryCompactionAt = wal.fileBytes + threshold();
      log.warn(`durable storage: compaction failed, the log keeps growing until the next attempt: ${errorMessage(error)}`);
    });
  };

  /**
   * After each group commit: a log past the threshold is compacted once writes pause for
   * `compactionLullMs`, or at once when it has grown to twice the threshold. Snapshotting a store
   * while a bulk load is still filling it (the seed CLI, an import) costs that load a second
   * encoding of everything stored so far (a 100,000-event load: ~1 s of its ~7); a steady write
   * load still compacts, at twice the log.
   */
  const considerCompaction = (bytes: number): void => {
    if (compaction !== null || closed || bytes < retryCompactionAt) return;
    const limit = threshold();
    if (bytes < limit) return;
    if (bytes >= 2 * limit) return startCompaction();
    if (lull !== null) lull.refresh();
    else {
      lull = setTimeout(startCompaction, parts.compactionLullMs);
      // A process that is done (a CLI run) does not wait for it: the next open compacts.
      lull.unref();
    }
  };
  const wal = new GroupCommitLog(parts.walFile, parts.walBytes, considerCompaction);
  // A log left past the threshold (a bulk load that ended) is compacted once the store is quiet.
  if (parts.walBytes >= threshold()) {
    lull = setTimeout(startCompaction, parts.compactionLullMs);
    lull.unref();
  }

  const unavailable = (): StorageUnavailableError => {
    const failure = wal.failed;
    if (failure !== null && !closed) {
      return new StorageUnavailableError({ key: 'errorMessage.storage-unavailable.notWritable', values: { detail: failure.message } });
    }
    return new StorageUnavailableError('errorMessage.storage-unavailable.durableClosed');
  };
  const assertUsable = (): void => {
    if (closed || wal.failed !== null) throw unavailable();
  };

  /** Stops the storage when memory and log may disagree. */
  const failWith = (error: unknown): StorageUnavailableError => {
    wal.fail(error instanceof Error ? error : new Error(String(error)));
    log.warn(`durable storage: stopped, writes are refused until restart: ${errorMessage(error)}`);
    return unavailable();
  };

  /**
   * Applies a write and queues its records under the mutex, then waits (outside it, so writes
   * group) until they are on disk. A write that changed nothing still waits for what is queued:
   * its answer may rest on writes not yet on disk. A bulk load's write (`bulk`) waits only while
   * more than `bulkQueueBytes` are queued (memory stays bounded); its load settles at the end.
   */
  async function mutate<R>(apply: () => Promise<{ result: R; records: readonly Buffer[] }>, bulk = false): Promise<R> {
    assertUsable();
    let durable!: Promise<void>;
    const result = await mutex.run(async () => {
      if (wal.failed !== null) throw unavailable();
      const out = await apply();
      durable = out.records.length > 0 ? wal.append(out.records) : wal.barrier();
      return out.result;
    });
    // A pause in writes is what lets compaction start: not a pause between group commits, which
    // a bulk load's larger ones can leave.
    lull?.refresh();
    if (bulk && wal.queuedBytes <= parts.bulkQueueBytes) {
      // One turn of the event loop, so that the log's write and fdatasync go on beside the load
      // (a caller whose awaits all resolve at once would otherwise never let them start).
      await new Promise<void>((resolve) => setImmediate(resolve));
      return result;
    }
    try {
      await durable;
    } catch {
      throw unavailable();
    }
    return result;
  }

  function wrapCollection<T extends { _id: number }>(name: CollectionName, target: Collection<T>, bulk = false): Collection<T> {
    /** The records after a write: the documents as now stored (a failure here leaves memory ahead of the log). */
    const postImages = async (ids: Iterable<number>): Promise<Buffer[]> => {
      try {
        const records: Buffer[] = [];
        for (const id of ids) {
          const doc = await target.findById(id);
          records.push(doc === null ? delRecord(name, id) : putRecord(name, doc));
        }
        return records;
      } catch (error) {
        throw failWith(error);
      }
    };
    return {
      insertOne: (doc) =>
        mutate(async () => {
          // Encoded before the insert: a value the log cannot hold is refused before anything changes.
          const record = putRecord(name, doc);
          await target.insertOne(doc);
          return { result: undefined, records: [record] };
        }, bulk),
      insertMany: (docs) =>
        mutate(async () => {
          // One buffer for the batch (encoded before the insert, like insertOne's record).
          const { data, ends } = putRecords(name, docs);
          const failures = await target.insertMany(docs);
          if (failures.length === 0) return { result: failures, records: docs.length === 0 ? [] : [data] };
          const failed = new Set(failures.map((failure) => failure.index));
          const records = ends.flatMap((end, i) => (failed.has(i) ? [] : [data.subarray(i === 0 ? 0 : ends[i - 1], end)]));
          return { result: failures, records };
        }, bulk),
      updateById: (id, update) =>
        mutate(async () => {
          assertStorable(update, 'update');
          const doc = await target.updateById(id, update);
          if (doc === null) return { result: null, records: [] };
          let record: Buffer;
          try {
            record = putRecord(name, doc);
          } catch (error) {
            throw failWith(error);
          }
          return { result: doc, records: [record] };
        }, bulk),
      updateMany: (filter, update) =>
        mutate(async () => {
          assertStorable(update, 'update');
          // Same filter, same documents: their post-images are what the update changed.
          const ids = (await target.distinct('_id', filter)) as number[];
          const modified = await target.updateMany(filter, update);
          return { result: modified, records: modified > 0 ? await postImages(ids) : [] };
        }, bulk),
      deleteById: (id) =>
        mutate(async () => {
          const removed = await target.deleteById(id);
          return { result: removed, records: removed ? [delRecord(name, id)] : [] };
        }, bulk),
      findById: async (id) => (assertUsable(), target.findById(id)),
      findOne: async (filter) => (assertUsable(), target.findOne(filter)),
      find: async (query) => (assertUsable(), target.find(query)),
      findPage: async (query) => (assertUsable(), target.findPage(query)),
      count: async (filter) => (assertUsable(), target.count(filter)),
      distinct: async (field, filter) => (assertUsable(), target.distinct(field, filter)),
      countValues: async (field, filter) => (assertUsable(), target.countValues(field, filter)),
      explain: async (query) => (assertUsable(), target.explain(query)),
      near: async (field, query) => (assertUsable(), target.near(field, query)),
    };
  }

  async function step(name: CompactionStep): Promise<void> {
    await hooks.compactionStep?.(name, generation);
  }

  /** Starts generation + 1 at a batch boundary: everything in the old log is on disk, later batches go to the new one. */
  async function rotate(): Promise<number> {
    const next = generation + 1;
    const path = join(dir, walName(next));
    await wal.pause();
    try {
      if (wal.failed !== null) throw unavailable();
      if (closed) throw new CompactionAborted();
      const file = wrap(appendFileOf(await open(path, 'wx')), path);
      const header = headerRecord('wal', next);
      try {
        await file.append([header]);
        await file.datasync();
        await syncDirectory(dir);
      } catch (error) {
        await file.close().catch(() => undefined);
        // A half-made newer log would hide a torn tail of the current one at recovery.
        await removeIfPresent(path).catch((removeError: unknown) => {
          throw failWith(removeError);
        });
        throw error;
      }
      const previous = wal.switchTo(file, header.length);
      generation = next;
      // Everything in it was fdatasync'ed; a failing close loses nothing.
      await previous.close().catch(() => undefined);
      return next;
    } finally {
      wal.resume();
    }
  }

  async function writeSnapshot(target: number): Promise<number> {
    const path = join(dir, `${snapshotName(target)}.tmp`);
    const file = wrap(appendFileOf(await open(path, 'w')), path);
    let bytes = 0;
    try {
      // Records go out SNAPSHOT_WRITE_BYTES at a time, as one gathered write (no copy into one buffer).
      let chunk: Buffer[] = [];
      let chunkLength = 0;
      const flushChunk = async (): Promise<void> => {
        const lines = chunk;
        const length = chunkLength;
        chunk = [];
        chunkLength = 0;
        await file.append(lines);
        bytes += length;
      };
      const out = async (lines: readonly Buffer[]): Promise<void> => {
        for (const line of lines) {
          chunk.push(line);
          chunkLength += line.length;
        }
        if (chunkLength >= SNAPSHOT_WRITE_BYTES) await flushChunk();
      };
      await out([headerRecord('snapshot', target)]);
      let count = 0;
      for (const name of COLLECTION_NAMES) {
        const collection = inner[name] as unknown as Collection<{ _id: number }>;
        // The ids present now; later inserts are in the new log. Slices are read between writes
        // (under the mutex), so the snapshot never holds half of a write.
        const ids = (await mutex.run(() => collection.distinct('_id', {}))) as number[];
        for (let i = 0; i < ids.length; i += SNAPSHOT_SLICE) {
          if (closed) throw new CompactionAborted();
          const lines = await mutex.run(async () => {
            const slice: Buffer[] = [];
            for (const id of ids.slice(i, i + SNAPSHOT_SLICE)) {
              const doc = await collection.findById(id);
              if (doc !== null) slice.push(putRecord(name, doc));
            }
            return slice;
          });
          count += lines.length;
          await out(lines);
        }
      }
      const sequences = [...counters].map(([sequence, value]) => seqRecord(sequence, value));
      count += sequences.length;
      await out([...sequences, endRecord(count)]);
      await flushChunk();
      await file.datasync();
      await file.close();
    } catch (error) {
      await file.close().catch(() => undefined);
      await removeIfPresent(path).catch(() => undefined);
      throw error;
    }
    return bytes;
  }

  async function runCompaction(): Promise<void> {
    const target = await rotate();
    await step('rotated');
    const tmp = join(dir, `${snapshotName(target)}.tmp`);
    const bytes = await writeSnapshot(target);
    try {
      await step('snapshot-written');
      // The snapshot may show writes still queued; it must not outlive the log holding them.
      await wal.barrier();
      if (closed) throw new CompactionAborted();
      await rename(tmp, join(dir, snapshotName(target)));
      await syncDirectory(dir);
    } catch (error) {
      await removeIfPresent(tmp).catch(() => undefined);
      throw error;
    }
    snapshotBytes = bytes;
    compactions++;
    await step('snapshot-renamed');
    // Only now are the older generations redundant.
    for (let old = target - 1; old >= 1; old--) {
      await removeIfPresent(join(dir, walName(old)));
      await removeIfPresent(join(dir, snapshotName(old)));
    }
    await syncDirectory(dir);
    await step('cleaned');
  }

  function compact(): Promise<void> {
    if (compaction !== null) return compaction;
    if (closed) return Promise.reject(unavailable());
    compaction = runCompaction().finally(() => {
      compaction = null;
    });
    return compaction;
  }

  const storage: DurableStorage = {
    engine: 'embedded',
    reason: inner.reason,
    events: wrapCollection('events', inner.events),
    venues: wrapCollection('venues', inner.venues),
    organizers: wrapCollection('organizers', inner.organizers),
    categories: wrapCollection('categories', inner.categories),
    tags: wrapCollection('tags', inner.tags),
    idempotency: wrapCollection('idempotency', inner.idempotency),
    async nextId(sequence, count = 1) {
      assertUsable();
      assertIdCount(count);
      const first = (counters.get(sequence) ?? 0) + 1;
      const last = first + count - 1;
      counters.set(sequence, last);
      // Not awaited: see the module comment. The record holds the last id reserved.
      void wal.append([seqRecord(sequence, last)]);
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
    bulkLoad() {
      const view: Storage = {
        ...storage,
        events: wrapCollection('events', inner.events, true),
        venues: wrapCollection('venues', inner.venues, true),
        organizers: wrapCollection('organizers', inner.organizers, true),
        categories: wrapCollection('categories', inner.categories, true),
        tags: wrapCollection('tags', inner.tags, true),
        idempotency: wrapCollection('idempotency', inner.idempotency, true),
      };
      return {
        storage: view,
        async settle() {
          assertUsable();
          try {
            await wal.barrier();
          } catch {
            throw unavailable();
          }
        },
      };
    },
    compact,
    stats: () => ({
      dir,
      generation,
      logBytes: wal.fileBytes,
      snapshotBytes,
      compactions,
      recovery: parts.recoveryStats,
    }),
    close() {
      closing ??= (async () => {
        closed = true;
        if (lull !== null) clearTimeout(lull);
        // Writes already queued on the mutex finish and are flushed with the rest.
        await mutex.run(async () => undefined);
        await compaction?.catch(() => undefined);
        try {
          await wal.close();
        } finally {
          await inner.close();
          await parts.releaseLock();
        }
        if (wal.failed !== null) log.warn('durable storage: closed after a write failure; unacknowledged writes may be missing');
      })();
      return closing;
    },
  };
  return storage;
}
