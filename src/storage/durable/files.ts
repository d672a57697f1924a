/**
 * The data directory of the durable embedded engine:
 *
 *     lock                       pid of the process that has the directory open
 *     snapshot-<generation>.snap the state before wal-<generation>.log (absent for generation 1)
 *     wal-<generation>.log       the write-ahead log, appended to and fdatasync'ed per group commit
 *     *.tmp                      a snapshot being written (deleted at open: never renamed, never complete)
 *     *.dropped                  bytes cut from a torn log tail at recovery, kept for inspection
 */
import { constants } from 'node:fs';
import { type FileHandle, open, readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** The operations the log writer needs from an open file (a seam for fault-injection tests). */
export interface AppendFile {
  /**
   * Writes all of `chunks`, in order, at the end of the file: one gathered write (writev), not a
   * copy of them into one buffer first. (A group commit during a bulk load gathers several batches
   * of a megabyte; joining them cost a copy into memory never touched before, page faults included.)
   */
  append(chunks: readonly Buffer[]): Promise<void>;
  datasync(): Promise<void>;
  close(): Promise<void>;
}

export function appendFileOf(handle: FileHandle): AppendFile {
  return {
    async append(chunks) {
      let rest = chunks.filter((chunk) => chunk.length > 0);
      while (rest.length > 0) {
        const { bytesWritten } = await handle.writev(rest);
        rest = unwritten(rest, bytesWritten);
      }
    },
    datasync: () => handle.datasync(),
    close: () => handle.close(),
  };
}

/** What is left of `chunks` once their first `written` bytes are out (a short write). */
export function unwritten(chunks: readonly Buffer[], written: number): Buffer[] {
  let skip = written;
  let first = 0;
  while (first < chunks.length && skip >= chunks[first]!.length) skip -= chunks[first++]!.length;
  if (first === chunks.length) return [];
  return [chunks[first]!.subarray(skip), ...chunks.slice(first + 1)];
}

const pad = (generation: number): string => String(generation).padStart(8, '0');
export const walName = (generation: number): string => `wal-${pad(generation)}.log`;
export const snapshotName = (generation: number): string => `snapshot-${pad(generation)}.snap`;

export interface DirectoryListing {
  /** Generations with a log file, ascending. */
  wals: number[];
  /** Generations with a (renamed, hence complete) snapshot, ascending. */
  snapshots: number[];
  /** Unfinished snapshot files. */
  temporary: string[];
}

export async function listDirectory(dir: string): Promise<DirectoryListing> {
  const listing: DirectoryListing = { wals: [], snapshots: [], temporary: [] };
  for (const name of await readdir(dir)) {
    let match = /^wal-(\d{8,})\.log$/.exec(name);
    if (match) {
      listing.wals.push(Number(match[1]));
      continue;
    }
    match = /^snapshot-(\d{8,})\.snap$/.exec(name);
    if (match) {
      listing.snapshots.push(Number(match[1]));
      continue;
    }
    if (/^snapshot-\d{8,}\.snap\.tmp$/.test(name)) listing.temporary.push(name);
  }
  listing.wals.sort((a, b) => a - b);
  listing.snapshots.sort((a, b) => a - b);
  return listing;
}

/** Makes the directory's entries (created, renamed, deleted files) durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function removeIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** The directory is open in another live process. */
export class DataDirectoryLockedError extends Error {
  constructor(dir: string, pid: number) {
    super(
      `The data directory ${dir} is in use by ${pid > 0 ? `process ${pid}` : 'another process'}. ` +
        `Stop that process, or if it is not ours, remove ${join(dir, 'lock')}.`,
    );
    this.name = 'DataDirectoryLockedError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Modification time in ms, 0 when the file is gone. */
async function statOrNull(path: string): Promise<number> {
  try {
    return (await stat(path)).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

async function readPid(path: string): Promise<number | null> {
  try {
    const pid = Number.parseInt((await readFile(path, 'utf8')).trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

export interface DirectoryLock {
  release(): Promise<void>;
}

/**
 * One process per data directory: `lock` is created exclusively (O_EXCL) and holds our pid. A lock
 * whose process is gone (a crash, kill -9) is taken over; one held by a live process — this one
 * included, so a directory is never opened twice — is refused.
 */
export async function lockDirectory(dir: string): Promise<DirectoryLock> {
  const path = join(dir, 'lock');
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(path, 'wx');
      try {
        await handle.writeFile(`${process.pid}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      return {
        async release() {
          // Only our own lock: never remove one another process took over.
          if ((await readPid(path)) === process.pid) await removeIfPresent(path);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw error;
    }
    const holder = await readPid(path);
    if (holder !== null && isAlive(holder)) throw new DataDirectoryLockedError(dir, holder);
    // An empty lock is stale only when old: a fresh one is another process between create and write.
    if (holder === null && Date.now() - (await statOrNull(path)) < 5_000) throw new DataDirectoryLockedError(dir, 0);
    // Stale (or an empty file from a crash between create and write): re-check right before removing.
    if ((await readPid(path)) === holder) await removeIfPresent(path);
  }
}
