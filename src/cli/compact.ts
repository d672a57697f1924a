/**
 * `npm run compact`: gives the free space of the embedded engine's LMDB file (DATA_DIR/data.mdb)
 * back to the file system. LMDB reuses the pages that deletions and updates free, but its file
 * never shrinks; this writes a compacted copy and swaps it in. The service must be stopped: the
 * directory's lock refuses the command while a process has it open.
 *
 * Exit codes: 0 compacted; 1 failure (the directory in use, no LMDB file, a file system error);
 * 2 bad arguments or configuration (DATA_DIR not set).
 */
import { compactDataDirectory } from '../storage/lmdb/index.js';
import { type OutputStream } from './seed-output.js';
import { runIfMain, startCli, UsageError } from './start.js';

export const COMPACT_USAGE = `Usage: npm run compact

Rewrites the embedded engine's LMDB file in DATA_DIR (default ./data) without its free space.
Stop the service first: the command refuses a directory in use.
  -h, --help   show this help

Exit codes: 0 compacted; 1 failure; 2 bad arguments or configuration.
`;

function parseCompactArgs(argv: readonly string[]): { help: boolean } {
  for (const arg of argv) if (arg !== '--help' && arg !== '-h') throw new UsageError(`unknown argument ${arg}`);
  return { help: argv.length > 0 };
}

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

export async function compactCli(
  argv: readonly string[],
  options: { out?: OutputStream; err?: OutputStream; env?: Record<string, string | undefined> } = {},
): Promise<number> {
  const out = options.out ?? process.stdout;
  const err = options.err ?? process.stderr;
  const started = startCli(argv, parseCompactArgs, { name: 'compact', usage: COMPACT_USAGE, env: options.env, out, err });
  if (typeof started === 'number') return started;
  const { dataDir } = started.config;
  if (dataDir === null) {
    err.write('compact: DATA_DIR is not set: there is no data directory to compact.\n');
    return 2;
  }
  try {
    const { file, before, after } = await compactDataDirectory(dataDir);
    out.write(`compacted ${file}: ${mib(before)} → ${mib(after)}\n`);
    return 0;
  } catch (error) {
    err.write(`compact: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

runIfMain(import.meta.url, 'compact', (argv) => compactCli(argv));
