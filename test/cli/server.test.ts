/**
 * The real process: a bad setting stops start-up with exit status 2 and the variable named (which
 * settings are refused is src/config.ts's, tested in test/unit/config.test.ts). Start-up, requests
 * and the graceful SIGTERM shutdown are in ./start-up-log.test.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('server process', () => {
  it('refuses to start with an invalid setting, naming the variable', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: 'eighty', LOG_LEVEL: 'info', STORAGE: 'embedded' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const [code] = await once(child, 'exit');
    expect(code).toBe(2);
    expect(output).toContain('PORT');
  });
});
