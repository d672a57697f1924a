import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { StorageUnavailableError } from '../../src/errors.js';
import { createStorage, type StorageSelectionOverrides } from '../../src/storage/create-storage.js';
import { createMongoStorage } from '../../src/storage/mongodb/index.js';
import { type MongodBinary, NO_MONGOD } from '../../src/storage/mongodb/memory-server.js';
import { indexes } from '../../indexes/index.js';

function recordingLog() {
  const lines: Array<[level: 'info' | 'warn', msg: string]> = [];
  return {
    lines,
    info: (msg: string) => void lines.push(['info', msg]),
    warn: (msg: string) => void lines.push(['warn', msg]),
  };
}

const noMongod: StorageSelectionOverrides['findMongod'] = () => Promise.resolve({ found: false, reason: NO_MONGOD });

const fakeBinary: MongodBinary = { path: '/opt/mongodb/bin/mongod', version: '7.0.14', source: 'cache' };

// Nothing listens on port 1: connection refused at once, so only server selection takes time.
const UNREACHABLE = 'mongodb://127.0.0.1:1';
const fast = { serverSelectionMS: 300, connectMS: 300 };

describe('createStorage', () => {
  it('STORAGE=embedded gives the embedded engine and says so once', async () => {
    const log = recordingLog();
    const storage = await createStorage(loadConfig({ STORAGE: 'embedded' }), log, { findMongod: noMongod });
    expect(storage.engine).toBe('embedded');
    expect(storage.reason).toBe('STORAGE=embedded');
    expect(log.lines).toEqual([['info', 'storage engine: embedded (STORAGE=embedded)']]);
    await storage.close();
  });

  it('auto without MONGODB_URI nor a mongod binary falls back to embedded with the reason', async () => {
    const log = recordingLog();
    const findMongod = vi.fn(noMongod);
    const storage = await createStorage(loadConfig({}), log, { findMongod });
    expect(storage.engine).toBe('embedded');
    expect(storage.reason).toBe('no MONGODB_URI, no mongod binary');
    expect(log.lines).toEqual([['warn', 'storage engine: embedded (no MONGODB_URI, no mongod binary)']]);
    expect(findMongod).toHaveBeenCalledWith({ systemBinary: null });
    await storage.close();
  });

  it('auto with the real lookup on this machine picks an engine and logs one line', async () => {
    const log = recordingLog();
    const storage = await createStorage(loadConfig({}), log, { mongoTimeouts: fast });
    try {
      expect(log.lines).toHaveLength(1);
      expect(log.lines[0]?.[1]).toBe(`storage engine: ${storage.engine} (${storage.reason})`);
    } finally {
      await storage.close();
    }
  });

  it('auto with a local mongod runs MongoDB on an in-memory server and stops it on close', async () => {
    const log = recordingLog();
    const stop = vi.fn(() => Promise.resolve());
    const storage = await createStorage(loadConfig({}), log, {
      findMongod: () => Promise.resolve({ found: true, binary: fakeBinary }),
      startMemoryServer: (binary) => Promise.resolve({ uri: UNREACHABLE, binary, stop }),
      mongoTimeouts: fast,
    });
    expect(storage.engine).toBe('mongodb');
    expect(storage.reason).toBe('no MONGODB_URI, in-memory server with mongod 7.0.14 from /opt/mongodb/bin/mongod');
    expect(log.lines).toEqual([['warn', `storage engine: mongodb (${storage.reason})`]]);
    await storage.close();
    expect(stop).toHaveBeenCalledOnce();
  });

  it('auto with MONGODB_URI uses it without looking for a binary', async () => {
    const log = recordingLog();
    const findMongod = vi.fn(noMongod);
    const storage = await createStorage(loadConfig({ MONGODB_URI: UNREACHABLE }), log, { findMongod, mongoTimeouts: fast });
    expect(storage.engine).toBe('mongodb');
    expect(storage.reason).toBe('MONGODB_URI set');
    expect(log.lines).toEqual([['info', 'storage engine: mongodb (MONGODB_URI set)']]);
    expect(findMongod).not.toHaveBeenCalled();
    await storage.close();
  });

  it('a MONGOMS_SYSTEM_BINARY that does not run stops start-up instead of falling back', async () => {
    const config = loadConfig({ MONGOMS_SYSTEM_BINARY: '/nonexistent/bin/mongod' });
    await expect(createStorage(config, recordingLog())).rejects.toThrow(
      /Invalid configuration: MONGOMS_SYSTEM_BINARY \(\/nonexistent\/bin\/mongod\) is not a runnable mongod/,
    );
  });

  it('STORAGE=memory-server without a local mongod fails with a clear message', async () => {
    const log = recordingLog();
    await expect(createStorage(loadConfig({ STORAGE: 'memory-server' }), log, { findMongod: noMongod })).rejects.toThrow(
      /STORAGE is memory-server but mongodb-memory-server has no local mongod \(no mongod binary\).*MONGOMS_SYSTEM_BINARY/,
    );
    expect(log.lines).toEqual([]);
  });

  it('a local mongod that does not start stops start-up with a clear message', async () => {
    await expect(
      createStorage(loadConfig({}), recordingLog(), {
        findMongod: () => Promise.resolve({ found: true, binary: fakeBinary }),
        startMemoryServer: () => Promise.reject(new Error('Instance Exited before being ready')),
      }),
    ).rejects.toThrow(
      'The in-memory MongoDB server (mongod 7.0.14 from /opt/mongodb/bin/mongod) did not start: Instance Exited before being ready. Set MONGODB_URI or STORAGE=embedded to use another engine.',
    );
  });

  it('STORAGE=memory-server with a local mongod stops the server when the storage cannot be created', async () => {
    const stop = vi.fn(() => Promise.resolve());
    await expect(
      createStorage(loadConfig({ STORAGE: 'memory-server' }), recordingLog(), {
        findMongod: () => Promise.resolve({ found: true, binary: fakeBinary }),
        startMemoryServer: (binary) => Promise.resolve({ uri: 'mongodb://', binary, stop }),
      }),
    ).rejects.toThrow('Invalid MongoDB connection string');
    expect(stop).toHaveBeenCalledOnce();
  });

  it('STORAGE=mongodb on an unreachable server: ping, ensureIndexes and queries answer 503 within the timeout', async () => {
    const log = recordingLog();
    const storage = await createStorage(loadConfig({ STORAGE: 'mongodb', MONGODB_URI: UNREACHABLE }), log, {
      mongoTimeouts: fast,
    });
    expect(storage.engine).toBe('mongodb');
    expect(log.lines).toEqual([['info', 'storage engine: mongodb (STORAGE=mongodb, MONGODB_URI set)']]);
    const started = Date.now();
    try {
      // Settled together: each rejection is handled as soon as it happens.
      const errors = await Promise.all(
        [
          storage.ping(),
          storage.ensureIndexes(),
          storage.events.findById(1),
          storage.venues.findPage({
            filter: { status: 'publish' },
            sort: [
              ['name', 1],
              ['_id', 1],
            ],
            limit: 10,
          }),
          storage.nextId('posts'),
          storage.tags.insertOne({ _id: 1, name: 'a', nameKey: 'a', slug: 'a', description: '', parent: 0 }),
        ].map((attempt: Promise<unknown>) =>
          attempt.then(
            () => null,
            (e: unknown) => e,
          ),
        ),
      );
      for (const error of errors) {
        expect(error).toBeInstanceOf(StorageUnavailableError);
        expect(error).toMatchObject({ statusCode: 503, code: 'storage-unavailable' });
      }
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await storage.close();
    }
  });
});

describe('createMongoStorage', () => {
  it('never quotes the connection string (credentials) in its errors', async () => {
    const error: unknown = await createMongoStorage({
      uri: 'mongodb://user:s3cret@',
      dbName: 'calendar',
      indexes,
      reason: 'test',
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^Invalid MongoDB connection string/);
    expect((error as Error).message).not.toContain('s3cret');
  });

  it('close is idempotent and runs onClose once, after the client is closed', async () => {
    const onClose = vi.fn(() => Promise.resolve());
    const storage = await createMongoStorage({ uri: UNREACHABLE, dbName: 'calendar', indexes, reason: 'test', onClose });
    await storage.close();
    await storage.close();
    expect(onClose).toHaveBeenCalledOnce();
  });
});
