/**
 * Shared pieces of the durability tests: temporary data directories, a crash image of one (what a
 * kill -9 leaves: the files as written, without our lock), a full dump of a storage's state, and the
 * server as a child process.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { indexes } from '../../indexes/index.js';
import { type LmdbStorage, type LmdbStorageOptions, openLmdbStorage } from '../../src/storage/lmdb/index.js';
import { COLLECTION_NAMES, type CollectionName, type Storage } from '../../src/storage/port.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOKEN = 'durability-editor-token-0123456789';
export const AUTH = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
export const API = '/calendar/events/v1';

export async function makeTempDir(prefix = 'calendar-durable-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

export function open(dir: string, options: Partial<LmdbStorageOptions> = {}): Promise<LmdbStorage> {
  return openLmdbStorage({ dir, indexes, reason: 'test', ...options });
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
 * text past it), so records span several LMDB pages (overflow pages) and commits are large.
 */
export function crashDescription(id: number): string {
  return id % 7 === 0 ? `${'a'.repeat(20_000 + (id % 13) * 3_000)} é € ${id}` : `Event ${id}`;
}

export interface Server {
  child: ChildProcess;
  base: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  output: () => string;
}

/** `src/server.ts` as a child process on `dataDir` (no rate limits, no seeding), once it listens. */
export async function startServer(dataDir: string): Promise<Server> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !['MONGODB_URI', 'STORAGE', 'PORT', 'HOST', 'SEED_ON_START'].includes(key)) env[key] = value;
  }
  Object.assign(env, {
    DATA_DIR: dataDir,
    STORAGE: 'embedded',
    PORT: '0',
    HOST: '127.0.0.1',
    API_TOKENS: `editor:${TOKEN}`,
    SEED_ON_START: 'false',
    RATE_LIMIT_READS: '0',
    RATE_LIMIT_WRITES: '0',
    RATE_LIMIT_TOKEN_READS: '0',
    RATE_LIMIT_TOKEN_WRITES: '0',
    LOG_LEVEL: 'info',
  });
  // node with tsx as a loader: the signals reach the server itself, not a wrapper around it.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() }));
  });
  const base = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(({ code, signal }) => reject(new Error(`server exited (${code ?? signal}) before listening:\n${output}`)));
  });
  return { child, base, exited, output: () => output };
}
