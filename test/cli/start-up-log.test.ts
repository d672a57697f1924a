/**
 * What the server process writes: after listening, one short block saying where it listens, where
 * the API docs are, the storage and where its data lives, and every risky mode in words; health
 * probes only at debug; LOG_LEVEL=debug adding lines that info leaves out; LOG_FORMAT=pretty
 * giving human-readable lines instead of JSON. Every run ends with a SIGTERM that must exit 0
 * (the graceful shutdown), and the first serves the seed calendar it loaded at start-up.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const children: ChildProcess[] = [];
const dirs: string[] = [];

interface Line {
  level: number;
  msg: string;
  req?: { url?: string };
}

/**
 * Starts the server, asks for readiness once it listens (then runs `whileListening`, if given),
 * stops it with SIGTERM; returns all it wrote to stdout.
 */
async function runServer(env: Record<string, string>, whileListening?: (base: string) => Promise<void>): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', STORAGE: 'embedded', LOG_FORMAT: 'json', SEED_ON_START: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // 'close': the process has exited and its output has all been read.
  const exited = once(child, 'close');
  // The block is written at once after the listening line, before the SIGTERM below is handled.
  const deadline = Date.now() + 45_000;
  while (!/listening at http:\/\/127\.0\.0\.1:\d+/.test(stdout)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start:\n${stdout}\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const base = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
  expect((await fetch(`${base}/health/ready`)).status).toBe(200);
  await whileListening?.(base!);
  child.kill('SIGTERM');
  const [code] = await exited;
  expect(code, stderr).toBe(0);
  return stdout;
}

const jsonLines = (stdout: string): Line[] =>
  stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Line);

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('server process output', () => {
  it('prints the start-up block once listening, at info, with nothing at debug; serves the seed calendar', { timeout: 90_000 }, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'calendar-start-up-'));
    dirs.push(dataDir);
    // A relative DATA_DIR, as `npm start` sets it: the block names the absolute directory.
    const stdout = await runServer({ DATA_DIR: path.relative(root, dataDir), SEED_ON_START: 'true' }, async (base) => {
      const ready = await fetch(`${base}/health/ready`);
      expect(await ready.json()).toMatchObject({ status: 'ready', engine: 'embedded' });
      // An event of the seed calendar (seeds/events.json).
      const event = await fetch(`${base}/calendar/events/v1/events/by-slug/symphony-night`);
      expect(event.status).toBe(200);
      expect(await event.json()).toMatchObject({ slug: 'symphony-night', title: 'Symphony Night' });
    });
    const lines = jsonLines(stdout);
    const messages = lines.map((l) => l.msg);
    const listening = messages.findIndex((m) => m.startsWith('calendar-service listening on '));
    expect(listening).toBeGreaterThan(0);
    const port = /:(\d+)$/.exec(messages[listening] as string)?.[1];
    expect(messages.slice(listening, listening + 5)).toEqual([
      `calendar-service listening on http://127.0.0.1:${port}`,
      `API docs: http://127.0.0.1:${port}/docs/`,
      `storage: embedded, data in ${dataDir} (durable)`,
      'read-only: no API_TOKENS set, writes answer 401',
      expect.stringMatching(/^seed: the store was empty, loaded \d+ categories, \d+ tags, \d+ venues, \d+ organizers, \d+ events$/),
    ]);
    for (const line of lines.slice(listening, listening + 5)) expect(line.level).toBe(30);
    // At info: no debug line, and the readiness probe made no request line.
    expect(lines.filter((l) => l.level < 30)).toEqual([]);
    expect(lines.filter((l) => l.req?.url?.startsWith('/health/'))).toEqual([]);
    expect(messages).toContain('shut down cleanly');
  });

  it('adds debug lines with LOG_LEVEL=debug: settings, indexes, health probes, shutdown steps', { timeout: 90_000 }, async () => {
    const lines = jsonLines(await runServer({ LOG_LEVEL: 'debug', API_TOKENS: `editor:${'e'.repeat(24)}` }));
    const debug = lines.filter((l) => l.level === 20).map((l) => l.msg);
    expect(debug).toEqual(
      expect.arrayContaining([
        'configuration',
        expect.stringMatching(/^indexes ensured in \d+ ms$/),
        'incoming request',
        'request completed',
        'HTTP server closed; closing storage',
      ]),
    );
    expect(lines.filter((l) => l.level === 20 && l.req?.url === '/health/ready')).toHaveLength(1);
    // The settings line counts the tokens and never shows one.
    expect(JSON.stringify(lines)).not.toContain('e'.repeat(24));
    const messages = lines.map((l) => l.msg);
    expect(messages).toContain('storage: embedded, in memory: data is lost when the process exits (DATA_DIR is not set)');
    expect(messages.some((m) => m.startsWith('read-only'))).toBe(false);
  });

  it('writes human-readable lines with LOG_FORMAT=pretty', { timeout: 90_000 }, async () => {
    const stdout = await runServer({ LOG_FORMAT: 'pretty' });
    const lines = stdout.split('\n').filter((line) => line.trim() !== '');
    for (const line of lines) expect(line.startsWith('{'), line).toBe(false);
    expect(stdout).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: calendar-service listening on http:\/\/127\.0\.0\.1:\d+$/m);
    expect(stdout).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: storage: embedded, in memory: data is lost when the process exits/m);
    expect(stdout).toMatch(/INFO: shut down cleanly$/m);
  });
});
