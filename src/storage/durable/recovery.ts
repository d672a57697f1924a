/**
 * Recovery at open: the newest snapshot, then every log generation from it on, in order. Records
 * are idempotent post-images (`put` the whole document, `del` an id, `seq` a counter), so replaying
 * one already reflected in the snapshot is harmless, and the last record of an id decides.
 *
 * Only the tail of the newest log may be bad (a crash during an append): it is cut off, the cut
 * bytes are kept next to it as `<log>.<offset>.dropped`, and recovery goes on. A bad record
 * anywhere else (an older log, a snapshot) cannot come from a crash, since those files were
 * complete and fdatasync'ed before the next generation began: opening then fails, naming the file
 * and offset, rather than guess. Recovery never skips a bad record to read on after it.
 */
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { COLLECTION_NAMES, type CollectionName, type SequenceName } from '../port.js';
import { listDirectory, removeIfPresent, snapshotName, syncDirectory, walName } from './files.js';
import { type LogRecord, READABLE_FORMATS, type ScanResult, scanRecords, type StoredDocument } from './record.js';

export class DataDirectoryCorruptError extends Error {
  constructor(message: string) {
    super(`The data directory cannot be opened safely: ${message}`);
    this.name = 'DataDirectoryCorruptError';
  }
}

export interface RecoveredState {
  docs: Record<CollectionName, Map<number, StoredDocument>>;
  sequences: Map<SequenceName, number>;
  /** The newest log, or null in a new directory; `format` null when it has no header yet (torn). */
  wal: { generation: number; bytes: number; format: number | null } | null;
  /** The snapshot recovery started from (0: none). */
  snapshotGeneration: number;
  snapshotBytes: number;
  /** Files of generations before the snapshot, left by a crash before compaction removed them. */
  obsolete: string[];
  stats: { snapshotRecords: number; logRecords: number; logBytes: number; droppedBytes: number };
  warnings: string[];
}

async function cutTail(dir: string, name: string, scan: ScanResult): Promise<string> {
  const path = join(dir, name);
  const stop = scan.stop!;
  const keep = join(dir, `${name}.${stop.offset}.dropped`);
  const handle = await open(path, 'r+');
  try {
    // Keep the bytes we are about to remove: a torn append is garbage, corruption is evidence.
    const length = scan.fileBytes - stop.offset;
    const tail = Buffer.allocUnsafe(length);
    await handle.read(tail, 0, length, stop.offset);
    await writeFile(keep, tail, { flush: true });
    await handle.truncate(scan.validBytes);
    await handle.datasync();
  } finally {
    await handle.close();
  }
  await syncDirectory(dir);
  return (
    `${name}: ${stop.kind === 'incomplete' ? 'torn' : 'corrupt'} tail at byte ${stop.offset} (${stop.detail}); ` +
    `${scan.fileBytes - stop.offset} bytes cut and kept in ${keep}`
  );
}

function checkFormat(name: string, format: number): void {
  if (!READABLE_FORMATS.includes(format)) throw new DataDirectoryCorruptError(`${name} is in format ${format}; this version reads ${READABLE_FORMATS.join(', ')}`);
}

export async function recover(dir: string): Promise<RecoveredState> {
  const listing = await listDirectory(dir);
  for (const name of listing.temporary) await removeIfPresent(join(dir, name));

  const docs = Object.fromEntries(COLLECTION_NAMES.map((name) => [name, new Map<number, StoredDocument>()])) as RecoveredState['docs'];
  const sequences = new Map<SequenceName, number>();
  const apply = (record: LogRecord): void => {
    switch (record.type) {
      case 'put':
        docs[record.collection].set(record.doc._id, record.doc);
        break;
      case 'del':
        docs[record.collection].delete(record.id);
        break;
      case 'seq':
        if (record.value > (sequences.get(record.sequence) ?? 0)) sequences.set(record.sequence, record.value);
        break;
      default:
        break;
    }
  };
  const state: RecoveredState = {
    docs,
    sequences,
    wal: null,
    snapshotGeneration: 0,
    snapshotBytes: 0,
    obsolete: [],
    stats: { snapshotRecords: 0, logRecords: 0, logBytes: 0, droppedBytes: 0 },
    warnings: [],
  };

  const base = listing.snapshots.at(-1) ?? 0;
  if (base > 0) {
    const name = snapshotName(base);
    let first = true;
    let end: number | null = null;
    let count = 0;
    const scan = await scanRecords(join(dir, name), (record, offset) => {
      if (first) {
        first = false;
        if (record.type !== 'snapshot' || record.generation !== base) throw new DataDirectoryCorruptError(`${name} has no snapshot header`);
        checkFormat(name, record.format);
        return;
      }
      if (end !== null) throw new DataDirectoryCorruptError(`${name} has records after its end (byte ${offset})`);
      if (record.type === 'end') {
        end = record.count;
        return;
      }
      if (record.type !== 'put' && record.type !== 'seq') throw new DataDirectoryCorruptError(`${name} holds a ${record.type} record (byte ${offset})`);
      count++;
      apply(record);
    });
    if (scan.stop !== null) throw new DataDirectoryCorruptError(`${name} has a bad record at byte ${scan.stop.offset} (${scan.stop.detail})`);
    if (end !== count) throw new DataDirectoryCorruptError(`${name} is incomplete (no end record, or a wrong count)`);
    state.snapshotGeneration = base;
    state.snapshotBytes = scan.fileBytes;
    state.stats.snapshotRecords = count;
  }

  const wals = listing.wals.filter((generation) => generation >= base);
  if (wals.length > 0 && wals[0] !== (base > 0 ? base : 1)) {
    throw new DataDirectoryCorruptError(
      base > 0 ? `${walName(base)}, the log after ${snapshotName(base)}, is missing` : `${walName(1)} is missing and there is no snapshot`,
    );
  }
  if (base > 0 && wals.length === 0) throw new DataDirectoryCorruptError(`${walName(base)}, the log after ${snapshotName(base)}, is missing`);
  wals.forEach((generation, i) => {
    if (i > 0 && generation !== wals[i - 1]! + 1) throw new DataDirectoryCorruptError(`${walName(wals[i - 1]! + 1)} is missing`);
  });

  for (const [i, generation] of wals.entries()) {
    const name = walName(generation);
    const newest = i === wals.length - 1;
    let first = true;
    let format: number | null = null;
    const scan = await scanRecords(join(dir, name), (record, offset) => {
      if (first) {
        first = false;
        if (record.type !== 'wal' || record.generation !== generation) throw new DataDirectoryCorruptError(`${name} has no log header`);
        checkFormat(name, record.format);
        format = record.format;
        return;
      }
      if (record.type !== 'put' && record.type !== 'del' && record.type !== 'seq') {
        throw new DataDirectoryCorruptError(`${name} holds a ${record.type} record (byte ${offset})`);
      }
      state.stats.logRecords++;
      apply(record);
    });
    if (scan.stop !== null) {
      if (!newest) {
        throw new DataDirectoryCorruptError(
          `${name} has a bad record at byte ${scan.stop.offset} (${scan.stop.detail}), and it is not the newest log, so this is not a torn append`,
        );
      }
      state.warnings.push(await cutTail(dir, name, scan));
      state.stats.droppedBytes += scan.fileBytes - scan.validBytes;
    }
    state.stats.logBytes += scan.validBytes;
    if (newest) state.wal = { generation, bytes: scan.validBytes, format };
  }

  const { wals: allWals, snapshots } = listing;
  for (const generation of allWals) if (generation < base) state.obsolete.push(walName(generation));
  for (const generation of snapshots) if (generation < base) state.obsolete.push(snapshotName(generation));
  return state;
}
