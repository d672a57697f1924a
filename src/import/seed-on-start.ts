/**
 * Start-up seeding: an empty store gets the calendar in seeds/, so
 * `npm start` shows data at once. It is the import the seed command runs (src/import/run.ts): the
 * same validation, slugs and service writes as `npm run seed`.
 */
import { type Config } from '../config.js';
import { formatProblem, type SeedReport } from './report.js';
import { runSeed } from './run.js';
import { RESOURCES } from './schemas.js';
import { defaultSeedsDir } from './sources.js';
import { type Storage } from '../storage/port.js';

export async function isEmpty(storage: Storage): Promise<boolean> {
  const counts = await Promise.all([
    storage.events.count({}),
    storage.venues.count({}),
    storage.organizers.count({}),
    storage.categories.count({}),
    storage.tags.count({}),
  ]);
  return counts.every((n) => n === 0);
}

/**
 * Loads seeds/ when SEED_ON_START asks for it (unset: on the embedded engine only) and the store is
 * empty. A seed that does not load stops start-up: it ships with the service and must be valid.
 */
export async function seedIfEmpty({
  storage,
  config,
  log,
  paths = [defaultSeedsDir()],
}: {
  storage: Storage;
  config: Pick<Config, 'seedOnStart' | 'siteTimezone' | 'perPageMax'>;
  log: { info(msg: string): void };
  /** Seed files or directories (default: seeds/). */
  paths?: string[];
}): Promise<SeedReport | null> {
  const wanted = config.seedOnStart ?? storage.engine === 'embedded';
  if (!wanted) return null;
  if (!(await isEmpty(storage))) {
    log.info('seed: the store has data; nothing loaded');
    return null;
  }
  const problems: string[] = [];
  const report = await runSeed({
    storage,
    config,
    paths,
    reporter: { problem: (p) => problems.push(formatProblem(p)), info: () => undefined, progress: () => undefined },
  });
  if (report.outcome !== 'ok') {
    throw new Error(`seed: the seed data did not load:\n${problems.slice(0, 20).join('\n')}`);
  }
  const loaded = RESOURCES.map((r) => `${report.counts[r].created} ${r}`).join(', ');
  log.info(`seed: loaded ${loaded} in ${report.durationMs} ms`);
  return report;
}
