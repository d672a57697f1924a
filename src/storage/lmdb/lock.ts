/**
 * One process per data directory. LMDB lets processes share an environment, but the embedded
 * engine answers reads from memory and would miss another process's writes. `lock` is created
 * exclusively (O_EXCL) and holds our pid; a lock whose process is gone (a crash, kill -9) is taken
 * over, one held by a live process is refused — this one included when it holds the directory.
 *
 * A lock naming this process's pid that this process does not hold was left by an earlier process
 * that had the same pid: in a container the server is pid 1 on every start, so after an unclean
 * stop the lock names the new process itself. It is stale, and taken over.
 */
import { constants } from 'node:fs';
import { open, readFile, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** The directories this process holds the lock of (resolved paths). */
const held = new Set<string>();

/** The directory is open in another live process. */
export class DataDirectoryLockedError extends Error {
  constructor(dir: string, pid: number) {
    super(
      `The data directory ${dir} is in use by ${pid > 0 ? `process ${pid}` : 'another process'}. Stop that process, or if it is not ours, remove ${join(dir, 'lock')}.`,
    );
    this.name = 'DataDirectoryLockedError';
  }
}

/** Makes the directory's entries (created, renamed, deleted files) durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  await handle.sync().finally(() => handle.close());
}

/** The pid in the lock file; null when it is missing or not (yet) written. */
const readPid = (path: string): Promise<number | null> =>
  readFile(path, 'utf8').then(
    (text) => Number.parseInt(text, 10) || null,
    (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? null : Promise.reject(error)),
  );

function isAlive(pid: number): boolean {
  try {
    return process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function lockDirectory(dir: string): Promise<{ release(): Promise<void> }> {
  const path = join(dir, 'lock');
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(path, 'wx');
      await handle
        .writeFile(`${process.pid}\n`)
        .then(() => handle.sync())
        .finally(() => handle.close());
      held.add(resolve(dir));
      return {
        release: async () => {
          held.delete(resolve(dir));
          // Only our own lock is removed: never one another process took over.
          if ((await readPid(path)) === process.pid) await rm(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw error;
    }
    const holder = await readPid(path);
    const ours = holder === process.pid;
    if (holder !== null && (ours ? held.has(resolve(dir)) : isAlive(holder))) throw new DataDirectoryLockedError(dir, holder);
    // An empty lock is stale only when old: a fresh one is another process between create and write.
    const age = Date.now() - ((await stat(path).catch(() => null))?.mtimeMs ?? 0);
    if (holder === null && age < 5_000) throw new DataDirectoryLockedError(dir, 0);
    // Stale (or empty after a crash between create and write): re-checked right before removing.
    if ((await readPid(path)) === holder) await rm(path, { force: true });
  }
}
