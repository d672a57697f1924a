/**
 * Reads a data directory written by the write-ahead-log engine that LMDB replaced, once, at the
 * first open: its documents and counters are handed to `store` (one LMDB transaction), then its
 * files are moved into `legacy-log-<time>/` beside the LMDB files. Decode-only: nothing here writes
 * that format.
 *
 * That format: files `snapshot-<generation>.snap` (the state before the log of its generation) and
 * `wal-<generation>.log`, one record a line, `<crc32 of the JSON, 8 hex digits> <byte length> <JSON>`,
 * the JSON an array — `["put", collection, document]`, `["del", collection, id]`,
 * `["seq", sequence, value]`, the headers `["wal" | "snapshot", format, generation]` and a
 * snapshot's trailer `["end", count]`. A Date is `{"$date": ms}` (an ISO string in format 1, null
 * when invalid), a number JSON cannot carry `{"$number": "NaN" | "Infinity" | "-Infinity" | "-0"}`.
 *
 * As that engine did at its start: the newest snapshot, then every log from its generation on. A
 * bad record ends the newest log (a crash during an append: what follows is not read); anywhere else
 * no crash can leave one, so the import stops with DataDirectoryCorruptError and changes nothing.
 */
import { mkdir, readdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { COLLECTION_NAMES, type CollectionName, type SequenceName } from '../port.js';
import { syncDirectory } from './lock.js';

export class DataDirectoryCorruptError extends Error {
  constructor(message: string) {
    super(`The data directory cannot be opened safely: ${message}`);
    this.name = 'DataDirectoryCorruptError';
  }
}

export type LegacyDocument = { _id: number } & Record<string, unknown>;

export interface LegacyState {
  docs: Record<CollectionName, Map<number, LegacyDocument>>;
  sequences: Map<SequenceName, number>;
  /** Where the newest log ended early (a crash during an append), if it did. */
  torn: string | null;
}

const FILE = /^(wal|snapshot)-(\d{8,})\.(log|snap)(\..+)?$/;
const READABLE_FORMATS = [1, 2, 3];

/** JSON.parse's reviver: the format's tags back to Dates and numbers (its result is an own data property, `__proto__` included). */
function revive(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const tag = (value as Record<string, unknown>)[keys[0]!];
  if (keys.length === 1 && keys[0] === '$date') return new Date(typeof tag === 'number' || typeof tag === 'string' ? tag : Number.NaN);
  if (keys.length === 1 && keys[0] === '$number') return Number(tag);
  return value;
}

/** The records of one file, in order, up to the first that does not check out (then `bad` says where). */
function records(bytes: Buffer): { records: unknown[][]; bad: string | null } {
  const out: unknown[][] = [];
  let at = 0;
  while (at < bytes.length) {
    const head = /^([0-9a-f]{8}) (\d{1,10}) /.exec(bytes.subarray(at, at + 20).toString('latin1'));
    const start = at + (head?.[0].length ?? 0);
    const end = start + Number(head?.[2]);
    const body = bytes.subarray(start, end);
    if (!head || end >= bytes.length || bytes[end] !== 0x0a || (crc32(body) >>> 0).toString(16).padStart(8, '0') !== head[1]) {
      return { records: out, bad: `byte ${at}` };
    }
    try {
      out.push(JSON.parse(body.toString('utf8'), revive) as unknown[]);
    } catch {
      return { records: out, bad: `byte ${at}` };
    }
    at = end + 1;
  }
  return { records: out, bad: null };
}

/** Reads the legacy files among `names` in `dir` (null when none holds data). */
export async function readLegacyDirectory(dir: string, names: readonly string[]): Promise<LegacyState | null> {
  const generations = (kind: string) =>
    names
      .flatMap((name) => {
        const match = FILE.exec(name);
        return match?.[1] === kind && match[4] === undefined ? [Number(match[2])] : [];
      })
      .sort((a, b) => a - b);
  const base = generations('snapshot').at(-1) ?? 0;
  const logs = generations('wal').filter((generation) => generation >= base);
  if (base === 0 && logs.length === 0) return null;
  const pad = (generation: number) => String(generation).padStart(8, '0');
  // The logs from the snapshot's generation (or the first) on, none missing.
  const gap = Array.from({ length: Math.max(logs.length, 1) }, (_, i) => Math.max(base, 1) + i).find((generation, i) => logs[i] !== generation);
  if (gap !== undefined) throw new DataDirectoryCorruptError(`wal-${pad(gap)}.log is missing`);

  const state: LegacyState = {
    docs: Object.fromEntries(COLLECTION_NAMES.map((name) => [name, new Map()])) as LegacyState['docs'],
    sequences: new Map(),
    torn: null,
  };
  const files = [...(base > 0 ? [`snapshot-${pad(base)}.snap`] : []), ...logs.map((generation) => `wal-${pad(generation)}.log`)];
  for (const [i, name] of files.entries()) {
    const snapshot = name.endsWith('.snap');
    const read = records(await readFile(join(dir, name)));
    if (read.bad !== null) {
      if (i < files.length - 1) throw new DataDirectoryCorruptError(`${name} has a bad record at ${read.bad}, and it is not the newest log`);
      state.torn = `${name} ends in a torn or bad record at ${read.bad}; what follows it was not imported`;
    }
    const [header, ...body] = read.records;
    // A newest log whose header was never complete holds nothing.
    if (header === undefined) continue;
    if (header[0] !== (snapshot ? 'snapshot' : 'wal') || header[2] !== Number(FILE.exec(name)![2]))
      throw new DataDirectoryCorruptError(`${name} has no header`);
    if (!READABLE_FORMATS.includes(header[1] as number))
      throw new DataDirectoryCorruptError(`${name} is in format ${String(header[1])}; this version reads ${READABLE_FORMATS.join(', ')}`);
    if (snapshot && JSON.stringify(body.pop()) !== JSON.stringify(['end', body.length])) throw new DataDirectoryCorruptError(`${name} is incomplete`);
    for (const record of body) {
      const [type, a, b] = record;
      const docs = (COLLECTION_NAMES as readonly unknown[]).includes(a) ? state.docs[a as CollectionName] : null;
      if (type === 'put' && docs && typeof (b as LegacyDocument | null)?._id === 'number') docs.set((b as LegacyDocument)._id, b as LegacyDocument);
      else if (type === 'del' && docs && typeof b === 'number') docs.delete(b);
      else if (type === 'seq' && (a === 'posts' || a === 'terms') && typeof b === 'number') state.sequences.set(a, Math.max(b, state.sequences.get(a) ?? 0));
      else throw new DataDirectoryCorruptError(`${name} holds a record this version cannot read: ${JSON.stringify(record).slice(0, 200)}`);
    }
  }
  return state;
}

/**
 * Imports a legacy directory: `store` commits the state; only then are the old files moved aside
 * (a crash in between imports the same state again at the next open). Returns the folder they are
 * in, or null when there was nothing to import.
 */
export async function importLegacyDirectory(
  dir: string,
  store: (state: LegacyState) => Promise<void>,
): Promise<{ aside: string; documents: number; torn: string | null } | null> {
  const names = (await readdir(dir)).filter((name) => FILE.test(name));
  const state = await readLegacyDirectory(dir, names);
  if (state === null && names.length === 0) return null;
  if (state !== null) await store(state);
  const aside = join(dir, `legacy-log-${new Date().toISOString().replaceAll(':', '-')}`);
  await mkdir(aside);
  for (const name of names) await rename(join(dir, name), join(aside, name));
  await syncDirectory(aside);
  await syncDirectory(dir);
  return { aside, documents: state === null ? 0 : Object.values(state.docs).reduce((n, docs) => n + docs.size, 0), torn: state?.torn ?? null };
}
