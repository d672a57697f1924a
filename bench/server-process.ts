/**
 * Starting and talking to a bench server process (bench/server.ts) from a driver script.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type CeilingMessage, type CeilingParentMessage, type ParentMessage, type RequestFacts, type ServerMessage } from './protocol.js';

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  facts: RequestFacts;
  generatedMs: number;
  rss: number;
}

/**
 * The Node/V8 options an npm script of package.json runs with, so a bench measures the command as
 * run: its `--` options, without the TypeScript loader (`--import tsx`), which a compiled or
 * already-loading process does not take again.
 */
export function scriptNodeFlags(script: 'start' | 'seed'): string[] {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8')) as { scripts: Record<string, string> };
  return nodeFlagsOf(pkg.scripts[script]!);
}

/** The `--` options of a command line, less `--import <loader>`. */
export function nodeFlagsOf(command: string): string[] {
  const flags: string[] = [];
  const parts = command.split(/\s+/);
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === '--import') i++;
    else if (parts[i]!.startsWith('--')) flags.push(parts[i]!);
  }
  return flags;
}

/**
 * The Node/V8 options the service runs with, read from `npm start` (the Dockerfile's CMD carries the
 * same; test/cli/seed-deployment.test.ts checks it), so the bench measures the service as started.
 * README "Memory".
 */
export const SERVICE_NODE_FLAGS: string[] = scriptNodeFlags('start');

/**
 * Forks the server on a calendar of `events` events; `args` go to bench/server.ts, `execArgv` to
 * node, `env` is added to the child's environment; `script` is another checkout's bench/server.ts
 * for a baseline.
 */
export function startServer(
  events: number,
  args: string[] = [],
  execArgv: string[] = [],
  env: Record<string, string> = {},
  script = fileURLToPath(new URL('./server.ts', import.meta.url)),
): Promise<ServerProcess> {
  const child = fork(script, ['--events', String(events), ...args], {
    // A million events need more than the default old-space limit; smaller calendars keep the default.
    // --expose-gc: the server collects once after building the calendar (bench/server.ts).
    execArgv: ['--import', 'tsx', '--expose-gc', ...SERVICE_NODE_FLAGS, ...(events > 300_000 ? ['--max-old-space-size=16384'] : []), ...execArgv],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`The bench server exited early (code ${code}).`)));
    child.on('message', (message: ServerMessage) => {
      if (message.type === 'ready') resolve({ child, port: message.port, facts: message.facts, generatedMs: message.generatedMs, rss: message.rss });
    });
  });
}

function send(child: ChildProcess, message: ParentMessage): void {
  child.send(message);
}

/** Peak RSS, longest event-loop stall and GC time since the previous call (the server then resets them). */
export function serverFigures(child: ChildProcess): Promise<{ peak: number; heapAtPeak: number; current: number; loopDelayMaxMs: number; gcMs: number }> {
  return new Promise((resolve) => {
    const onMessage = (message: ServerMessage): void => {
      if (message.type !== 'rss') return;
      child.off('message', onMessage);
      resolve(message);
    };
    child.on('message', onMessage);
    send(child, { type: 'rss' });
  });
}

/** How long a server may take to answer `settle` before it is taken for one that does not know it (an older checkout's). */
const SETTLE_ANSWER_MS = 3000;
/** The server counts as idle once it used less than IDLE_SHARE of a core over IDLE_WINDOW_MS, twice in a row. */
const IDLE_WINDOW_MS = 250;
const IDLE_SHARE = 0.05;
/** The longest wait for idleness: on a loaded machine the measurement then starts anyway. */
const MAX_SETTLE_MS = 20_000;

/**
 * Brings a freshly started (and just warmed) server to a steady state before it is measured: a
 * full collection of the heap its calendar's generation and warm-up left (bench/server.ts runs
 * `gc()` when asked; a server that does not answer is left to its own collector), then a wait
 * until the process — every thread of it: the collector's helpers and the optimising compiler
 * too — is idle. A deployed server is measured long after its start; without this the first
 * scenario would also measure the collector and compiler finishing the start-up.
 */
export async function settleServer(child: ChildProcess): Promise<{ collected: boolean; idle: boolean; ms: number }> {
  const started = performance.now();
  const collected = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => finish(false), SETTLE_ANSWER_MS);
    const onMessage = (message: ServerMessage): void => {
      if (message.type === 'settled') finish(message.collected);
    };
    const finish = (value: boolean): void => {
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(value);
    };
    child.on('message', onMessage);
    send(child, { type: 'settle' });
  });
  let quietWindows = 0;
  let before = processCpuMs(child.pid);
  while (quietWindows < 2 && performance.now() - started < MAX_SETTLE_MS && before !== undefined) {
    await new Promise((resolve) => setTimeout(resolve, IDLE_WINDOW_MS));
    const after = processCpuMs(child.pid);
    if (after === undefined) break;
    quietWindows = after - before < IDLE_WINDOW_MS * IDLE_SHARE ? quietWindows + 1 : 0;
    before = after;
  }
  return { collected, idle: quietWindows >= 2, ms: performance.now() - started };
}

export async function stopServer(child: ChildProcess): Promise<void> {
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  send(child, { type: 'stop' });
  await exited;
}

/**
 * Forks the ceiling server (bench/ceiling-server.ts) with the service's Node options, serving
 * `body` with `headers` at `/page` and an empty 304 at `/not-modified`; resolves with its port.
 */
export function startCeiling(body: Buffer, headers: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  const script = fileURLToPath(new URL('./ceiling-server.ts', import.meta.url));
  const child = fork(script, [], { execArgv: ['--import', 'tsx', ...SERVICE_NODE_FLAGS], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const page: CeilingParentMessage = { type: 'page', body: body.toString('base64'), headers };
  child.send(page);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`The ceiling server exited early (code ${code}).`)));
    child.on('message', (message: CeilingMessage) => {
      if (message.type === 'ready') resolve({ child, port: message.port });
    });
  });
}

export async function stopCeiling(child: ChildProcess): Promise<void> {
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop: CeilingParentMessage = { type: 'stop' };
  child.send(stop);
  await exited;
}

let clockTicks: number | undefined;

/**
 * CPU time (user + system, every thread: the collector's helpers too) a process has used, in ms,
 * read from /proc; undefined where there is none. Taken from outside, so any checkout's server
 * can be measured the same way (--baseline): on a shared machine, CPU time per request moves far
 * less with other work than requests per second do.
 */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
  } catch {
    return undefined;
  }
}

export const mib = (bytes: number): number => Math.round(bytes / 2 ** 20);
