/**
 * Seed CLI throughput: generates a large events file (JSON Lines or CSV) that references
 * the venues, organizers, categories and tags of seeds/, loads it through the seed command, and
 * prints records/s — for the first load (creates) and a second one (every record compared, nothing
 * written) — and the peak RSS. Each store is measured in a process of its own (a fresh heap):
 *
 * - `durable`: the embedded engine with a data directory (a temporary one), as `npm run seed` and
 *   `npm start` use it: every write committed to LMDB;
 * - `memory`: the embedded engine without one (what the test suites use);
 * - with MONGODB_URI set, `--store configured` loads into that database instead.
 *
 *   npm run bench:seed -- [--events 100000] [--format jsonl|csv] [--runs 2] [--store durable,memory] [--keep]
 *
 * Target: ≥ 20,000 records/s on the embedded engine.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedCli } from '../src/cli/seed.js';
import { loadConfig } from '../src/config.js';
import { createStorage } from '../src/storage/create-storage.js';
import { describeHost, readHost } from './host-cpu.js';
import { writeSeedFiles } from './seed-file.js';
import { scriptNodeFlags } from './server-process.js';

const TARGET = 20_000;

/**
 * The Node/V8 options `npm run seed` runs with (a larger young generation: a load keeps a batch of
 * records, documents and log records alive at once, and the collector copied them over and over).
 */
const SEED_NODE_FLAGS = scriptNodeFlags('seed');

const STORES = ['durable', 'memory', 'configured'] as const;
type Store = (typeof STORES)[number];

interface Options {
  events: number;
  format: 'jsonl' | 'csv';
  runs: number;
  keep: boolean;
  stores: Store[];
  /** Internal: the child process measuring one store on the parent's files. */
  child: { store: Store; dir: string } | null;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { events: 100_000, format: 'jsonl', runs: 2, keep: false, stores: ['durable', 'memory'], child: null };
  let childDir: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--events') options.events = Number(argv[++i]);
    else if (arg === '--format') options.format = argv[++i] === 'csv' ? 'csv' : 'jsonl';
    else if (arg === '--runs') options.runs = Number(argv[++i]);
    else if (arg === '--keep') options.keep = true;
    else if (arg === '--store') options.stores = (argv[++i] ?? '').split(',') as Store[];
    else if (arg === '--child-dir') childDir = argv[++i] ?? null;
    else throw new Error(`unknown argument ${arg}`);
  }
  if (!Number.isInteger(options.events) || options.events < 1) throw new Error('--events needs a positive whole number');
  const unknown = options.stores.filter((store) => !STORES.includes(store));
  if (unknown.length > 0 || options.stores.length === 0) throw new Error(`--store takes ${STORES.join(', ')} (comma-separated)`);
  if (childDir !== null) options.child = { store: options.stores[0]!, dir: childDir };
  return options;
}

/** The configuration a store is measured with (the rest of the environment as given). */
function storeEnv(store: Store, dataDir: string | null): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.DATA_DIR;
  if (store === 'configured') return { ...env, STORAGE: env.STORAGE ?? (env.MONGODB_URI ? 'auto' : 'embedded') };
  delete env.MONGODB_URI;
  return { ...env, STORAGE: 'embedded', ...(dataDir !== null ? { DATA_DIR: dataDir } : {}) };
}

/** One store, in this (child) process: the runs on the files in `dir`. */
async function measure(options: Options, store: Store, dir: string): Promise<void> {
  const dataDir = store === 'durable' ? mkdtempSync(path.join(tmpdir(), 'calendar-bench-seed-data-')) : null;
  const config = loadConfig(storeEnv(store, dataDir));
  const storage = await createStorage(config, { info: () => undefined, warn: (m) => process.stdout.write(`${m}\n`) });
  await storage.ensureIndexes();
  const label = `${store} (${storage.reason})`;
  try {
    for (let run = 1; run <= options.runs; run++) {
      const t = performance.now();
      const cpu = process.cpuUsage();
      // Process CPU counts the collector's and the file system's threads too; the main thread's is the load's.
      const host = readHost();
      // The CLI's summary is shown; its progress lines (one a second, on stderr) are not.
      const code = await seedCli([dir], { storage, env: storeEnv(store, dataDir), err: { write: () => true } });
      const seconds = (performance.now() - t) / 1000;
      const used = process.cpuUsage(cpu);
      const cpuSeconds = (used.user + used.system) / 1e6;
      const records = options.events + 30 + 30 + 40 + 25;
      const rate = Math.round(records / seconds);
      const facts = describeHost(host);
      process.stdout.write(
        `${label} run ${run}: exit ${code}, ${records.toLocaleString('en-US')} records in ${seconds.toFixed(2)} s = ${rate.toLocaleString('en-US')} records/s ` +
          `(${run === 1 ? 'creates' : 'all unchanged'}; target ≥ ${TARGET.toLocaleString('en-US')}: ${rate >= TARGET ? 'met' : 'NOT met'}); ` +
          `CPU ${cpuSeconds.toFixed(2)} s = ${Math.round(records / cpuSeconds).toLocaleString('en-US')} records per CPU-second` +
          `${facts === '' ? '' : `; ${facts}`}\n`,
      );
    }
  } finally {
    await storage.close();
    if (dataDir !== null) rmSync(dataDir, { recursive: true, force: true });
  }
  const lives = storage.engine === 'embedded' ? ' (the embedded store lives in this process)' : '';
  process.stdout.write(`${label}: peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB${lives}\n`);
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if (options.child) return measure(options, options.child.store, options.child.dir);

  const dir = mkdtempSync(path.join(tmpdir(), 'calendar-bench-seed-'));
  const t = performance.now();
  const eventsFile = await writeSeedFiles(dir, options);
  process.stdout.write(
    `generated ${options.events.toLocaleString('en-US')} events (${options.format}) in ${((performance.now() - t) / 1000).toFixed(1)} s: ${eventsFile}\n`,
  );
  try {
    for (const store of options.stores) {
      // A process per store: each load starts from a fresh heap, as `npm run seed` does.
      const args = [
        ...process.execArgv,
        ...SEED_NODE_FLAGS,
        fileURLToPath(import.meta.url),
        '--child-dir',
        dir,
        '--store',
        store,
        '--events',
        String(options.events),
        '--runs',
        String(options.runs),
      ];
      const child = spawnSync(process.execPath, args, { stdio: 'inherit' });
      if (child.status !== 0) throw new Error(`measuring ${store} failed (exit ${child.status ?? child.signal})`);
    }
  } finally {
    if (!options.keep) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
