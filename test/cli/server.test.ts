/**
 * The real process: start-up on the embedded engine with seed data, a request, and a graceful
 * SIGTERM shutdown; and a bad setting stopping start-up with the variable named.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const children: ChildProcess[] = [];

function startServer(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', STORAGE: 'embedded', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const listening = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 20_000);
    child.stdout?.on('data', () => {
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
    child.once('exit', () => reject(new Error(`server exited:\n${output}`)));
  });
  // Tests of failing start-ups never await `listening`; its rejection is expected there.
  listening.catch(() => undefined);
  return { child, listening, output: () => output };
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('server process', () => {
  it('serves seeded data and shuts down cleanly on SIGTERM', async () => {
    const server = startServer({});
    const base = await server.listening;
    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', engine: 'embedded' });
    // An event of the seed calendar (seeds/events.json).
    const event = await fetch(`${base}/calendar/events/v1/events/by-slug/symphony-night`);
    expect(event.status).toBe(200);
    expect(await event.json()).toMatchObject({ slug: 'symphony-night', title: 'Symphony Night' });

    server.child.kill('SIGTERM');
    const [code] = await once(server.child, 'exit');
    expect(code).toBe(0);
    expect(server.output()).toContain('shut down cleanly');
  });

  it('refuses to start with an invalid setting, naming the variable', async () => {
    const server = startServer({ PORT: 'eighty' });
    const [code] = await once(server.child, 'exit');
    expect(code).toBe(2);
    expect(server.output()).toContain('PORT');
  });

  it('refuses a token shorter than 24 characters', async () => {
    const server = startServer({ API_TOKENS: 'editor:short' });
    const [code] = await once(server.child, 'exit');
    expect(code).toBe(2);
    expect(server.output()).toContain('API_TOKENS');
  });
});
