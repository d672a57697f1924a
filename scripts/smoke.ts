/**
 * Smoke test of the compiled server as the Docker image runs it: the Dockerfile's CMD, from the
 * repository root, after `npm run build`. The server starts on a free loopback port (the image
 * listens on all interfaces) with an in-memory embedded store (STORAGE=embedded, DATA_DIR empty:
 * the seed calendar is loaded at start), and must
 *   - answer GET /health/ready with 200 within READY_TIMEOUT_MS,
 *   - answer the first page of the event list with 200 and a JSON body listing events,
 *   - exit with code 0 within EXIT_TIMEOUT_MS of SIGTERM.
 * 503s are retried until the deadline: a loaded machine may shed requests while the server warms
 * up. Exit code 0 when all hold; 1 otherwise, with the server's output.
 *
 * Usage: npm run build && npm run smoke
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** As long as the image's HEALTHCHECK start period: the seed calendar loads before the server listens. */
const READY_TIMEOUT_MS = 60_000;
const EXIT_TIMEOUT_MS = 15_000;
const REQUEST_TIMEOUT_MS = 5_000;
const POLL_MS = 250;
const EVENTS_PATH = '/calendar/events/v1/events';

class SmokeFailure extends Error {}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** The image's command line: the Dockerfile's exec-form CMD, `node` first. */
function imageCommand(dockerfile: string): string[] {
  const line = dockerfile
    .split('\n')
    .filter((text) => text.startsWith('CMD ['))
    .at(-1);
  if (line === undefined) throw new SmokeFailure('the Dockerfile has no exec-form CMD');
  const command = JSON.parse(line.slice('CMD '.length)) as unknown;
  if (!Array.isArray(command) || command[0] !== 'node' || !command.every((part) => typeof part === 'string')) {
    throw new SmokeFailure(`the Dockerfile's CMD is not a node command: ${line}`);
  }
  return command;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new SmokeFailure('no free port');
  return address.port;
}

/** GET `url` until it answers something other than 503 or a connection failure, or `deadline` passes. */
async function getUntil(url: string, deadline: number, server: ChildProcess): Promise<Response> {
  for (;;) {
    if (server.exitCode !== null || server.signalCode !== null) throw new SmokeFailure(`the server exited early (${server.exitCode ?? server.signalCode})`);
    let response: Response | null = null;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    } catch {
      // Not listening yet, or too slow to answer: asked again below.
    }
    if (response !== null && response.status !== 503) return response;
    await response?.body?.cancel();
    if (Date.now() >= deadline) throw new SmokeFailure(`no answer but 503 or a failure from ${url} within the deadline`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function stop(server: ChildProcess): Promise<number | null> {
  if (server.exitCode !== null || server.signalCode !== null) return server.exitCode;
  const exited = once(server, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  server.kill('SIGTERM');
  const timer = setTimeout(() => server.kill('SIGKILL'), EXIT_TIMEOUT_MS);
  const [code, signal] = await exited;
  clearTimeout(timer);
  if (signal !== null) throw new SmokeFailure(`the server did not exit within ${EXIT_TIMEOUT_MS / 1000} s of SIGTERM (ended by ${signal})`);
  return code;
}

/** The checks on a started server; its own notes on what passed. */
async function check(base: string, started: number, server: ChildProcess): Promise<string[]> {
  const notes: string[] = [];
  const ready = await getUntil(`${base}/health/ready`, started + READY_TIMEOUT_MS, server);
  await ready.body?.cancel();
  if (ready.status !== 200) throw new SmokeFailure(`GET /health/ready answered ${ready.status}`);
  notes.push(`ready after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const list = await getUntil(`${base}${EVENTS_PATH}`, Date.now() + READY_TIMEOUT_MS, server);
  const text = await list.text();
  if (list.status !== 200) throw new SmokeFailure(`GET ${EVENTS_PATH} answered ${list.status}: ${text.slice(0, 200)}`);
  const body = JSON.parse(text) as { events?: unknown };
  if (!Array.isArray(body.events)) throw new SmokeFailure(`GET ${EVENTS_PATH} answered no events array`);
  notes.push(`GET ${EVENTS_PATH}: 200, ${body.events.length} events`);
  return notes;
}

async function smoke(output: string[]): Promise<string[]> {
  const command = imageCommand(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  const entry = command.at(-1)!;
  if (!existsSync(join(ROOT, entry))) throw new SmokeFailure(`${entry} is missing: run npm run build first`);
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    STORAGE: 'embedded',
    DATA_DIR: '',
    LOG_FORMAT: 'json',
  };
  const started = Date.now();
  const server = spawn(process.execPath, command.slice(1), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  server.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const checked = await check(`http://127.0.0.1:${port}`, started, server).then(
    (notes) => ({ notes, error: null }),
    (error: unknown) => ({ notes: [], error: asError(error) }),
  );
  // Stopped whatever the checks found; their failure is the one reported when both fail.
  const stopped = await stop(server).then((code) => (code === 0 ? null : new SmokeFailure(`the server exited with code ${code} after SIGTERM`)), asError);
  if (checked.error !== null) throw checked.error;
  if (stopped !== null) throw stopped;
  return [`started: ${command.join(' ')} (port ${port})`, ...checked.notes, 'exited with code 0 after SIGTERM'];
}

const output: string[] = [];
try {
  for (const note of await smoke(output)) console.log(`smoke: ${note}`);
  console.log('smoke: passed');
} catch (error) {
  console.error(`smoke: FAILED: ${error instanceof SmokeFailure ? error.message : String(error)}`);
  if (!(error instanceof SmokeFailure) && error instanceof Error && error.stack) console.error(error.stack);
  if (output.length > 0) console.error(`--- the server's output ---\n${output.join('').trimEnd()}`);
  process.exitCode = 1;
}
