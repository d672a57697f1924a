/**
 * The durable embedded engine (LMDB in DATA_DIR) beside the in-memory one:
 *
 * - load: the seed command loading the bench calendar (seeds/ plus `--events` generated events),
 *   records/s and the loading process's peak RSS;
 * - open: a new process opening the loaded directory (every document read into the engine, indexes
 *   built), in ms, and its RSS then; then the server's process opening it again;
 * - post: single `POST /events` at concurrency 1 over HTTP against that server (after a warm-up),
 *   p50/p99/mean latency, and the server's peak RSS.
 *
 * Each phase runs in a process of its own (a fresh heap, as `npm run seed` and `npm start` run), with
 * the Node options of those scripts; rounds repeat the whole, so figures of one run can be compared
 * across rounds. The memory store has no directory: only its load is measured.
 *
 *   npm run bench:durable -- [--events 100000] [--posts 2000] [--rounds 1] [--store durable,memory]
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { seedCli } from '../src/cli/seed.js';
import { loadConfig } from '../src/config.js';
import { createStorage } from '../src/storage/create-storage.js';
import { writeSeedFiles } from './seed-file.js';
import { scriptNodeFlags } from './server-process.js';

const { values: flags } = parseArgs({
  options: {
    events: { type: 'string', default: '100000' },
    posts: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '1' },
    store: { type: 'string', default: 'durable,memory' },
    // Internal: the phase a child process runs.
    phase: { type: 'string' },
    files: { type: 'string' },
    data: { type: 'string' },
  },
});
const TOKEN = 'bench-editor-token-0123456789abcdef';
const mib = (bytes: number): number => Math.round(bytes / 2 ** 20);
const peakRss = (): number => mib(process.resourceUsage().maxRSS * 1024);

function env(dataDir: string | undefined): Record<string, string> {
  return {
    STORAGE: 'embedded',
    ...(dataDir ? { DATA_DIR: dataDir } : {}),
    API_TOKENS: `editor:${TOKEN}`,
    SITE_TIMEZONE: 'UTC',
    SEED_ON_START: 'false',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_READS: '0',
    RATE_LIMIT_WRITES: '0',
    RATE_LIMIT_TOKEN_READS: '0',
    RATE_LIMIT_TOKEN_WRITES: '0',
    MAX_EVENT_LOOP_DELAY_MS: '0',
  };
}

type Report = Record<string, number | string>;
const report = (figures: Report): void => void process.send!(figures);

/** Child: the seed command loading the files into the store. */
async function load(files: string, dataDir: string | undefined): Promise<void> {
  const storage = await createStorage(loadConfig(env(dataDir)), { info: () => undefined, warn: (m) => process.stderr.write(`${m}\n`) });
  await storage.ensureIndexes();
  const started = performance.now();
  const code = await seedCli([files], { storage, env: env(dataDir), out: { write: () => true }, err: { write: () => true } });
  const seconds = (performance.now() - started) / 1000;
  await storage.close();
  if (code !== 0) throw new Error(`the seed command exited ${code}`);
  const records = Number(flags.events) + 30 + 30 + 40 + 25;
  report({ records, seconds, rate: Math.round(records / seconds), peakRss: peakRss() });
}

/** Opens the directory as the server does: the storage with its indexes, the time it took and the RSS then. */
async function openStore(dataDir: string) {
  const config = loadConfig(env(dataDir));
  const started = performance.now();
  const storage = await createStorage(config, { info: () => undefined, warn: (m) => process.stderr.write(`${m}\n`) });
  await storage.ensureIndexes();
  return { config, storage, openMs: Math.round(performance.now() - started), openRss: mib(process.memoryUsage().rss) };
}

/** Child: opens the directory and closes it. */
async function openOnly(dataDir: string): Promise<void> {
  const { storage, openMs, openRss } = await openStore(dataDir);
  const documents = await storage.events.count({});
  await storage.close();
  report({ openMs, openRss, documents });
}

/** Child: opens the directory, then serves it until told to stop. */
async function serve(dataDir: string): Promise<void> {
  const { config, storage, openMs, openRss } = await openStore(dataDir);
  const app = buildApp({ config, storage, logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  report({ port: address.port, openMs, openRss, documents: await storage.events.count({}) });
  process.on('message', () => {
    report({ peakRss: peakRss() });
    void app
      .close()
      .then(() => storage.close())
      .then(() => process.exit(0));
  });
}

function child(args: string[], script: 'seed' | 'start'): { next: () => Promise<Report>; done: Promise<void>; send: () => void } {
  const proc = fork(fileURLToPath(import.meta.url), args, { execArgv: ['--import', 'tsx', ...scriptNodeFlags(script)], stdio: 'inherit' });
  const queue: Report[] = [];
  const waiting: Array<(report: Report) => void> = [];
  proc.on('message', (message: Report) => (waiting.length > 0 ? waiting.shift()!(message) : queue.push(message)));
  const done = new Promise<void>((resolve, reject) =>
    proc.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')}: exit ${code}`)))),
  );
  return {
    next: () =>
      queue.length > 0
        ? Promise.resolve(queue.shift()!)
        : Promise.race([new Promise<Report>((resolve) => waiting.push(resolve)), done.then(() => Promise.reject(new Error('child ended')))]),
    done,
    send: () => void proc.send('stop'),
  };
}

/** Sequential creates (one in flight); returns latencies in ms. */
async function posts(port: number, count: number, tag: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const body = JSON.stringify({
      title: `Bench ${tag} ${i}`,
      description: `<p>Created by the durable bench, number ${i}.</p>`,
      start_date: '2031-05-01 19:00:00',
      end_date: '2031-05-01 22:00:00',
      cost: '12',
    });
    const t = performance.now();
    const response = await fetch(`http://127.0.0.1:${port}/calendar/events/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body,
    });
    await response.arrayBuffer();
    times.push(performance.now() - t);
    if (response.status !== 201) throw new Error(`POST /events answered ${response.status}`);
  }
  return times;
}

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function main(): Promise<void> {
  if (flags.phase === 'load') return load(flags.files!, flags.data);
  if (flags.phase === 'open') return openOnly(flags.data!);
  if (flags.phase === 'serve') return serve(flags.data!);

  const events = Number(flags.events);
  const stores = flags.store.split(',');
  const work = mkdtempSync(path.join(tmpdir(), 'calendar-bench-durable-'));
  try {
    const files = path.join(work, 'files');
    rmSync(files, { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(files));
    await writeSeedFiles(files, { events, format: 'jsonl' });
    const rows: string[] = [];
    for (let round = 1; round <= Number(flags.rounds); round++) {
      for (const store of stores) {
        const data = store === 'durable' ? path.join(work, `data-${round}`) : undefined;
        const loader = child(['--phase', 'load', '--files', files, '--events', String(events), ...(data ? ['--data', data] : [])], 'seed');
        const loaded = await loader.next();
        await loader.done;
        let line = `round ${round} ${store.padEnd(7)} load ${String(loaded.rate).padStart(6)} records/s (${Number(loaded.seconds).toFixed(2)} s, peak RSS ${loaded.peakRss} MiB)`;
        if (data) {
          const reader = child(['--phase', 'open', '--data', data], 'start');
          const first = await reader.next();
          await reader.done;
          const server = child(['--phase', 'serve', '--data', data], 'start');
          const opened = await server.next();
          await posts(Number(opened.port), 200, `warm-${round}`);
          const times = (await posts(Number(opened.port), Number(flags.posts), `run-${round}`)).sort((a, b) => a - b);
          server.send();
          const served = await server.next();
          await server.done;
          const mean = times.reduce((a, b) => a + b, 0) / times.length;
          line +=
            `; open ${first.openMs} ms for ${first.documents} events (RSS ${first.openRss} MiB), again ${opened.openMs} ms` +
            `; POST /events p50 ${quantile(times, 0.5).toFixed(2)} ms p99 ${quantile(times, 0.99).toFixed(2)} ms mean ${mean.toFixed(2)} ms (server peak RSS ${served.peakRss} MiB)`;
          rmSync(data, { recursive: true, force: true });
        }
        console.log(line);
        rows.push(line);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
