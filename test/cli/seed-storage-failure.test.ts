/**
 * The seed command when storage rejects a bulk insert of events (e.g. MongoDB unreachable mid-load):
 * the run stops with exit code 1 and says why on stderr; it never prints the summary of a load
 * that completed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedCli } from '../../src/cli/seed.js';
import { StorageUnavailableError } from '../../src/errors.js';
import { type Storage } from '../../src/storage/port.js';
import { openStorage, seedDir, smallCalendar } from './seed-fixtures.js';

function capture() {
  let text = '';
  return { stream: { write: (chunk: string) => (text += chunk), isTTY: false, columns: 100 }, text: () => text };
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

describe('seed command, storage failure', () => {
  it('exits 1 with the reason when insertMany rejects, and reports nothing as written', async () => {
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
