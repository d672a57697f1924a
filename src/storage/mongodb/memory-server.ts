/**
 * Finding a mongod for mongodb-memory-server, shared by createStorage and the test harness.
 *
 * `findLocalMongod` never downloads: it accepts MONGOMS_SYSTEM_BINARY (passed in from config.ts)
 * or a binary mongodb-memory-server has already extracted into one of its cache directories
 * (MONGOMS_DOWNLOAD_DIR, ~/.cache/mongodb-binaries, node_modules/.cache/mongodb-memory-server,
 * ./mongodb-binaries), as resolved by the library itself. Only the test harness may download one
 * (test/helpers/mongod-download.ts).
 *
 * mongodb-memory-server-core is a dependency (the `memory-server` engine is offered by production
 * installs too) but is imported lazily, only when that engine is looked for.
 */
import { execFile } from 'node:child_process';
import { access, constants, readdir, stat } from 'node:fs/promises';
import path from 'node:path';

const importMemoryServer = () => import('mongodb-memory-server-core');
type MemoryServerModule = Awaited<ReturnType<typeof importMemoryServer>>;

export interface MongodBinary {
  path: string;
  /** As reported by `mongod --version`. */
  version: string;
  source: 'MONGOMS_SYSTEM_BINARY' | 'cache' | 'download';
}

export type MongodLookup =
  | { found: true; binary: MongodBinary }
  | {
      found: false;
      reason: string;
      /** MONGOMS_SYSTEM_BINARY is set but unusable: a configuration error, not a fallback case. */
      misconfigured?: boolean;
    };

export interface RunningMemoryServer {
  uri: string;
  binary: MongodBinary;
  stop(): Promise<void>;
}

export const NO_MONGOD = 'no mongod binary';

/** The library's own test: a fully extracted binary is larger than this and has a `.md5` beside it. */
const MIN_BINARY_BYTES = 1024 * 1024;
const VERSION_PROBE_TIMEOUT_MS = 5_000;

let modulePromise: Promise<MemoryServerModule | null> | undefined;

/** The memory-server package, or null when it is not installed (production installs). */
export function loadMemoryServerModule(): Promise<MemoryServerModule | null> {
  modulePromise ??= importMemoryServer().then(
    (module): MemoryServerModule | null => module,
    () => null,
  );
  return modulePromise;
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return (error as NodeJS.ErrnoException).code ?? error.message;
  return String(error);
}

/** Runs `mongod --version`: proves the file executes on this machine and names its version. */
export function probeMongod(binaryPath: string): Promise<{ ok: true; version: string } | { ok: false; reason: string }> {
  return new Promise((resolve) => {
    execFile(binaryPath, ['--version'], { timeout: VERSION_PROBE_TIMEOUT_MS, windowsHide: true }, (error, stdout) => {
      if (error) {
        resolve({ ok: false, reason: describeError(error) });
        return;
      }
      const version = /db version v?(\d+\.\d+\.\d+)/i.exec(String(stdout))?.[1];
      resolve(version ? { ok: true, version } : { ok: false, reason: 'its --version output names no mongod version' });
    });
  });
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((p) => Number.parseInt(p, 10) || 0);
  const pb = b.split(/[.-]/).map((p) => Number.parseInt(p, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

interface CacheCandidate {
  path: string;
  version: string;
}

/**
 * Binaries the library has completely extracted into its cache directories, for this machine's
 * architecture. The library itself only looks for its default version; any version will do here
 * (the configured/default one first, then the newest).
 */
async function cachedBinaries(module: MemoryServerModule): Promise<CacheCandidate[]> {
  const options = await module.DryMongoBinary.generateOptions({});
  const paths = await module.DryMongoBinary.generatePaths(options);
  const directories = [
    ...new Set([paths.resolveConfig, paths.homeCache, paths.modulesCache, paths.relative].filter((p) => p.length > 0).map((p) => path.dirname(p))),
  ];
  const pattern = /^mongod-(?<arch>[^-]+)-.+-(?<version>\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)(?:\.exe)?$/;
  const candidates: CacheCandidate[] = [];
  for (const directory of directories) {
    let names: string[];
    try {
      names = await readdir(directory);
    } catch {
      continue;
    }
    for (const name of names) {
      const groups = pattern.exec(name)?.groups;
      if (!groups || groups.arch !== options.arch || !groups.version) continue;
      const file = path.join(directory, name);
      // A download in progress holds `<version>.lock`; a missing `.md5` means an interrupted extraction.
      if (await exists(path.join(directory, `${groups.version}.lock`))) continue;
      if (!(await exists(`${file}.md5`))) continue;
      const info = await stat(file).catch(() => null);
      if (!info?.isFile() || info.size < MIN_BINARY_BYTES) continue;
      candidates.push({ path: file, version: groups.version });
    }
  }
  return candidates.sort((a, b) => {
    if (a.version === options.version) return -1;
    if (b.version === options.version) return 1;
    return compareVersions(b.version, a.version);
  });
}

/** A mongod available without any download, or why there is none. */
export async function findLocalMongod(options: { systemBinary: string | null }): Promise<MongodLookup> {
  if (options.systemBinary !== null) {
    const probe = await probeMongod(options.systemBinary);
    if (!probe.ok) {
      return {
        found: false,
        misconfigured: true,
        reason: `MONGOMS_SYSTEM_BINARY (${options.systemBinary}) is not a runnable mongod: ${probe.reason}`,
      };
    }
    return {
      found: true,
      binary: { path: options.systemBinary, version: probe.version, source: 'MONGOMS_SYSTEM_BINARY' },
    };
  }
  const module = await loadMemoryServerModule();
  if (module === null) return { found: false, reason: `${NO_MONGOD} (mongodb-memory-server-core is not installed)` };
  let candidates: CacheCandidate[];
  try {
    candidates = await cachedBinaries(module);
  } catch (error) {
    return { found: false, reason: `${NO_MONGOD} (cache lookup failed: ${describeError(error)})` };
  }
  for (const candidate of candidates) {
    // A cache shared between machines may hold a build for another distribution.
    const probe = await probeMongod(candidate.path);
    if (probe.ok) {
      return { found: true, binary: { path: candidate.path, version: probe.version, source: 'cache' } };
    }
  }
  return { found: false, reason: NO_MONGOD };
}

/** Starts a throwaway mongod on a free local port, data in a temporary directory removed on stop. */
export async function startMemoryServer(binary: MongodBinary): Promise<RunningMemoryServer> {
  const module = await loadMemoryServerModule();
  if (module === null) throw new Error('mongodb-memory-server-core is not installed');
  // systemBinary makes the library use exactly this file: it never downloads in that mode.
  const server = await module.MongoMemoryServer.create({
    binary: { systemBinary: binary.path, version: binary.version },
  });
  return {
    uri: server.getUri(),
    binary,
    async stop() {
      await server.stop({ doCleanup: true });
    },
  };
}

/** How a binary is described in the start-up log line. */
export function describeMongod(binary: MongodBinary): string {
  const from = binary.source === 'MONGOMS_SYSTEM_BINARY' ? 'MONGOMS_SYSTEM_BINARY' : binary.path;
  return `mongod ${binary.version} from ${from}`;
}
