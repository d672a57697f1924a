/**
 * Process entry: loadConfig → createStorage → ensure indexes → seed (empty embedded store) →
 * buildApp → listen; SIGTERM/SIGINT finish in-flight requests, then close storage.
 */
import { pino } from 'pino';
import { buildApp, redactUrl } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { preloadGazetteer } from './lib/gazetteer.js';
import { seedIfEmpty } from './services/seed.js';
import { createStorage } from './storage/create-storage.js';

const SHUTDOWN_GRACE_MS = 10_000;

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

  const logger = pino({
    level: config.logLevel,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
    serializers: {
      req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, url: redactUrl(req.url), remoteAddress: req.ip }),
    },
  });

  const storage = await createStorage(config, {
    info: (msg) => logger.info(msg),
    warn: (msg) => logger.warn(msg),
  });
  try {
    await storage.ensureIndexes();
    await seedIfEmpty({ storage, config, log: logger });
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
    // embedded engine that flushes and fdatasyncs the log, so every acknowledged write is on disk.
    app
      .close()
      .finally(() => clearInterval(drain))
      .then(() => storage.close())
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

  await app.listen({ port: config.port, host: config.host });
}

main().catch((err: unknown) => {
  process.stderr.write(`Start-up failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
