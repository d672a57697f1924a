/**
 * What an import run tells its caller: each problem as it is found (through a reporter), progress,
 * and at the end a report of counts and outcome. Turning these into text, progress bars or exit
 * codes is the caller's (src/cli/seed.ts, start-up seeding).
 */
import { type Resource } from './schemas.js';

export interface RecordProblem {
  /** `invalid`: found by validation (nothing written); `failed`: a write the service refused. */
  kind: 'invalid' | 'failed';
  resource: Resource;
  /** `file[index]` (JSON) or `file:line` (JSON Lines, CSV). */
  location: string;
  file: string;
  index: number;
  line?: number;
  slug?: string;
  field: string;
  message: string;
}

export interface ResourceCounts {
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  removed: number;
}

export interface PruneList {
  count: number;
  /** The first few slugs, for the report. */
  slugs: string[];
}

export type SeedPhase = 'validating' | 'loading' | 'pruning';

export interface SeedReporter {
  /** An invalid record (validation) or a failed write. */
  problem(problem: RecordProblem): void;
  info(message: string): void;
  /** Progress of a phase; `total` null when unknown (validation of streamed files). */
  progress(phase: SeedPhase, done: number, total: number | null): void;
}

/**
 * `ok`: everything valid and written (or, on a dry run, compared); `invalid`: records failed
 * validation and nothing was written; `failed`: the services refused some writes; `prune-unconfirmed`:
 * `prune` found records to remove but `yes` was not given, so none was removed.
 */
export type SeedOutcome = 'ok' | 'invalid' | 'failed' | 'prune-unconfirmed';

export interface SeedReport {
  outcome: SeedOutcome;
  dryRun: boolean;
  /** Records found invalid (nothing was written then). */
  invalidRecords: number;
  /** The first problems (all of them went to the reporter). */
  problems: RecordProblem[];
  counts: Record<Resource, ResourceCounts>;
  /** What `prune` removes (or would remove), per resource with files; null without `prune`. */
  prune: Partial<Record<Resource, PruneList>> | null;
  pruneSkipped?: string;
  /** Valid records handled. */
  records: number;
  durationMs: number;
}

/** A fatal problem (unreadable file, storage error): the run stops; the message says why. */
export class SeedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SeedError';
  }
}

/** The paths to load name no seed file (sources.ts PathError): a bad argument, before anything is read. */
export class SeedPathError extends SeedError {
  constructor(message: string) {
    super(message);
    this.name = 'SeedPathError';
  }
}

export const silentReporter: SeedReporter = { problem: () => undefined, info: () => undefined, progress: () => undefined };

/** A problem as one line: kind, where, which record, which field, what is wrong. */
export function formatProblem(problem: RecordProblem): string {
  const slug = problem.slug !== undefined ? ` (${problem.slug})` : '';
  return `${problem.kind}: ${problem.location}${slug} ${problem.field}: ${problem.message}`;
}
