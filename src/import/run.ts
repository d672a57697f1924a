/**
 * The import of seed data as a use case: validates every record of the seed files, then upserts
 * them by slug through the services the API uses, in dependency order (categories, tags, venues,
 * organizers, events), and optionally removes what the files no longer hold. The seed command
 * (src/cli/seed.ts) and start-up seeding (src/import/seed-on-start.ts) both run it.
 *
 * Rules (documented in docs/seeding.md):
 * - Nothing is written unless every record is valid: the API's schemas (schemas.ts), the
 *   services' own value checks (dates, time zones, costs, URLs), unique slugs, and references that
 *   name a record of the files or of the store. Every problem is reported with file, index and field.
 * - Identity is the slug, per resource: a record whose slug is stored updates that record, otherwise
 *   it is created with that slug. A record without `slug` takes the one its name/title makes.
 * - Updates are partial, like the API's: a field the record leaves out keeps its stored
 *   value. A stored record in the trash comes back (status `publish`) unless the record names a status.
 * - Change detection: a record is rewritten only when a stored field would change, so a second run
 *   writes nothing and reports every record unchanged.
 * - Relative dates (`+3 days 19:30`) count from the event's publication date: the record's `date` /
 *   `date_utc` if it gives one (it must be absolute), else the moment the event was first loaded
 *   (which becomes its publication date). Loaded into an empty store the calendar is upcoming; loaded
 *   again later, the same records mean the same instants, so nothing changes.
 * - `prune` removes the records of the resources the run has files for whose slugs the files do not
 *   hold (and no file record references): events, venues and organizers go to the trash through the
 *   services (as an API DELETE does; reversible), categories and tags are deleted. Without `yes` it
 *   only lists them.
 * - Streamed files (JSON Lines, CSV) are validated in batches; the write pass takes the records the
 *   validation pass kept (up to 100,000 events a run) and reads larger files again. What else is kept
 *   between records is bounded: event slugs as 64-bit fingerprints (16 bytes each), and a
 *   least-recently-used slug→id cache backed by storage lookups.
 *
 * - An event record with `recurrence` is a series, written through the series service (series.ts).
 *
 * The passes are modules of their own: validation.ts, apply.ts, prune.ts;
 * mapping.ts makes the services' bodies; state.ts holds what the passes share.
 */
import { type Config } from '../config.js';
import { createServices } from '../services/index.js';
import { type Storage } from '../storage/port.js';
import { apply } from './apply.js';
import { prune } from './prune.js';
import { type PruneList, SeedError, type SeedOutcome, SeedPathError, type SeedReport, type SeedReporter, silentReporter } from './report.js';
import { RESOURCES, type Resource } from './schemas.js';
import { discoverSources, PathError, SourceError } from './sources.js';
import { RunState, SMALL } from './state.js';
import { validate } from './validation.js';

export interface SeedOptions {
  storage: Storage;
  /** RECURRENCE_* left out: their defaults (series records, src/import/series.ts). */
  config: Pick<Config, 'siteTimezone' | 'perPageMax'> & Partial<Pick<Config, 'recurrenceHorizonDays' | 'recurrenceMaxOccurrences'>>;
  /** Seed files and directories. */
  paths: readonly string[];
  /** Validate and compare, write nothing. */
  dryRun?: boolean;
  /** Also remove the records the files do not hold (listed only, unless `yes`). */
  prune?: boolean;
  yes?: boolean;
  /** The run's clock (relative dates of new records count from it). */
  now?: Date;
  reporter?: SeedReporter;
  /** Writes in flight at once. */
  concurrency?: number;
  /** Streamed events handled per batch (one slug lookup per batch). */
  batchSize?: number;
  /** Event records kept from the validation pass for the write pass at most (more: files are read again). */
  keptEventsLimit?: number;
}

/** RECURRENCE_MAX_OCCURRENCES's default (src/config.ts), for a caller that leaves it out. */
const DEFAULT_RECURRENCE_MAX_OCCURRENCES = 1000;

/** Event records kept between the passes at most by default (about 1 KB each). */
const MAX_KEPT_EVENTS = 100_000;

/**
 * Runs an import. Invalid records, refused writes and unconfirmed pruning are outcomes of the
 * report; an unreadable file or a storage failure throws a SeedError (SeedPathError when the paths
 * name no seed file, before anything is read).
 */
export async function runSeed(options: SeedOptions): Promise<SeedReport> {
  const started = performance.now();
  const dryRun = options.dryRun ?? false;
  // The run is acknowledged by its report, so its writes need not each wait to be durable: all
  // are before the report is made (see written).
  const bulk = dryRun ? undefined : options.storage.bulkLoad?.();
  const storage = bulk?.storage ?? options.storage;
  const settle = bulk ? () => bulk.settle() : () => Promise.resolve();
  const run = new RunState({
    storage,
    services: createServices({ storage, config: options.config }),
    reporter: options.reporter ?? silentReporter,
    dryRun,
    siteTimezone: options.config.siteTimezone,
    now: new Date(Math.floor((options.now ?? new Date()).getTime() / 1000) * 1000),
    concurrency: Math.max(1, options.concurrency ?? 64),
    batchSize: Math.max(1, options.batchSize ?? 1000),
    keptEventsLimit: options.keptEventsLimit ?? MAX_KEPT_EVENTS,
    recurrenceMaxOccurrences: options.config.recurrenceMaxOccurrences ?? DEFAULT_RECURRENCE_MAX_OCCURRENCES,
  });
  const report = (outcome: SeedOutcome, pruned: Partial<Record<Resource, PruneList>> | null, pruneSkipped?: string): SeedReport => ({
    outcome,
    dryRun,
    invalidRecords: run.invalidRecords,
    problems: run.problems,
    counts: run.counts,
    prune: pruned,
    ...(pruneSkipped ? { pruneSkipped } : {}),
    records: run.total,
    durationMs: Math.round(performance.now() - started),
  });

  try {
    run.sources = await discoverSources(options.paths);
  } catch (error) {
    if (error instanceof PathError) throw new SeedPathError(error.message);
    if (error instanceof SourceError) throw new SeedError(error.message);
    throw error;
  }
  await validate(run);
  if (run.invalidRecords > 0) return report('invalid', null);
  run.total = SMALL.reduce((n, r) => n + run.entries[r].length, 0) + run.eventRecords;
  await written(settle, apply(run));
  const failed = RESOURCES.some((r) => run.counts[r].failed > 0);
  if (!options.prune) return report(failed ? 'failed' : 'ok', null);
  if (failed) return report('failed', null, 'some records failed, so nothing was pruned');
  const pruned = await written(settle, prune(run, options.yes === true && !dryRun));
  const pending = Object.values(pruned).some((p) => p.count > 0);
  return report(pending && !options.yes ? 'prune-unconfirmed' : 'ok', pruned);
}

/**
 * `work`'s result once every write made so far is durable. When the work fails, what it wrote
 * still goes to disk (the storage's close waits for it), but nothing is reported as done.
 */
async function written<T>(settle: () => Promise<void>, work: Promise<T>): Promise<T> {
  const result = await work;
  try {
    await settle();
  } catch (error) {
    throw new SeedError(`the storage could not make the writes durable: ${error instanceof Error ? error.message : String(error)}`);
  }
  return result;
}
