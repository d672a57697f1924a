/**
 * A write is acknowledged only once the data file is synced: under strace, every `ack` of
 * sync-child.ts comes after an fdatasync (or fsync, msync) of the data directory's file that
 * followed its `try`. A kill -9 cannot show this (the kernel keeps a killed process's writes), so
 * this reads the system calls. Runs where strace is installed.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir } from './helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHILD = fileURLToPath(new URL('./sync-child.ts', import.meta.url));
const strace = spawnSync('strace', ['-V']).status === 0;

describe('durable storage: acknowledged after the sync', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await removeDir(dir);
  });

  it.skipIf(!strace)('syncs the data file between each write and its acknowledgement', { timeout: 60_000 }, async () => {
    const dir = await makeTempDir('calendar-durable-sync-');
    dirs.push(dir);
    const trace = join(dir, 'trace.txt');
    // -y: file descriptors with their paths.
    const run = spawnSync(
      'strace',
      ['-f', '-y', '-e', 'trace=fdatasync,fsync,msync,write', '-o', trace, process.execPath, '--import', 'tsx', CHILD, join(dir, 'data')],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(run.status, run.stderr).toBe(0);
    // In trace order: the markers, and each completed sync of data.mdb (any thread; a call that
    // another thread's line interrupted completes on its `resumed` line).
    const events: string[] = [];
    const unfinished = new Set<string>();
    for (const line of readFileSync(trace, 'utf8').split('\n')) {
      const marker = /write\(1<[^>]*>, "(try|ack) (\d+)\\n"/.exec(line);
      const call = /^(\d+)\s+(?:fdatasync|fsync|msync)\(\d+<[^>]*data\.mdb>/.exec(line);
      const resumed = /^(\d+)\s+<\.\.\. (?:fdatasync|fsync|msync) resumed>.* = 0$/.exec(line);
      if (marker) events.push(`${marker[1]} ${marker[2]}`);
      else if (call && / = 0$/.test(line)) events.push('sync');
      else if (call && line.includes('<unfinished')) unfinished.add(call[1]!);
      else if (resumed && unfinished.delete(resumed[1]!)) events.push('sync');
    }
    for (let n = 1; n <= 5; n++) {
      const tried = events.indexOf(`try ${n}`);
      const acked = events.indexOf(`ack ${n}`);
      expect(tried, `try ${n}`).toBeGreaterThanOrEqual(0);
      expect(acked, `ack ${n}`).toBeGreaterThan(tried);
      expect(events.slice(tried, acked), `write ${n}: ${events.join(', ')}`).toContain('sync');
    }
  });
});
