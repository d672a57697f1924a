/**
 * `npm run indexes [-- --check | --recreate | --drop-unknown]`: brings the MongoDB database of the
 * configuration (MONGODB_URI, MONGODB_DB) in line with indexes/.
 *
 * - default: creates missing indexes; reports indexes whose definition differs (same name) and
 *   indexes indexes/ does not name, without touching them. An index of another name that MongoDB
 *   will not have beside a missing one (same key, or a second text index: a renamed index) blocks
 *   its creation: the blocker is named with the flag that removes it;
 * - `--recreate`: drops and rebuilds the indexes whose definition differs;
 * - `--drop-unknown`: drops the indexes indexes/ does not name (never `_id_`), those in the way of
 *   a creation first;
 * - `--check`: read-only; exit 1 when the database differs from indexes/ in any way (deployment gate).
 *
 * Exit codes: 0 in line (or only unknown indexes left without --check); 1 differences remain
 * (with --check: any; otherwise: changed indexes not rebuilt, or missing ones left blocked) or an
 * error; 2 bad arguments or configuration. Without MongoDB (the embedded engine builds its indexes from indexes/ at every
 * start) there is nothing to sync: a note and exit 0.
 */
import { indexes as definedIndexes } from '../../indexes/index.js';
import { type MongoTimeouts } from '../storage/mongodb/index.js';
import { describeMongoFailure } from '../storage/mongodb/describe-failure.js';
import { conflictReason, type IndexConflict } from '../storage/mongodb/index-diff.js';
import { type IndexSyncMode, type IndexSyncReport, syncMongoIndexes } from '../storage/mongodb/index-sync.js';
import { type IndexSet } from '../storage/port.js';
import { type OutputStream } from './seed-output.js';
import { runIfMain, startCli, UsageError } from './start.js';

export const INDEXES_USAGE = `Usage: npm run indexes -- [--check | --recreate | --drop-unknown]

Applies indexes/ to the MongoDB database named by MONGODB_URI and MONGODB_DB.
  (no option)      create missing indexes; report changed and unknown ones
  --check          compare only; exit 1 if the database differs from indexes/
  --recreate       also drop and rebuild indexes whose definition changed
  --drop-unknown   also drop indexes that indexes/ does not name (never _id_)
  -h, --help       show this help

Exit codes: 0 in line; 1 differences remain or an error; 2 bad arguments or configuration.
`;

export interface IndexesArgs extends IndexSyncMode {
  help: boolean;
}

export function parseIndexesArgs(argv: readonly string[]): IndexesArgs {
  const args: IndexesArgs = { check: false, recreate: false, dropUnknown: false, help: false };
  for (const arg of argv) {
    if (arg === '--check') args.check = true;
    else if (arg === '--recreate') args.recreate = true;
    else if (arg === '--drop-unknown') args.dropUnknown = true;
    else if (arg === '--help' || arg === '-h') args.help = true;
    else throw new UsageError(`unknown argument ${arg}`);
  }
  if (args.check && (args.recreate || args.dropUnknown))
    throw new UsageError('--check changes nothing; it cannot be combined with --recreate or --drop-unknown');
  return args;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : word.endsWith('x') ? 'es' : 's'}`;

/** A conflict the run did not resolve: what is blocked, by what, and the flag that fixes it. */
function blockedLine(conflict: IndexConflict, rebuilding: boolean, mode: IndexSyncMode): string {
  const { collection: c, wanted, existing } = conflict;
  const what = mode.check ? `${wanted.name} cannot be ${rebuilding ? 'rebuilt' : 'created'}` : `${wanted.name} was not ${rebuilding ? 'rebuilt' : 'created'}`;
  if (conflict.existingKind === 'changed') {
    return `${c}: ${what}: ${existing.name}, whose definition differs from indexes/, is in the way (${conflictReason(conflict)}); run with --recreate to rebuild ${existing.name} first`;
  }
  // MongoDB has no command to rename an index: dropping it, or adopting its name, are the ways out.
  return (
    `${c}: ${what}: ${existing.name}, not in indexes/, is in the way (${conflictReason(conflict)}); ` +
    `run with --drop-unknown to drop ${existing.name}, or name the definition ${existing.name} in indexes/ to keep it`
  );
}

/** The lines describing a sync, and its exit code. */
export function describeIndexSync(report: IndexSyncReport, mode: IndexSyncMode): { lines: string[]; exitCode: 0 | 1 } {
  const lines: string[] = [];
  for (const diff of report.diffs) {
    const c = diff.collection;
    const resolved = report.resolved.filter((r) => r.collection === c);
    const blocked = report.blocked.filter((b) => b.collection === c);
    const blockedNames = new Set(blocked.map((b) => b.wanted.name));
    // An unknown index named by a conflict line needs no line of its own.
    const explained = new Set([...resolved, ...blocked].filter((x) => x.existingKind === 'unknown').map((x) => x.existing.name));
    for (const conflict of resolved) lines.push(`${c}: dropped ${conflict.existing.name}: it is not in indexes/, and ${conflictReason(conflict)}`);
    for (const definition of diff.missing) {
      if (mode.check) lines.push(`${c}: missing ${definition.name}`);
      else if (!blockedNames.has(definition.name)) lines.push(`${c}: created ${definition.name}`);
    }
    for (const change of diff.changed) {
      const rebuilt = !mode.check && mode.recreate && !blockedNames.has(change.name);
      const hint = mode.check || blockedNames.has(change.name) ? '' : rebuilt ? ' — rebuilt' : '; run with --recreate to rebuild it';
      lines.push(`${c}: ${change.name} differs from indexes/ (${change.differences.join('; ')})${hint}`);
    }
    const changedNames = new Set(diff.changed.map((change) => change.name));
    for (const conflict of blocked) lines.push(blockedLine(conflict, changedNames.has(conflict.wanted.name), mode));
    for (const index of diff.unknown) {
      if (explained.has(index.name)) continue;
      const dropped = !mode.check && mode.dropUnknown;
      lines.push(`${c}: ${index.name} is not in indexes/${mode.check ? '' : dropped ? ' — dropped' : '; run with --drop-unknown to drop it'}`);
    }
    if (diff.missing.length + diff.changed.length + diff.unknown.length === 0) lines.push(`${c}: ${diff.matching.length} indexes match indexes/`);
  }
  const { changed, unknown, missing } = report.remaining;
  const left = changed.length + unknown.length + missing.length;
  if (mode.check) {
    lines.push(
      left === 0
        ? 'The database matches indexes/.'
        : `The database differs from indexes/: ${missing.length} missing, ${changed.length} changed, ${unknown.length} unknown.`,
    );
    return { lines, exitCode: left === 0 ? 0 : 1 };
  }
  const done = `${report.created.length} created, ${report.recreated.length} rebuilt, ${report.dropped.length} dropped`;
  if (missing.length > 0) lines.push(`${done}; ${plural(missing.length, 'index')} of indexes/ not created, another index being in the way (see above).`);
  else if (changed.length > 0) lines.push(`${done}; ${plural(changed.length, 'changed index')} left as they are (--recreate rebuilds them).`);
  else if (unknown.length > 0) lines.push(`${done}; ${plural(unknown.length, 'index')} not in indexes/ left in place (--drop-unknown drops them).`);
  else lines.push(`${done}; the database matches indexes/.`);
  return { lines, exitCode: changed.length + missing.length > 0 ? 1 : 0 };
}

export interface IndexesCliOptions {
  out?: OutputStream;
  err?: OutputStream;
  env?: Record<string, string | undefined>;
  indexes?: IndexSet;
  /** Shorter waits for tests. */
  mongoTimeouts?: Partial<MongoTimeouts>;
}

/** Runs the CLI; returns the exit code. */
export async function indexesCli(argv: readonly string[], options: IndexesCliOptions = {}): Promise<number> {
  const out = options.out ?? process.stdout;
  const err = options.err ?? process.stderr;
  const started = startCli(argv, parseIndexesArgs, { name: 'indexes', usage: INDEXES_USAGE, env: options.env, out, err });
  if (typeof started === 'number') return started;
  const { args, config } = started;
  if (config.mongodbUri === null || config.storage === 'embedded' || config.storage === 'memory-server') {
    const engine = config.storage === 'memory-server' ? 'in-memory MongoDB server' : 'embedded engine';
    out.write(
      `No MongoDB database to sync: the ${engine} builds its indexes from indexes/ every time it starts. Set MONGODB_URI to sync a MongoDB database.\n`,
    );
    return 0;
  }
  try {
    const report = await syncMongoIndexes({
      uri: config.mongodbUri,
      dbName: config.mongodbDb,
      indexes: options.indexes ?? definedIndexes,
      mode: args,
      ...(options.mongoTimeouts ? { timeouts: options.mongoTimeouts } : {}),
    });
    const { lines, exitCode } = describeIndexSync(report, args);
    out.write(`${lines.join('\n')}\n`);
    return exitCode;
  } catch (error) {
    err.write(`indexes: ${describeMongoFailure(error, config.mongodbUri)}\n`);
    return 1;
  }
}

runIfMain(import.meta.url, 'indexes', (argv) => indexesCli(argv));
