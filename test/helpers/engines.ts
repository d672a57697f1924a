/**
 * The storage engines the suites run against.
 * Embedded always runs (unless CALENDAR_TEST_ENGINES=mongodb); MongoDB runs when ./global-setup.ts
 * found one, each `open()` in its own throwaway database.
 */
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { indexes } from '../../indexes/index.js';
import { loadConfig } from '../../src/config.js';
import { createEmbeddedStorage } from '../../src/storage/embedded/index.js';
import { testEngineChoice } from './engine-choice.js';
import { createFaultyStorage, type FaultyStorage } from './faulty-storage.js';
import { createMongoStorage } from '../../src/storage/mongodb/index.js';
import { type EngineName, type Storage } from '../../src/storage/port.js';
import { type MongoTestTarget, NO_MONGODB_REASON } from './global-setup.js';

export interface EngineUnderTest {
  name: EngineName;
  /** A fresh, empty storage with its indexes ensured; the caller closes it. */
  open(): Promise<Storage>;
  /**
   * Two storages on the same fresh data, as two processes of the service would hold them (the
   * embedded engine belongs to one process: both are the same storage); the caller closes both.
   */
  openShared?(): Promise<[Storage, Storage]>;
}

export interface EngineSelection {
  engines: EngineUnderTest[];
  skipped: Array<{ name: EngineName; reason: string }>;
}

const embedded: EngineUnderTest = {
  name: 'embedded',
  async open() {
    const storage = createEmbeddedStorage({ indexes, reason: 'test' });
    await storage.ensureIndexes();
    return storage;
  },
  async openShared() {
    const storage = await embedded.open();
    return [storage, { ...storage, close: async () => undefined }];
  },
};

function mongoTarget(): MongoTestTarget {
  const provided = inject('calendarMongo') as MongoTestTarget | undefined;
  if (provided !== undefined) return provided;
  // Run without the globalSetup (another config): only an explicit URI can be used here.
  const { mongodbUri } = loadConfig();
  return mongodbUri !== null ? { available: true, uri: mongodbUri, source: 'MONGODB_URI' } : { available: false, reason: NO_MONGODB_REASON };
}

function mongoEngine(uri: string, source: string): EngineUnderTest {
  // Database names are limited to 63 bytes; the random part keeps parallel workers apart.
  const newDbName = () => `calendar_test_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
  async function openOn(dbName: string, dropDatabaseOnClose: boolean): Promise<Storage> {
    const storage = await createMongoStorage({ uri, dbName, indexes, reason: `test (${source})`, dropDatabaseOnClose });
    try {
      await storage.ensureIndexes();
    } catch (error) {
      await storage.close().catch(() => undefined);
      throw error;
    }
    return storage;
  }
  return {
    name: 'mongodb',
    open: () => openOn(newDbName(), true),
    async openShared() {
      const dbName = newDbName();
      // The first drops the database on close; close it last.
      return [await openOn(dbName, true), await openOn(dbName, false)];
    },
  };
}

/** The engines a suite runs on; each one left out is named on the suite's output, with the reason. */
export async function enginesUnderTest(): Promise<EngineSelection> {
  const choice = testEngineChoice();
  const engines: EngineUnderTest[] = [];
  const skipped: EngineSelection['skipped'] = [];
  if (choice !== 'mongodb') engines.push(embedded);
  if (choice !== 'embedded') {
    const target = mongoTarget();
    if (target.available) {
      engines.push(mongoEngine(target.uri, target.source));
    } else if (choice === 'mongodb') {
      throw new Error(`CALENDAR_TEST_ENGINES=mongodb but no MongoDB is available: ${target.reason}`);
    } else {
      skipped.push({ name: 'mongodb', reason: target.reason });
    }
  }
  for (const { name, reason } of skipped) console.log(`${name} engine: skipped (${reason})`);
  return { engines, skipped };
}

/**
 * The engines a route suite (test/routes) runs on: one. What lies above the storage port is the
 * same code on every engine, and test/contract holds the engines to the same answers, so by default
 * the routes run on the embedded engine alone; CALENDAR_TEST_ENGINES=mongodb (npm run test:mongodb)
 * runs them on MongoDB instead.
 */
export async function routeEnginesUnderTest(): Promise<EngineSelection> {
  if (testEngineChoice() !== 'all') return enginesUnderTest();
  const reason = 'route suites run on one engine; test/contract covers the engines, CALENDAR_TEST_ENGINES=mongodb runs the routes there';
  console.log(`mongodb engine: skipped (${reason})`);
  return { engines: [embedded], skipped: [{ name: 'mongodb', reason }] };
}

/**
 * `engine` with every storage it opens wrapped for fault injection; `faulty()` is the last one
 * opened (the test app's), through which a test injects and clears faults.
 */
export function withFaults(engine: EngineUnderTest): { engine: EngineUnderTest; faulty(): FaultyStorage } {
  let last: FaultyStorage | undefined;
  return {
    engine: {
      name: engine.name,
      async open() {
        last = createFaultyStorage(await engine.open());
        return last;
      },
    },
    faulty() {
      if (last === undefined) throw new Error('withFaults: no storage opened yet');
      return last;
    },
  };
}
