/**
 * Seed loads counted in instructions, not seconds (bench/seed-speed.md, "Counting instructions
 * instead of timing loads"). This machine's speed moves 1.6 times within minutes, so a change of a
 * few percent cannot be judged by the clock; instruction counts move by ~0.1% from run to run.
 *
 * The seed command runs compiled (tsc into a temporary directory: no TypeScript transform in the
 * count) under `valgrind --tool=cachegrind --cache-sim=no`, with V8's `--predictable` (the compiler
 * and the collector on the load's thread, so the same code makes the same decisions). Each store is
 * counted twice: loading the bench's calendar, and loading its small files only (start-up and the
 * venues, organizers, categories and tags); the difference is the events' share.
 *
 *   npm run bench:instructions -- [--events 30000] [--store durable,memory]
 *
 * Needs valgrind (not installed with the project). Two counts run at a time; a 30,000-event durable
 * load takes ~2.5 minutes under valgrind.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSeedFiles } from './seed-file.js';
import { scriptNodeFlags } from './server-process.js';

const STORES = ['durable', 'memory'] as const;
type Store = (typeof STORES)[number];

interface Options {
  events: number;
  stores: Store[];
}

function parseArgs(argv: string[]): Options {
  const options: Options = { events: 30_000, stores: ['durable', 'memory'] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--events') options.events = Number(argv[++i]);
    else if (arg === '--store') options.stores = (argv[++i] ?? '').split(',') as Store[];
    else throw new Error(`unknown argument ${arg}`);
  }
  if (!Number.isInteger(options.events) || options.events < 1) throw new Error('--events needs a positive whole number');
  if (options.stores.length === 0 || options.stores.some((store) => !STORES.includes(store)))
    throw new Error(`--store takes ${STORES.join(', ')} (comma-separated)`);
  return options;
}

const root = fileURLToPath(new URL('..', import.meta.url));

/** The project compiled into `dir`, runnable with the project's node_modules. */
function build(dir: string): string {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json'), '--outDir', dir, '--sourceMap', 'false'], { stdio: 'inherit' });
  writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}\n');
  symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return path.join(dir, 'src', 'cli', 'seed.js');
}

/** Instructions (cachegrind's `I refs`) of one seed load. */
function count(seedScript: string, files: string, store: Store, work: string): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env, STORAGE: 'embedded' };
  delete env.MONGODB_URI;
  delete env.DATA_DIR;
  if (store === 'durable') env.DATA_DIR = mkdtempSync(path.join(work, 'data-'));
  // The Node options of `npm run seed`, plus --predictable.
  const args = [
    '--tool=cachegrind',
    '--cache-sim=no',
    `--cachegrind-out-file=${path.join(work, 'cachegrind.out.%p')}`,
    process.execPath,
    '--predictable',
    ...scriptNodeFlags('seed'),
    seedScript,
    files,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('valgrind', args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      const refs = /I\s+refs:\s+([\d,]+)/.exec(stderr);
      if (code !== 0 || refs === null) reject(new Error(`the ${store} load under valgrind failed (exit ${code}):\n${stderr.slice(-2000)}`));
      else resolve(Number(refs[1]!.replace(/,/g, '')));
    });
  });
}

/** Runs the tasks two at a time (a count keeps one CPU busy). */
async function twoAtATime<T>(tasks: Array<() => Promise<T>>): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all([lane(), lane()]);
  return results;
}

const giga = (n: number): string => `${(n / 1e9).toFixed(3)} G`;

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if (spawnSync('valgrind', ['--version']).status !== 0) {
    process.stderr.write('valgrind is not installed: instruction counts need valgrind (cachegrind). Time loads with npm run bench:seed instead.\n');
    process.exitCode = 1;
    return;
  }
  const work = mkdtempSync(path.join(tmpdir(), 'calendar-bench-instructions-'));
  try {
    const seedScript = build(path.join(work, 'build'));
    const full = path.join(work, 'calendar');
    mkdirSync(full);
    await writeSeedFiles(full, { events: options.events, format: 'jsonl' });
    // The same calendar without its events: start-up and the small files.
    const small = path.join(work, 'small');
    cpSync(full, small, { recursive: true, filter: (source) => !source.endsWith('.jsonl') });
    process.stdout.write(`counting ${options.events.toLocaleString('en-US')} events (JSON Lines) per store, under valgrind (minutes)…\n`);
    const tasks = options.stores.flatMap((store) => [() => count(seedScript, full, store, work), () => count(seedScript, small, store, work)]);
    const counts = await twoAtATime(tasks);
    options.stores.forEach((store, i) => {
      const [all, base] = [counts[2 * i]!, counts[2 * i + 1]!];
      const events = all - base;
      process.stdout.write(
        `${store}: ${giga(all)} instructions for the load, ${giga(base)} without its events; ` +
          `the events: ${giga(events)} = ${Math.round(events / options.events).toLocaleString('en-US')} instructions an event\n`,
      );
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
