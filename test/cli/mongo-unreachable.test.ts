/**
 * `npm start` and `npm run indexes` against a MongoDB where nothing listens: one line naming the
 * host:port and the cause, no stack trace and no credential from MONGODB_URI, and a non-zero exit.
 * The server is spawned as npm start runs it; it takes the default server selection timeout (5 s)
 * to give up.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.js';
import { indexesCli } from '../../src/cli/indexes.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('server start-up with an unreachable MongoDB', () => {
  it('exits non-zero with one line naming host:port and ECONNREFUSED, no stack, no password', { timeout: 30_000 }, async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
        STORAGE: 'mongodb',
        MONGODB_URI: `mongodb://calendar:secret@127.0.0.1:${port}/calendar?authSource=admin`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(killer);

    expect(code, output).not.toBe(0);
    expect(code, output).not.toBeNull();
    const about = output.split('\n').filter((line) => line.includes(`127.0.0.1:${port}`));
    expect(about, output).toHaveLength(1);
    expect(about[0]).toContain('ECONNREFUSED');
    expect(output).not.toContain('secret');
    expect(output).not.toContain('    at ');
  });
});

describe('npm run indexes with an unreachable MongoDB', () => {
  it('says where and why in one line, without the password, and exits 1', async () => {
    const port = await freePort();
    let out = '';
    let err = '';
    const code = await indexesCli(['--check'], {
      out: { write: (chunk: string) => (out += chunk) },
      err: { write: (chunk: string) => (err += chunk) },
      env: { MONGODB_URI: `mongodb://calendar:secret@127.0.0.1:${port}/calendar` },
      mongoTimeouts: { serverSelectionMS: 300, connectMS: 300 },
    });
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toBe(`indexes: cannot reach MongoDB at 127.0.0.1:${port}: connection refused (ECONNREFUSED)\n`);
  });
});
