/**
 * The seed command: arguments, exit codes and what it prints, in-process through `seedCli`, plus the
 * real process (`node --import tsx src/cli/seed.ts`, what `npm run seed` runs).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseSeedArgs, SEED_EXIT_CODES, seedCli } from '../../src/cli/seed.js';
import { createConsoleReporter } from '../../src/cli/seed-output.js';
import { StorageUnavailableError } from '../../src/errors.js';
import { type Storage } from '../../src/storage/port.js';
import { openStorage, seedDir, smallCalendar } from '../import/fixtures.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function capture(isTTY = false) {
  let text = '';
  return { stream: { write: (chunk: string) => (text += chunk), isTTY, columns: 100 }, text: () => text };
}

let storage: Storage;
let dir: ReturnType<typeof seedDir>;
beforeEach(async () => {
  storage = await openStorage();
  dir = seedDir(smallCalendar());
});
afterEach(async () => {
  dir.remove();
  await storage.close();
});

async function run(argv: string[]) {
  const out = capture();
  const err = capture();
  const code = await seedCli(argv, { out: out.stream, err: err.stream, storage, env: { STORAGE: 'embedded' } });
  return { code, out: out.text(), err: err.text() };
}

describe('seed command', () => {
  it('loads, then says nothing changed on a second run', async () => {
    const first = await run([dir.dir]);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^events\s+3\s+0\s+0\s+0$/m);
    expect(first.out).toMatch(/^total\s+8\s+0\s+0\s+0$/m);
    const second = await run([dir.dir]);
    expect(second.code).toBe(0);
    expect(second.out).toMatch(/^events\s+0\s+0\s+3\s+0$/m);
    expect(second.out).toContain('Everything was up to date: nothing changed.');
  });

  it('exits 1 listing invalid records, and writes nothing', async () => {
    dir.write('events.json', [{ slug: 'x', title: 'X', start_date: 'someday', end_date: '+1 day' }]);
    dir.write('venues.json', [{ slug: 'hall', venue: 'Hall', geo_lat: 95, geo_lng: 13 }]);
    const result = await run([dir.dir]);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/invalid: .*events\.json\[0\] \(x\) start_date: start_date is not a valid date\./);
    expect(result.err).toMatch(/invalid: .*venues\.json\[0\] \(hall\) geo_lat: geo_lat must be a number from -90 to 90\./);
    expect(result.out).toContain('2 invalid records; nothing was written.');
    expect(await storage.venues.count({})).toBe(0);
  });

  it('exits 3 when --prune finds records but --yes is missing, 0 with --yes', async () => {
    await run([dir.dir]);
    dir.write('events.json', smallCalendar()['events.json'].slice(0, 2));
    const listed = await run([dir.dir, '--prune']);
    expect(listed.code).toBe(3);
    expect(listed.out).toContain('run again with --yes to remove them');
    expect(listed.out).toContain('events to remove (1): gala');
    const removed = await run([dir.dir, '--prune', '--yes']);
    expect(removed.code).toBe(0);
    expect(removed.out).toMatch(/^events\s+0\s+0\s+2\s+0\s+1$/m);
    expect(removed.out).toContain('events removed (1): gala');
  });

  it('exits 0 when the import is ok, 1 when records are invalid or writes failed, 3 for unconfirmed pruning', () => {
    expect(SEED_EXIT_CODES).toEqual({ ok: 0, invalid: 1, failed: 1, 'prune-unconfirmed': 3 });
  });

  it('says what a dry run would do', async () => {
    const result = await run([dir.dir, '--dry-run']);
    expect(result.code).toBe(0);
    expect(result.out).toContain('Dry run: nothing was written');
    expect(await storage.events.count({})).toBe(0);
  });

  it('refuses bad arguments with exit 2 and shows help', async () => {
    expect((await run(['--frobnicate'])).code).toBe(2);
    expect((await run(['--yes'])).err).toContain('--yes confirms --prune');
    expect((await run(['--concurrency', '0'])).code).toBe(2);
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('Usage: npm run seed');
    expect(parseSeedArgs(['a', '--batch-size=50', '--prune', '-y'])).toMatchObject({ paths: ['a'], batchSize: 50, prune: true, yes: true });
  });

  it('reads options alone or with =value, and refuses any other spelling as an unknown option', () => {
    expect(parseSeedArgs(['--concurrency', '8', '--batch-size=20', '--dry-run', 'seeds', '-'])).toEqual({
      paths: ['seeds', '-'],
      dryRun: true,
      prune: false,
      yes: false,
      help: false,
      concurrency: 8,
      batchSize: 20,
    });
    expect(parseSeedArgs(['-h'])).toMatchObject({ help: true });
    const refused: Array<[string[], string]> = [
      [['-hy'], 'unknown option -hy'],
      [['--frobnicate=1'], 'unknown option --frobnicate=1'],
      [['--', 'a'], 'unknown option --'],
      [['--constructor'], 'unknown option --constructor'],
      [['--concurrency'], '--concurrency needs a whole number from 1 to 999999'],
      [['--batch-size=1000000'], '--batch-size needs a whole number from 1 to 999999'],
    ];
    for (const [argv, message] of refused) expect(() => parseSeedArgs(argv), argv.join(' ')).toThrow(message);
  });

  it('exits 2 when a path names no seed file: missing, an empty directory, a file not named after a resource', async () => {
    const empty = seedDir();
    const other = seedDir({ 'speakers.json': [] });
    try {
      const cases: Array<[string, string]> = [
        ['/no/such/dir', '/no/such/dir: no such file or directory'],
        [dir.path('events-missing.json'), 'events-missing.json: no such file or directory'],
        [empty.dir, 'no seed files in this directory'],
        [other.path('speakers.json'), 'speakers.json: cannot tell what it holds'],
      ];
      for (const [path, message] of cases) {
        const result = await run([dir.dir, path]);
        expect(result.code, path).toBe(2);
        expect(result.err, path).toContain(message);
      }
      expect(await storage.events.count({})).toBe(0);
    } finally {
      empty.remove();
      other.remove();
    }
  });

  it('exits 1 for a bad file found in a directory: the path itself names seed files', async () => {
    dir.write('speakers.json', []);
    const result = await run([dir.dir]);
    expect(result.code).toBe(1);
    expect(result.err).toContain('speakers.json: cannot tell what it holds');
  });

  it('exits 2 on an invalid configuration', async () => {
    const err = capture();
    expect(await seedCli([], { err: err.stream, out: capture().stream, env: { SITE_TIMEZONE: 'Nowhere/Land' } })).toBe(2);
    expect(err.text()).toContain('SITE_TIMEZONE');
  });

  it('draws a progress bar on a terminal and plain lines elsewhere', () => {
    let now = 0;
    const tty = capture(true);
    const bar = createConsoleReporter(tty.stream, { clock: () => now });
    for (let i = 1; i <= 2000; i++) {
      now += 1;
      bar.progress('loading', i, 2000);
    }
    bar.finish();
    expect(tty.text()).toContain('\r\x1b[2K');
    expect(tty.text()).toMatch(/loading\s+\[#+\] 100% 2,000\/2,000/);

    now = 0;
    const plain = capture(false);
    const lines = createConsoleReporter(plain.stream, { clock: () => now });
    for (let i = 1; i <= 2000; i++) {
      now += 1;
      lines.progress('loading', i, 2000);
    }
    lines.finish();
    expect(plain.text()).not.toContain('\r');
    expect(
      plain
        .text()
        .split('\n')
        .filter((l) => /^loading: [\d,]+\/2,000 \(\d+0%\)/.test(l)),
    ).toHaveLength(10);
  });

  it('runs as a process: exit codes and output (what npm run seed runs)', async () => {
    const spawnSeed = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/seed.ts', ...args], {
          cwd: root,
          env: { PATH: process.env.PATH ?? '', STORAGE: 'embedded' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.on('exit', (code) => resolve({ code, stdout, stderr }));
      });
    // A success and a failure whose status is neither 0 nor 1: the process exits with what seedCli
    // returns (which status each failure gets is tested in-process above).
    const [ok, missing] = await Promise.all([spawnSeed([dir.dir]), spawnSeed([dir.path('no-such-events.json')])]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^total\s+8\s+0\s+0\s+0$/m);
    expect(ok.stderr).toContain('storage engine: embedded');
    expect(missing.code, missing.stderr).toBe(2);
    expect(missing.stderr).toContain('no-such-events.json: no such file or directory');
  }, 60_000);

  it('exits 1 with the reason when the storage refuses a bulk insert, and reports nothing as written', async () => {
    storage.events.insertMany = () => Promise.reject(new StorageUnavailableError());
    const out = capture();
    const err = capture();
    const code = await seedCli([dir.dir], { out: out.stream, err: err.stream, storage, env: { STORAGE: 'embedded' } });
    expect(code).toBe(1);
    expect(err.text()).toMatch(/^seed: .*The storage is unavailable, please retry later\.$/m);
    expect(out.text()).toBe('');
    expect(await storage.events.count({})).toBe(0);
  });
});
