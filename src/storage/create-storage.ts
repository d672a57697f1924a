/**
 * Engine selection at start: STORAGE forces one; otherwise MONGODB_URI → mongodb,
 * else a mongod already on this machine → mongodb on an in-memory server, else → embedded.
 * Nothing is ever downloaded here. The choice and its reason are logged once and carried by the
 * storage (`reason`) for the readiness route.
 */
import { type Config } from '../config.js';
import { indexes } from '../../indexes/index.js';
import { createEmbeddedStorage } from './embedded/index.js';
import { openLmdbStorage } from './lmdb/index.js';
// `import type`, not `import { type … }`: under verbatimModuleSyntax the latter still loads the module
// (and with it the driver), which only a MongoDB engine needs (loadMongo below).
import type { MongoTimeouts } from './mongodb/index.js';
import { describeMongod, findLocalMongod, type MongodLookup, startMemoryServer, type RunningMemoryServer, type MongodBinary } from './mongodb/memory-server.js';
import { type Storage } from './port.js';

export interface StorageLog {
  info(msg: string): void;
  warn(msg: string): void;
}

/** Seams for tests; production passes none. */
export interface StorageSelectionOverrides {
  findMongod?: (options: { systemBinary: string | null }) => Promise<MongodLookup>;
  startMemoryServer?: (binary: MongodBinary) => Promise<RunningMemoryServer>;
  mongoTimeouts?: Partial<MongoTimeouts>;
}

type StorageConfig = Pick<Config, 'storage' | 'mongodbUri' | 'mongodbDb' | 'mongodSystemBinary'> & Partial<Pick<Config, 'dataDir'>>;

export async function createStorage(config: StorageConfig, log: StorageLog, overrides: StorageSelectionOverrides = {}): Promise<Storage> {
  const findMongod = overrides.findMongod ?? findLocalMongod;
  const start = overrides.startMemoryServer ?? startMemoryServer;

  // Chosen automatically, a non-durable engine deserves a warning (data is gone on restart).
  const announce = (storage: Storage, level: 'info' | 'warn' = 'info'): Storage => {
    log[level](`storage engine: ${storage.engine} (${storage.reason})`);
    return storage;
  };

  // The driver is loaded only for a MongoDB engine: the embedded engine (npm start's default, the
  // seed command's) then starts without it (~0.2 s of module loading).
  const loadMongo = () => import('./mongodb/index.js');

  const onUri = async (uri: string, reason: string) =>
    (await loadMongo()).createMongoStorage({
      uri,
      dbName: config.mongodbDb,
      indexes,
      reason,
      log,
      ...(overrides.mongoTimeouts ? { timeouts: overrides.mongoTimeouts } : {}),
    });

  const onMemoryServer = async (binary: MongodBinary, reason: string) => {
    let server: RunningMemoryServer;
    try {
      server = await start(binary);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(
        `The in-memory MongoDB server (${describeMongod(binary)}) did not start: ${message}. ` + 'Set MONGODB_URI or STORAGE=embedded to use another engine.',
        { cause: error },
      );
    }
    try {
      return await (
        await loadMongo()
      ).createMongoStorage({
        uri: server.uri,
        dbName: config.mongodbDb,
        indexes,
        reason,
        log,
        onClose: () => server.stop(),
        ...(overrides.mongoTimeouts ? { timeouts: overrides.mongoTimeouts } : {}),
      });
    } catch (error) {
      await server.stop();
      throw error;
    }
  };

  // DATA_DIR: the embedded engine keeps its data there in LMDB and reads it back at start.
  const dataDir = config.dataDir ?? null;
  const embedded = async (reason: string): Promise<Storage> =>
    dataDir === null ? createEmbeddedStorage({ indexes, reason }) : openLmdbStorage({ dir: dataDir, indexes, reason: `${reason}, durable in ${dataDir}`, log });

  switch (config.storage) {
    case 'embedded':
      return announce(await embedded('STORAGE=embedded'));

    case 'mongodb':
      if (config.mongodbUri === null) throw new Error('STORAGE is mongodb but MONGODB_URI is not set');
      return announce(await onUri(config.mongodbUri, 'STORAGE=mongodb, MONGODB_URI set'));

    case 'memory-server': {
      const lookup = await findMongod({ systemBinary: config.mongodSystemBinary });
      if (!lookup.found) {
        throw new Error(
          `STORAGE is memory-server but mongodb-memory-server has no local mongod (${lookup.reason}). ` +
            'Set MONGOMS_SYSTEM_BINARY to a mongod executable, or let mongodb-memory-server download one into its cache first (the server never downloads).',
        );
      }
      const reason = `STORAGE=memory-server, in-memory server with ${describeMongod(lookup.binary)}`;
      return announce(await onMemoryServer(lookup.binary, reason));
    }

    case 'auto': {
      if (config.mongodbUri !== null) return announce(await onUri(config.mongodbUri, 'MONGODB_URI set'));
      // A data directory asks for data that outlives the process; an in-memory mongod would lose it.
      if (dataDir !== null) return announce(await embedded('no MONGODB_URI, DATA_DIR set'), 'info');
      const lookup = await findMongod({ systemBinary: config.mongodSystemBinary });
      if (lookup.found) {
        const reason = `no MONGODB_URI, in-memory server with ${describeMongod(lookup.binary)}`;
        return announce(await onMemoryServer(lookup.binary, reason), 'warn');
      }
      // A binary named explicitly but unusable is a configuration error, not a fallback.
      if (lookup.misconfigured) throw new Error(`Invalid configuration: ${lookup.reason}`);
      return announce(await embedded(`no MONGODB_URI, ${lookup.reason}`), 'warn');
    }
  }
}
