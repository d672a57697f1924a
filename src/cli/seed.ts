/**
 * `npm run seed -- [files or directories] [--dry-run] [--prune [--yes]]`: loads seed files into the
 * storage the configuration selects (the same as the server's: MONGODB_URI, STORAGE, DATA_DIR).
 * With no path, the seeds/ directory. Exit codes: 0 done, 1 invalid records / failed writes / error,
 * 2 bad arguments or configuration, 3 `--prune` found records to remove but `--yes` was not given.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { SeedPathError, type SeedOutcome } from '../import/report.js';
import { runSeed } from '../import/run.js';
import { defaultSeedsDir } from '../import/sources.js';
import { createStorage } from '../storage/create-storage.js';
import { type Storage } from '../storage/port.js';
import { createConsoleReporter, formatSummary, type OutputStream } from './seed-output.js';
import { runIfMain, startCli, UsageError } from './start.js';

export const SEED_USAGE = `Usage: npm run seed -- [files or directories] [options]

Loads seed files (default: the seeds/ directory) into the configured storage, upserting by slug.
Files are named after their resource: categories*, tags*, venues*, organizers*, events*
(.json arrays; .jsonl/.ndjson one record a line; events also .csv). See docs/seeding.md.

Options:
  --dry-run          validate and compare with the store; write nothing
  --prune            also remove stored records absent from the files (lists them only ...)
  --yes              ... unless --yes confirms the removal
  --concurrency <n>  writes in flight at once (default 64)
  --batch-size <n>   streamed events per batch (default 1000)
  -h, --help         show this help

Exit codes: 0 done; 1 invalid records, failed writes or an error; 2 bad arguments or
configuration; 3 --prune found records to remove but --yes was not given (nothing removed).
`;

/** The exit code of each outcome of a run (a bad argument is 2, an error 1: see seedCli). */
export const SEED_EXIT_CODES: Readonly<Record<SeedOutcome, 0 | 1 | 3>> = { ok: 0, invalid: 1, failed: 1, 'prune-unconfirmed': 3 };

export interface SeedArgs {
  paths: string[];
  dryRun: boolean;
  prune: boolean;
  yes: boolean;
  help: boolean;
  concurrency?: number;
  batchSize?: number;
}

/** The options of the command; any other is a usage error. */
const OPTIONS = {
  'dry-run': { type: 'boolean' },
  prune: { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
  help: { type: 'boolean', short: 'h' },
  concurrency: { type: 'string' },
  'batch-size': { type: 'string' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

const positive = (flag: string, value: string | undefined): number => {
  if (value === undefined || !/^[1-9]\d{0,5}$/.test(value)) throw new UsageError(`${flag} needs a whole number from 1 to 999999`);
  return Number(value);
};

/**
 * The arguments, read by `parseArgs` without its strict mode, whose own errors would word usage
 * problems differently: an option is known only when spelled alone (`-hy` is no `-h -y`) or, when
 * long, with `=value` (which a boolean option ignores); `--` and any other option are refused as
 * `unknown option <argument>`.
 */
export function parseSeedArgs(argv: readonly string[]): SeedArgs {
  const args: SeedArgs = { paths: [], dryRun: false, prune: false, yes: false, help: false };
  const { tokens } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: false, tokens: true });
  for (const token of tokens) {
    if (token.kind === 'positional') {
      args.paths.push(token.value);
      continue;
    }
    const arg = argv[token.index] as string;
    const known =
      token.kind === 'option' &&
      Object.hasOwn(OPTIONS, token.name) &&
      (arg === token.rawName || (token.inlineValue === true && arg.startsWith(`${token.rawName}=`)));
    if (!known) throw new UsageError(`unknown option ${arg}`);
    switch (token.name as keyof typeof OPTIONS) {
      case 'dry-run':
        args.dryRun = true;
        break;
      case 'prune':
        args.prune = true;
        break;
      case 'yes':
        args.yes = true;
        break;
      case 'help':
        args.help = true;
        break;
      case 'concurrency':
        args.concurrency = positive(token.rawName, token.value);
        break;
      case 'batch-size':
        args.batchSize = positive(token.rawName, token.value);
        break;
    }
  }
  if (args.yes && !args.prune) throw new UsageError('--yes confirms --prune; it means nothing alone');
  return args;
}

export interface SeedCliOptions {
  out?: OutputStream;
  err?: OutputStream;
  env?: Record<string, string | undefined>;
  /** A storage to use instead of the configured one (tests); it is not closed. */
  storage?: Storage;
  now?: Date;
}

/** Runs the CLI; returns the exit code. */
export async function seedCli(argv: readonly string[], options: SeedCliOptions = {}): Promise<number> {
  const out = options.out ?? process.stdout;
  const err = options.err ?? process.stderr;
  const started = startCli(argv, parseSeedArgs, { name: 'seed', usage: SEED_USAGE, env: options.env, out, err });
  if (typeof started === 'number') return started;
  const { args, config } = started;

  let storage = options.storage;
  const owned = storage === undefined;
  const reporter = createConsoleReporter(err);
  try {
    if (storage === undefined) {
      storage = await createStorage(config, { info: (m) => err.write(`${m}\n`), warn: (m) => err.write(`${m}\n`) });
      await storage.ensureIndexes();
      if (storage.engine === 'embedded' && config.dataDir === null && !args.dryRun) {
        err.write(
          'Note: the embedded engine without DATA_DIR keeps nothing once this command ends; set DATA_DIR (npm run seed uses ./data, like npm start) or MONGODB_URI.\n',
        );
      }
    }
    const report = await runSeed({
      storage,
      config,
      paths: args.paths.length > 0 ? args.paths : [defaultSeedsDir()],
      dryRun: args.dryRun,
      prune: args.prune,
      yes: args.yes,
      reporter,
      ...(options.now ? { now: options.now } : {}),
      ...(args.concurrency !== undefined ? { concurrency: args.concurrency } : {}),
      ...(args.batchSize !== undefined ? { batchSize: args.batchSize } : {}),
    });
    reporter.finish();
    out.write(formatSummary(report, { prune: args.prune, yes: args.yes }));
    return SEED_EXIT_CODES[report.outcome];
  } catch (error) {
    reporter.finish();
    err.write(`seed: ${error instanceof Error ? error.message : String(error)}\n`);
    // A path that names no seed file is a bad argument, like an unknown option.
    return error instanceof SeedPathError ? 2 : 1;
  } finally {
    if (owned && storage) await storage.close().catch(() => undefined);
  }
}

runIfMain(import.meta.url, 'seed', (argv) => seedCli(argv));
