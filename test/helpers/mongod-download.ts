/**
 * Test runs only: lets mongodb-memory-server download its default mongod into its cache, unless
 * the download host does not even resolve (offline: a few milliseconds) or the time runs out.
 * Production never downloads (src/storage/mongodb/memory-server.ts only looks for a local one).
 */
import { lookup } from 'node:dns/promises';
import { describeError, loadMemoryServerModule, type MongodLookup, NO_MONGOD, probeMongod } from '../../src/storage/mongodb/memory-server.js';

type MemoryServerModule = NonNullable<Awaited<ReturnType<typeof loadMemoryServerModule>>>;

function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(onTimeout()), ms);
    // Never keep the process alive for this timer alone.
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The host mongodb-memory-server would download from (honours its mirror/URL settings). */
async function downloadHost(module: MemoryServerModule): Promise<string> {
  try {
    const { MongoBinaryDownloadUrl } = await import('mongodb-memory-server-core/lib/util/MongoBinaryDownloadUrl.js');
    const options = await module.DryMongoBinary.generateOptions({});
    return new URL(await new MongoBinaryDownloadUrl(options).getDownloadUrl()).hostname;
  } catch {
    return 'fastdl.mongodb.org';
  }
}

export interface DownloadOptions {
  /** Upper bound for the whole download. */
  timeoutMs: number;
  /** Upper bound for the DNS check of the download host. */
  dnsTimeoutMs?: number;
}

export async function downloadMongod(options: DownloadOptions): Promise<MongodLookup> {
  const module = await loadMemoryServerModule();
  if (module === null) return { found: false, reason: `${NO_MONGOD} (mongodb-memory-server-core is not installed)` };
  const host = await downloadHost(module);
  const dnsTimeoutMs = options.dnsTimeoutMs ?? 300;
  const resolved = await withTimeout(
    lookup(host).then(
      () => null,
      (error: unknown) => describeError(error),
    ),
    dnsTimeoutMs,
    () => `no answer within ${dnsTimeoutMs} ms`,
  );
  if (resolved !== null) return { found: false, reason: `${NO_MONGOD} (download host ${host} unreachable: ${resolved})` };

  const seconds = Math.round(options.timeoutMs / 1000);
  const downloaded = await withTimeout<{ path: string } | { error: string }>(
    module.MongoBinary.getPath({}).then(
      (binaryPath) => ({ path: binaryPath }),
      (error: unknown) => ({ error: describeError(error) }),
    ),
    options.timeoutMs,
    () => ({ error: `not finished within ${seconds} s` }),
  );
  if ('error' in downloaded) return { found: false, reason: `${NO_MONGOD} (download failed: ${downloaded.error})` };
  const probe = await probeMongod(downloaded.path);
  if (!probe.ok) return { found: false, reason: `${NO_MONGOD} (downloaded mongod does not run: ${probe.reason})` };
  return { found: true, binary: { path: downloaded.path, version: probe.version, source: 'download' } };
}
