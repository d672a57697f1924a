/**
 * Group commit over an append-only file: records appended while a write+fdatasync is under way are
 * collected and go out together in the next one, so one fdatasync acknowledges as many writes as
 * are in flight (throughput grows with concurrency; a lone writer waits one fdatasync).
 *
 * A failed write or fdatasync is final: after fsync failure the kernel may have dropped the dirty
 * pages, so retrying could report success for bytes that are gone. Every waiting and later append
 * rejects; the storage above turns that into StorageUnavailableError.
 */
import { type AppendFile } from './files.js';

interface Batch {
  lines: Buffer[];
  bytes: number;
  done: Promise<void>;
  resolve: () => void;
  reject: (error: Error) => void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const done = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Callers that do not wait (nextId) must not turn a failure into an unhandled rejection.
  done.catch(() => undefined);
  return { lines: [], bytes: 0, done, resolve, reject };
}

export class GroupCommitLog {
  private file: AppendFile;
  /** Bytes in the current file (valid records only). */
  private bytes: number;
  private pending: Batch = newBatch();
  private inFlight: Promise<void> | null = null;
  /** The batch being written; its `done` settles with the write (inFlight always fulfils). */
  private writing: Batch | null = null;
  private scheduled = false;
  private paused = false;
  private failure: Error | null = null;
  private readonly onFlushed: (bytes: number) => void;

  constructor(file: AppendFile, bytes: number, onFlushed: (fileBytes: number) => void = () => undefined) {
    this.file = file;
    this.bytes = bytes;
    this.onFlushed = onFlushed;
  }

  /** The error that stopped the log, or null while it works. */
  get failed(): Error | null {
    return this.failure;
  }

  get fileBytes(): number {
    return this.bytes;
  }

  /** Bytes appended and not yet on disk (queued, or being written). */
  get queuedBytes(): number {
    return this.pending.bytes + (this.writing?.bytes ?? 0);
  }

  /** Queues framed records; resolves once they are on disk (in order with every earlier record). */
  append(lines: readonly Buffer[]): Promise<void> {
    if (this.failure !== null) return Promise.reject(this.failure);
    for (const line of lines) {
      this.pending.lines.push(line);
      this.pending.bytes += line.length;
    }
    this.schedule();
    return this.pending.done;
  }

  /** Resolves once everything appended so far is on disk. */
  barrier(): Promise<void> {
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.pending.lines.length > 0) return this.pending.done;
    return this.writing?.done ?? Promise.resolve();
  }

  /** Waits for the write under way and holds later ones back (records still queue). */
  async pause(): Promise<void> {
    this.paused = true;
    await this.inFlight?.catch(() => undefined);
  }

  resume(): void {
    this.paused = false;
    this.schedule();
  }

  /** While paused: later batches go to `file`, which holds `bytes` already. Returns the previous file. */
  switchTo(file: AppendFile, bytes: number): AppendFile {
    if (!this.paused) throw new Error('switchTo needs the log paused');
    const previous = this.file;
    this.file = file;
    this.bytes = bytes;
    return previous;
  }

  /** Stops the log for good (used when the storage closes or fails elsewhere). */
  fail(error: Error): void {
    if (this.failure !== null) return;
    this.failure = error;
    this.pending.reject(error);
  }

  /** Writes what is queued, then closes the file. */
  async close(): Promise<void> {
    this.paused = false;
    while (this.failure === null && (this.pending.lines.length > 0 || this.inFlight !== null)) {
      if (this.inFlight === null) this.flush();
      await this.inFlight?.catch(() => undefined);
    }
    await this.file.close();
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight !== null || this.paused || this.pending.lines.length === 0) return;
    this.scheduled = true;
    // Once per turn of the event loop: the writes of this turn share the first fdatasync.
    setImmediate(() => {
      this.scheduled = false;
      if (this.inFlight === null && !this.paused && this.failure === null && this.pending.lines.length > 0) this.flush();
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = newBatch();
    this.writing = batch;
    this.inFlight = (async () => {
      try {
        await this.file.append(batch.lines);
        await this.file.datasync();
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        this.failure ??= failure;
        batch.reject(this.failure);
        this.pending.reject(this.failure);
        return;
      } finally {
        this.inFlight = null;
        this.writing = null;
      }
      this.bytes += batch.bytes;
      batch.resolve();
      this.onFlushed(this.bytes);
      // Records that arrived during this write: out at once, they have waited one fdatasync already.
      if (!this.paused && this.pending.lines.length > 0) this.flush();
    })();
  }
}
