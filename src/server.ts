/**
 * Process entry: loadConfig → createStorage → ensure indexes → seed (empty embedded store) →
 * buildApp → warm-up → listen → a short summary of what runs; SIGTERM/SIGINT finish in-flight
 * requests, then close storage.
 */
import path from 'node:path';
import { buildApp } from './app.js';
import { RESOURCES } from './import/schemas.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { preloadGazetteer } from './lib/gazetteer.js';
import { createLogger } from './logger.js';
import { seedIfEmpty } from './import/seed-on-start.js';
import { type StorageFacts, startupSummary } from './startup-summary.js';
import { createStorage } from './storage/create-storage.js';
import { type Storage } from './storage/port.js';
import { warmUp } from './warm-up.js';

const SHUTDOWN_GRACE_MS = 10_000;

/** The storage as the start-up summary names it; never a credential of MONGODB_URI. */
async function storageFacts(config: Config, storage: Storage): Promise<StorageFacts> {
  if (storage.engine === 'embedded') {
    return config.dataDir === null ? { kind: 'in-memory' } : { kind: 'durable', dataDir: path.resolve(config.dataDir) };
  }
  // Without MONGODB_URI a MongoDB engine is an in-memory server this process started.
  if (config.storage === 'memory-server' || config.mongodbUri === null) return { kind: 'memory-server', database: config.mongodbDb };
  // The module loads the driver, which this engine has loaded already.
  const { hostsOfUri } = await import('./storage/mongodb/describe-failure.js');
  return { kind: 'mongodb', hosts: hostsOfUri(config.mongodbUri), database: config.mongodbDb };
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }

  const logger = await createLogger(config);
  // Every setting but the two that carry credentials (tokens are counted, the URI is not shown).
  const { apiTokens, mongodbUri, ...settings } = config;
  logger.debug({ settings: { ...settings, apiTokens: apiTokens.length, mongodbUri: mongodbUri === null ? null : '(set)' } }, 'configuration');

  const storage = await createStorage(config, {
    info: (msg) => logger.info(msg),
    warn: (msg) => logger.warn(msg),
  });
  let seeded;
  try {
    const started = performance.now();
    await storage.ensureIndexes();
    logger.debug(`indexes ensured in ${Math.round(performance.now() - started)} ms`);
    // The seed's own lines are details; the summary says what it loaded.
    seeded = await seedIfEmpty({ storage, config, log: { info: (msg) => logger.debug(msg) } });
  } catch (err) {
    if (storage.engine === 'mongodb') {
      // One line naming the server and the cause: a driver stack tells an operator nothing to act
      // on, and driver messages may quote the URI. The module loads the driver, which this engine
      // has loaded already (the embedded engine's start-up never loads it).
      const { describeMongoFailure } = await import('./storage/mongodb/describe-failure.js');
      // The in-memory server's URI is its own; MONGODB_URI does not name it.
      const uri = config.storage === 'memory-server' ? null : config.mongodbUri;
      logger.fatal(`storage could not be prepared: ${describeMongoFailure(err, uri)}`);
    } else {
      logger.fatal({ err }, 'storage could not be prepared');
    }
    await storage.close().catch(() => undefined);
    process.exit(1);
  }

  // Load the offline gazetteer now, so the first venue write does not wait for it (~1 s).
  preloadGazetteer();
  const app = buildApp({ config, storage, logger });
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info(`${signal} received: finishing in-flight requests`);
    const force = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    // Node closes idle keep-alive connections once, when close() begins; a connection whose request
    // was still in flight turns idle later and would hold close() open until its keep-alive timeout.
    const drain = setInterval(() => app.server.closeIdleConnections(), 100);
    drain.unref();
    // In-flight requests finish (new ones get 503), then the storage closes: on the durable
    // embedded engine that waits for the last LMDB commit and releases the directory's lock.
    app
      .close()
      .finally(() => clearInterval(drain))
      .then(() => {
        logger.debug('HTTP server closed; closing storage');
        return storage.close();
      })
      .then(() => {
        logger.info('shut down cleanly');
        process.exit(0);
      })
      .catch((err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));

  await warmUp(app, config, { logger });
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const summary = startupSummary({
    host: config.host,
    port: address !== null && typeof address === 'object' ? address.port : config.port,
    storage: await storageFacts(config, storage),
    tokens: {
      editor: config.apiTokens.filter((t) => t.role === 'editor').length,
      viewer: config.apiTokens.filter((t) => t.role === 'viewer').length,
    },
    seeded: seeded ? RESOURCES.map((r) => [r, seeded.counts[r].created] as const) : null,
  });
  for (const line of summary) logger.info(line);
}

main().catch((err: unknown) => {
  process.stderr.write(`Start-up failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
