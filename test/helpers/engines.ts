/**
 * The storage engines the suites run against (design §3 "Contract suite").
 * Embedded always runs; MongoDB runs when one can be had.
 */
import { indexes } from '../../indexes/index.js';
import { createEmbeddedStorage } from '../../src/storage/embedded/index.js';
import { type EngineName, type Storage } from '../../src/storage/port.js';

export interface EngineUnderTest {
  name: EngineName;
  /** A fresh, empty storage with its indexes ensured; the caller closes it. */
  open(): Promise<Storage>;
}

export interface EngineSelection {
  engines: EngineUnderTest[];
  skipped: Array<{ name: EngineName; reason: string }>;
}

export async function enginesUnderTest(): Promise<EngineSelection> {
  const embedded: EngineUnderTest = {
    name: 'embedded',
    async open() {
      const storage = createEmbeddedStorage({ indexes, reason: 'test' });
      await storage.ensureIndexes();
      return storage;
    },
  };
  // TODO(helper B): MongoDB via MONGODB_URI or mongodb-memory-server.
  return { engines: [embedded], skipped: [{ name: 'mongodb', reason: 'no MONGODB_URI, no mongod binary' }] };
}
