/**
 * Shared pieces of the seed tests: a temporary seed directory, a fresh embedded storage, and a
 * collecting reporter.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { indexes } from '../../indexes/index.js';
import { type RecordProblem, type SeedReporter } from '../../src/import/report.js';
import { runSeed, type SeedOptions } from '../../src/import/run.js';
import { createEmbeddedStorage } from '../../src/storage/embedded/index.js';
import { type Storage } from '../../src/storage/port.js';

export const CONFIG = { siteTimezone: 'UTC', perPageMax: 50 } as const;

export async function openStorage(): Promise<Storage> {
  const storage = createEmbeddedStorage({ indexes, reason: 'test' });
  await storage.ensureIndexes();
  return storage;
}

/** A temporary directory; `write` puts files in it (objects as JSON, strings as they are). */
export function seedDir(files: Record<string, unknown> = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'calendar-seed-'));
  const write = (name: string, content: unknown) => {
    writeFileSync(path.join(dir, name), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    return path.join(dir, name);
  };
  for (const [name, content] of Object.entries(files)) write(name, content);
  return { dir, write, path: (name: string) => path.join(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function collectingReporter() {
  const problems: RecordProblem[] = [];
  const infos: string[] = [];
  const reporter: SeedReporter = { problem: (p) => problems.push(p), info: (m) => infos.push(m), progress: () => undefined };
  return { reporter, problems, infos };
}

export function seed(storage: Storage, paths: string[], options: Partial<SeedOptions> = {}) {
  const collected = collectingReporter();
  return runSeed({ storage, config: CONFIG, paths, reporter: collected.reporter, ...options }).then((report) => ({ report, ...collected }));
}

/** A small, complete calendar: two categories (one a child), a tag, a venue, an organizer, three events. */
export function smallCalendar() {
  return {
    'categories.json': [
      { slug: 'music', name: 'Music' },
      { slug: 'jazz', name: 'Jazz', parent: 'music' },
    ],
    'tags.json': [{ slug: 'outdoor', name: 'Outdoor' }],
    'venues.json': [{ slug: 'hall', venue: 'Concert Hall', city: 'Berlin', country: 'Germany', geo_lat: 52.5, geo_lng: 13.4 }],
    'organizers.json': [{ slug: 'office', organizer: 'Culture Office', email: 'office@example.org' }],
    'events.json': [
      // The occurrence comes before its series parent in the file: the loader writes the parent first.
      { slug: 'jam-2', title: 'Jam Session', start_date: '+8 days 20:00', end_date: '+8 days 22:00', timezone: 'Europe/Berlin', post_parent: 'jam' },
      {
        slug: 'jam',
        title: 'Jam Session',
        start_date: '+1 day 20:00',
        end_date: '+1 day 22:00',
        timezone: 'Europe/Berlin',
        venue: 'hall',
        organizer: ['office'],
        categories: ['jazz'],
        tags: ['outdoor'],
        cost: '12€',
      },
      { slug: 'gala', title: 'Gala', start_date: '2030-05-01 19:00', end_date: '2030-05-01 23:00', venue: 'hall', featured: true },
    ],
  };
}
