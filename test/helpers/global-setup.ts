/**
 * Vitest globalSetup: decides once per run where MongoDB comes from and hands its URI to the
 * workers (`inject('calendarMongo')` in ./engines.ts).
 *
 * 1. MONGODB_URI set → that server (checked with a ping; a dead URI fails the run, never a skip).
 * 2. A mongod already on this machine (MONGOMS_SYSTEM_BINARY or mongodb-memory-server's cache)
 *    → one in-memory server for the whole run.
 * 3. Otherwise mongodb-memory-server may download one: skipped in milliseconds when its download
 *    host does not resolve, bounded to a few minutes when it does.
 * 4. Otherwise MongoDB is skipped, unless CALENDAR_TEST_ENGINES=mongodb, which fails the run.
 */
import { type TestProject } from 'vitest/node';
import { indexes } from '../../indexes/index.js';
import { loadConfig } from '../../src/config.js';
import { describeMongod, findLocalMongod, type MongodLookup, startMemoryServer } from '../../src/storage/mongodb/memory-server.js';
import { testEngineChoice } from './engine-choice.js';
import { downloadMongod } from './mongod-download.js';

export type MongoTestTarget = { available: true; uri: string; source: string } | { available: false; reason: string };

declare module 'vitest' {
  export interface ProvidedContext {
    calendarMongo: MongoTestTarget;
  }
}

/** The design's wording, printed by the contract suite as `mongodb engine: skipped (…)`. */
export const NO_MONGODB_REASON = 'no MONGODB_URI, no mongod binary';

const DOWNLOAD_TIMEOUT_MS = 180_000;
const DNS_TIMEOUT_MS = 300;

interface Resolution {
  target: MongoTestTarget;
  /** Why there is none, in more detail than the skip reason (for the failure of a mongodb-only run). */
  detail?: string;
  stop?: () => Promise<void>;
}

async function checkUri(uri: string): Promise<void> {
  // Loaded only here: without a URI the offline check does not pay for the driver.
  const { createMongoStorage } = await import('../../src/storage/mongodb/index.js');
  const storage = await createMongoStorage({ uri, dbName: 'admin', indexes, reason: 'test: reachability check' });
  try {
    await storage.ping();
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    throw new Error(`MONGODB_URI is set but MongoDB does not answer${cause}`, { cause: error });
  } finally {
    await storage.close();
  }
}

async function resolveMongo(): Promise<Resolution> {
  const config = loadConfig();
  if (config.mongodbUri !== null) {
    await checkUri(config.mongodbUri);
    return { target: { available: true, uri: config.mongodbUri, source: 'MONGODB_URI' } };
  }

  let lookup: MongodLookup = await findLocalMongod({ systemBinary: config.mongodSystemBinary });
  if (!lookup.found && lookup.misconfigured) throw new Error(`Invalid configuration: ${lookup.reason}`);
  if (!lookup.found) {
    lookup = await downloadMongod({ timeoutMs: DOWNLOAD_TIMEOUT_MS, dnsTimeoutMs: DNS_TIMEOUT_MS });
  }
  if (!lookup.found) {
    return { target: { available: false, reason: NO_MONGODB_REASON }, detail: `no MONGODB_URI, ${lookup.reason}` };
  }

  try {
    const server = await startMemoryServer(lookup.binary);
    return {
      target: { available: true, uri: server.uri, source: `in-memory server with ${describeMongod(lookup.binary)}` },
      stop: () => server.stop(),
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const reason = `${describeMongod(lookup.binary)} did not start`;
    return { target: { available: false, reason }, detail: `${reason}: ${message}` };
  }
}

export async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const choice = testEngineChoice();
  if (choice === 'embedded') {
    project.provide('calendarMongo', { available: false, reason: 'CALENDAR_TEST_ENGINES=embedded' });
    return undefined;
  }
  const { target, detail, stop } = await resolveMongo();
  if (!target.available && choice === 'mongodb') {
    throw new Error(
      `CALENDAR_TEST_ENGINES=mongodb but no MongoDB is available: ${detail ?? target.reason}. ` +
        'Set MONGODB_URI, or MONGOMS_SYSTEM_BINARY to a local mongod.',
    );
  }
  project.provide('calendarMongo', target);
  return stop;
}
