/**
 * A SIGTERM to the npm process stops what `npm start` and `npm run seed` run: npm passes the signal
 * to its child, and the scripts `exec` Node, so that child is Node itself rather than a shell that
 * would die and leave Node running (and holding the data directory's lock). Checked on the real
 * commands: within 10 s the port refuses connections, every process npm started is gone, and the
 * data directory can be opened again.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, mkdtempSync, openSync, constants as fsConstants, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { lockDirectory } from '../../src/storage/lmdb/lock.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const STOP_WITHIN_MS = 10_000;

const started: ChildProcess[] = [];
const descendantsSeen = new Set<number>();
const cleanups: Array<() => void> = [];

/** The processes below `pid` (Linux: from /proc), children first. */
function descendantsOf(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name is in parentheses and may hold spaces: the fields after it are plain.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parentOf.set(Number(entry), ppid);
    } catch {
      // Exited while listing.
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift() as number;
    for (const [child, ppid] of parentOf) {
      if (ppid === parent) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** Polls `check` until it holds or `ms` have passed; returns whether it held. */
async function within(ms: number, check: () => boolean | Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function npm(args: string[], env: Record<string, string>) {
  const child = spawn('npm', args, {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), STORAGE: 'embedded', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const closed = once(child, 'close');
  closed.catch(() => undefined);
  return { child, closed, output: () => output };
}

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Sends SIGTERM to npm alone, after noting every process it started. */
function terminateNpm(child: ChildProcess): number[] {
  const below = descendantsOf(child.pid as number);
  for (const pid of below) descendantsSeen.add(pid);
  child.kill('SIGTERM');
  return below;
}

afterEach(() => {
  // Whatever a failed test left running: the npm processes and the processes they started, by pid.
  for (const pid of descendantsSeen) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  descendantsSeen.clear();
  for (const child of started.splice(0)) if (!hasExited(child)) child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe.skipIf(process.platform !== 'linux')('SIGTERM to the npm process', () => {
  it('npm start: the server stops, the port is free and the data directory unlocked within 10 s', { timeout: 90_000 }, async () => {
    const dataDir = tempDir('calendar-npm-start-');
    const run = npm(['start'], { HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, SEED_ON_START: 'false' });
    const listening = await within(60_000, () => /listening at http:\/\/127\.0\.0\.1:\d+/.test(run.output()) || hasExited(run.child));
    const port = Number(/listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(run.output())?.[1]);
    expect(listening && port > 0, run.output()).toBe(true);
    expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).toBe(200);
    const lock = path.join(dataDir, 'lock');
    expect(existsSync(lock)).toBe(true);

    const processes = terminateNpm(run.child);
    expect(processes.length).toBeGreaterThan(0);
    const stopped = await within(
      STOP_WITHIN_MS,
      async () => (await refusesConnections(port)) && !existsSync(lock) && !processes.some(isAlive) && hasExited(run.child),
    );
    expect(stopped, `still running: ${processes.filter(isAlive).join(', ')}; lock ${existsSync(lock) ? 'held' : 'released'}\n${run.output()}`).toBe(true);
    await run.closed;
    // The server's own SIGTERM handling ran: in-flight requests finished, the storage closed.
    expect(run.output()).toContain('shut down cleanly');
    // A second server may open the directory.
    const again = await lockDirectory(dataDir);
    await again.release();
  });

  it('npm run seed: the seed stops mid-load and the data directory can be opened again within 10 s', { timeout: 90_000 }, async () => {
    const dataDir = tempDir('calendar-npm-seed-');
    // An events file that never ends: a FIFO this test holds open (read-write, so opening does not
    // wait for a reader). The seed reads its first records and then waits for more, mid-load.
    const fifo = path.join(tempDir('calendar-npm-seed-input-'), 'events.jsonl');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const writer = openSync(fifo, fsConstants.O_RDWR | fsConstants.O_NONBLOCK);
    cleanups.unshift(() => closeSync(writer));
    const run = npm(['run', 'seed', '--', fifo], { DATA_DIR: dataDir });
    const lock = path.join(dataDir, 'lock');
    // The lock is taken once the storage is open, before the files are read.
    const loading = await within(60_000, () => existsSync(lock) || hasExited(run.child));
    expect(loading && !hasExited(run.child), run.output()).toBe(true);

    const processes = terminateNpm(run.child);
    expect(processes.length).toBeGreaterThan(0);
    // npm ends as its child did: here by the signal.
    const stopped = await within(STOP_WITHIN_MS, () => !processes.some(isAlive) && hasExited(run.child));
    expect(stopped, `still running: ${processes.filter(isAlive).join(', ')}\n${run.output()}`).toBe(true);
    // The seed was cut short, not finished: no summary.
    expect(run.output()).not.toMatch(/records in/);
    // The lock of a process that is gone is taken over: the directory opens again.
    const again = await lockDirectory(dataDir);
    await again.release();
  });
});
