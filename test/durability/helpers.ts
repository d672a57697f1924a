/**
 * Shared pieces of the durability tests: temporary data directories, a crash image of one (what a
 * kill -9 leaves: the files as written, without our lock), and a full dump of a storage's state.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { indexes } from '../../indexes/index.js';
import { type DurableStorage, type DurableStorageOptions, openDurableStorage } from '../../src/storage/durable/index.js';
import { COLLECTION_NAMES, type CollectionName, type Storage } from '../../src/storage/port.js';

export async function makeTempDir(prefix = 'calendar-durable-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

export function open(dir: string, options: Partial<DurableStorageOptions> = {}): Promise<DurableStorage> {
  return openDurableStorage({ dir, indexes, reason: 'test', ...options });
}

/** Copies the data files (not the lock) of a directory in use: the disk as a crash would leave it. */
export async function crashImage(dir: string): Promise<string> {
  const copy = await makeTempDir('calendar-durable-crash-');
  await mkdir(copy, { recursive: true });
  for (const name of await readdir(dir)) {
    if (name !== 'lock') await copyFile(join(dir, name), join(copy, name));
  }
  return copy;
}

export type Dump = Record<CollectionName, unknown[]>;

/** Every document of every collection, by id. */
export async function dump(storage: Storage): Promise<Dump> {
  const out = {} as Dump;
  for (const name of COLLECTION_NAMES) {
    out[name] = await (storage[name] as Storage['tags']).find({ filter: {}, sort: [['_id', 1]] });
  }
  return out;
}

/** The pid of a process that has exited (for stale-lock tests). */
export function deadPid(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve(child.pid!));
  });
}

export function recordingLog() {
  const warnings: string[] = [];
  const infos: string[] = [];
  return { warnings, infos, info: (msg: string) => void infos.push(msg), warn: (msg: string) => void warnings.push(msg) };
}

/**
 * The description the crash load gives event `id`: every seventh one long (20–56 KB of ASCII, then
 * text past it), the case the record encoder once wrote with a hole under a valid checksum. No
 * emoji: a string with surrogates is written through JSON.stringify whole, which hid that case.
 */
export function crashDescription(id: number): string {
  return id % 7 === 0 ? `${'a'.repeat(20_000 + (id % 13) * 3_000)} é € ${id}` : `Event ${id}`;
}
