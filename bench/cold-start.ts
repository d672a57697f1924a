/**
 * `npm run bench:cold`: what a new server costs its first callers. Starts the service as `npm start`
 * does (the same Node options, `node --import tsx … src/server.ts`, JSON logs) on a new temporary
 * DATA_DIR, so start-up seeds the calendar of seeds/, and prints:
 *
 * - start→ready: from spawning the process to its "Server listening" line; with the CPU time the
 *   server's main thread spent until then (less disturbed by other load on a shared machine than
 *   the wall time; Linux only), the host's steal meanwhile, and the warm-up's own time as the
 *   server logs it at debug (none before it had one);
 * - the first and the second of each of GET /events, GET /events/{id}, GET /venues and
 *   POST /events (with an editor token), one after the other, each on a new connection;
 *
 * then the same after a restart on the same DATA_DIR (no seeding: the common start), and after a
 * second restart with the POSTs first (a write as the very first request).
 *
 *   npm run bench:cold -- [--runs 5] [--baseline <checkout>]
 *
 * `--baseline` starts another checkout of the service (e.g. a `git worktree` of an older commit,
 * with a node_modules) in turns with this one, so both are measured under the same machine load.
 * Each checkout's first start is not counted: it fills tsx's transform cache.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cpuFromTaskStat, stealSeconds } from './host-cpu.js';
import { nodeFlagsOf } from './server-process.js';

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    baseline: { type: 'string' },
  },
});
const runs = Number(flags.runs);
const THIS_CHECKOUT = fileURLToPath(new URL('..', import.meta.url));
const NS = 'calendar/events/v1';
const TOKEN = `bench-${randomBytes(16).toString('hex')}`;
/** The longest a start may take before the bench gives up on it. */
const START_TIMEOUT_MS = 120_000;

const MEASURES = [
  'start→ready',
  'ready: main thread CPU',
  'ready: host steal',
  'ready: of it warm-up',
  'GET /events 1st',
  'GET /events 2nd',
  'GET /events/{id} 1st',
  'GET /events/{id} 2nd',
  'GET /venues 1st',
  'GET /venues 2nd',
  'POST /events 1st',
  'POST /events 2nd',
] as const;
type Measure = (typeof MEASURES)[number];
type Figures = Record<Measure, number>;

interface Server {
  child: ChildProcess;
  port: number;
  readyMs: number;
  /** CPU milliseconds of the server's main thread until ready; NaN where /proc is not there. */
  readyCpuMs: number;
  /** CPU milliseconds the hypervisor gave to other guests meanwhile (all CPUs); NaN where unknown. */
  stealMs: number;
  /** The warm-up's time from its debug line; NaN when the server logged none. */
  warmUpMs: number;
}

function mainThreadCpuMs(pid: number): number {
  try {
    const seconds = cpuFromTaskStat(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8'));
    return seconds === null ? Number.NaN : seconds * 1000;
  } catch {
    return Number.NaN;
  }
}

/** Starts `checkout` as its own `npm start` would, on `dataDir`; resolves once it listens. */
function start(checkout: string, dataDir: string): Promise<Server> {
  const pkg = JSON.parse(readFileSync(path.join(checkout, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(MONGODB_|STORAGE$|PORT$|HOST$|API_TOKENS$|DATA_DIR$|LOG_|SEED_ON_START$|RATE_LIMIT)/.test(key)) env[key] = value;
  }
  Object.assign(env, { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', API_TOKENS: `editor:${TOKEN}`, LOG_FORMAT: 'json', LOG_LEVEL: 'debug' });
  const stealBefore = stealSeconds();
  const began = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', ...nodeFlagsOf(pkg.scripts.start!), 'src/server.ts'], {
    cwd: checkout,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${checkout}: not listening after ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    let pending = '';
    let warmUpMs = Number.NaN;
    const onData = (chunk: Buffer): void => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        const warmUp = /"msg":"warm-up: \d+ requests in (\d+) ms/.exec(line)?.[1];
        if (warmUp !== undefined) warmUpMs = Number(warmUp);
        const port = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(line)?.[1];
        if (port === undefined) continue;
        const readyMs = performance.now() - began;
        const stealAfter = stealSeconds();
        clearTimeout(timer);
        // The rest of the output is read and dropped, so a full pipe never blocks the server.
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve({
          child,
          port: Number(port),
          readyMs,
          readyCpuMs: mainThreadCpuMs(child.pid!),
          stealMs: stealBefore === null || stealAfter === null ? Number.NaN : (stealAfter - stealBefore) * 1000,
          warmUpMs,
        });
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${checkout}: the server exited with code ${code} before listening`));
    });
  });
}

async function stop(server: Server): Promise<void> {
  server.child.removeAllListeners('exit');
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

/** One request on a new connection; the time until the whole body has arrived. */
function request(port: number, method: string, url: string, body?: unknown): Promise<{ ms: number; status: number; body: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = {};
  if (payload !== undefined) Object.assign(headers, { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` });
  const began = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: url, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ ms: performance.now() - began, status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** The client's own first-request costs (http module, JIT), paid against a local no-op server first. */
async function warmClient(): Promise<void> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{"events":[{"id":1}]}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  for (let i = 0; i < 20; i++) {
    JSON.parse((await request(port, 'GET', '/')).body);
    await request(port, 'POST', '/', { title: 'x' });
  }
  await new Promise((resolve) => server.close(resolve));
}

let created = 0;
async function measureRequests(port: number, figures: Partial<Figures>, writesFirst: boolean): Promise<void> {
  const api = `/${NS}`;
  const check = (what: string, response: { status: number; body: string }, expected: number): void => {
    if (response.status !== expected) throw new Error(`${what} answered ${response.status}: ${response.body.slice(0, 300)}`);
  };
  const writes = async (): Promise<void> => {
    for (const nth of ['1st', '2nd'] as const) {
      created++;
      const write = await request(port, 'POST', `${api}/events`, {
        title: `Cold start check ${created}`,
        start_date: '2031-03-14 18:00:00',
        end_date: '2031-03-14 20:00:00',
        description: 'Written by bench/cold-start.ts into a temporary data directory.',
        venue: { venue: `Bench hall ${created}`, city: 'Lyon', country: 'France' },
        categories: ['Music'],
      });
      check('POST /events', write, 201);
      figures[`POST /events ${nth}`] = write.ms;
    }
  };
  if (writesFirst) await writes();
  let id = 0;
  for (const nth of ['1st', '2nd'] as const) {
    const list = await request(port, 'GET', `${api}/events`);
    check('GET /events', list, 200);
    figures[`GET /events ${nth}`] = list.ms;
    id = (JSON.parse(list.body) as { events: Array<{ id: number }> }).events[0]!.id;
  }
  for (const nth of ['1st', '2nd'] as const) {
    const one = await request(port, 'GET', `${api}/events/${id}`);
    check('GET /events/{id}', one, 200);
    figures[`GET /events/{id} ${nth}`] = one.ms;
  }
  for (const nth of ['1st', '2nd'] as const) {
    const venues = await request(port, 'GET', `${api}/venues`);
    check('GET /venues', venues, 200);
    figures[`GET /venues ${nth}`] = venues.ms;
  }
  if (!writesFirst) await writes();
}

const PHASES = [
  { name: 'first start (seeds an empty DATA_DIR), reads then writes', writesFirst: false },
  { name: 'restart on the same DATA_DIR, reads then writes', writesFirst: false },
  { name: 'restart on the same DATA_DIR, writes first', writesFirst: true },
] as const;

/** The phases, one server process each, on one new data directory. */
async function measure(checkout: string): Promise<Figures[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'calendar-cold-'));
  try {
    const result: Figures[] = [];
    for (const phase of PHASES) {
      const server = await start(checkout, dataDir);
      const figures: Partial<Figures> = {
        'start→ready': server.readyMs,
        'ready: main thread CPU': server.readyCpuMs,
        'ready: host steal': server.stealMs,
        'ready: of it warm-up': server.warmUpMs,
      };
      try {
        await measureRequests(server.port, figures, phase.writesFirst);
      } finally {
        await stop(server);
      }
      result.push(figures as Figures);
    }
    return result;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (all: number[]): number => {
  const sorted = all.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const ms = (value: number): string => (Number.isNaN(value) ? '—' : value >= 100 ? value.toFixed(0) : value.toFixed(1));

function report(label: string, samples: Figures[]): void {
  process.stdout.write(`\n${label} (${samples.length} runs): median [min–max] ms\n`);
  for (const measure of MEASURES) {
    const values = samples.map((s) => s[measure]);
    const known = values.filter((v) => !Number.isNaN(v));
    const range = known.length === 0 ? '' : `[${ms(Math.min(...known))}–${ms(Math.max(...known))}]`;
    const line = `  ${measure.padEnd(22)} ${ms(median(values)).padStart(7)}  ${range.padEnd(13)}  runs: ${values.map(ms).join(', ')}`;
    process.stdout.write(`${line}\n`);
  }
}

const checkouts =
  flags.baseline === undefined
    ? [{ name: 'this checkout', dir: THIS_CHECKOUT }]
    : [
        { name: `baseline ${flags.baseline}`, dir: path.resolve(flags.baseline) },
        { name: 'this checkout', dir: THIS_CHECKOUT },
      ];
await warmClient();
const samples = new Map(checkouts.map((c) => [c.name, PHASES.map(() => [] as Figures[])]));
for (const checkout of checkouts) {
  process.stdout.write(`priming ${checkout.name} (not counted)\n`);
  await measure(checkout.dir);
}
for (let run = 1; run <= runs; run++) {
  for (const checkout of checkouts) {
    const figures = await measure(checkout.dir);
    figures.forEach((f, i) => samples.get(checkout.name)![i]!.push(f));
    const [first, restart, writesFirst] = figures as [Figures, Figures, Figures];
    process.stdout.write(
      `run ${run} ${checkout.name}: ready ${ms(first['start→ready'])} / ${ms(restart['start→ready'])} ms ` +
        `(main thread CPU ${ms(first['ready: main thread CPU'])} / ${ms(restart['ready: main thread CPU'])} ms; first start / restart), ` +
        `first GET /events ${ms(first['GET /events 1st'])} / ${ms(restart['GET /events 1st'])} ms, first POST /events as the first request ${ms(writesFirst['POST /events 1st'])} ms\n`,
    );
  }
}
for (const checkout of checkouts) {
  PHASES.forEach((phase, i) => report(`${checkout.name}: ${phase.name}`, samples.get(checkout.name)![i]!));
}
