/**
 * Comparing the indexes of a MongoDB database with indexes/ (the single source of index
 * truth), and bringing the database in line: `npm run indexes` (src/cli/indexes.ts).
 *
 * No driver import here: the database is reached through `IndexTarget`, which ./index-sync.ts
 * implements with the driver and tests implement with a fake.
 *
 * Comparison by name, then definition: the key (fields, order, directions or types) and the options
 * that change what an index does (unique, sparse, partial filter, TTL, collation, text weights and
 * language). Versions the server picks itself (`v`, `textIndexVersion`, and `2dsphereIndexVersion`
 * unless indexes/ names one) are not differences.
 *
 * An index of another name can stand in the way of creating one of indexes/: MongoDB refuses a
 * second index on the same key pattern (IndexOptionsConflict, 85) and a second text index on a
 * collection (CannotCreateIndex, 67). A renamed index is exactly that case, so such a conflicting
 * index is dropped before the creation it blocks (`findConflicts`).
 */
import { type CollectionName, COLLECTION_NAMES, type IndexDefinition, type IndexSet } from '../port.js';

/** An index as `listIndexes` describes it. */
export interface ListedIndex {
  name: string;
  key: Record<string, unknown>;
  [option: string]: unknown;
}

export interface IndexChange {
  name: string;
  wanted: IndexDefinition;
  actual: ListedIndex;
  /** What differs, e.g. `unique: indexes/ true, database false`. */
  differences: string[];
}

export interface CollectionIndexDiff {
  collection: CollectionName;
  /** In indexes/, not in the database. */
  missing: IndexDefinition[];
  /** Same name, different definition. */
  changed: IndexChange[];
  /** In the database, not in indexes/ (`_id_` aside). */
  unknown: ListedIndex[];
  /** Names that match. */
  matching: string[];
}

/** Options compared besides the key, with the value MongoDB assumes when one is absent. */
const COMPARED_OPTIONS: ReadonlyArray<[string, unknown]> = [
  ['unique', false],
  ['sparse', false],
  ['partialFilterExpression', undefined],
  ['expireAfterSeconds', undefined],
  ['collation', undefined],
  ['hidden', false],
  ['weights', undefined],
  ['default_language', undefined],
  ['language_override', undefined],
  ['2dsphereIndexVersion', undefined],
];

interface Normalized {
  key: Array<[string, unknown]>;
  options: Record<string, unknown>;
}

const isText = (value: unknown) => value === 'text';

/**
 * indexes/ as the server lists it: the text fields of a text index become `_fts: "text", _ftsx: 1`
 * (where the first text field stood) with every text field in `weights` (default 1), English by
 * default, `language` as the override field.
 */
function normalizeWanted(def: IndexDefinition): Normalized {
  const entries = Object.entries(def.key);
  const options: Record<string, unknown> = {};
  if (def.unique) options.unique = true;
  if (def['2dsphereIndexVersion'] !== undefined) options['2dsphereIndexVersion'] = def['2dsphereIndexVersion'];
  if (def.expireAfterSeconds !== undefined) options.expireAfterSeconds = def.expireAfterSeconds;
  if (!entries.some(([, v]) => isText(v))) return { key: entries, options };
  const key: Array<[string, unknown]> = [];
  const weights: Record<string, number> = {};
  for (const [field, value] of entries) {
    if (!isText(value)) key.push([field, value]);
    else {
      if (!key.some(([f]) => f === '_fts')) key.push(['_fts', 'text'], ['_ftsx', 1]);
      weights[field] = def.weights?.[field] ?? 1;
    }
  }
  for (const [field, weight] of Object.entries(def.weights ?? {})) weights[field] ??= weight;
  options.weights = weights;
  options.default_language = def.default_language ?? 'english';
  options.language_override = 'language';
  return { key, options };
}

function normalizeListed(index: ListedIndex, wanted: IndexDefinition | undefined): Normalized {
  const options: Record<string, unknown> = {};
  for (const [option, assumed] of COMPARED_OPTIONS) {
    const value = index[option];
    if (value === undefined || sameValue(value, assumed)) continue;
    // The server's own choice of 2dsphere version is no difference unless indexes/ names one.
    if (option === '2dsphereIndexVersion' && wanted?.['2dsphereIndexVersion'] === undefined) continue;
    options[option] = value;
  }
  return { key: Object.entries(index.key).map(([field, value]) => [field, numeric(value)]), options };
}

/** The server may list `1` as `1.0` or as a Long-like object; compare numbers as numbers. */
function numeric(value: unknown): unknown {
  if (typeof value === 'object' && value !== null && 'toNumber' in value && typeof value.toNumber === 'function') {
    return (value as { toNumber(): number }).toNumber();
  }
  return value;
}

function sameValue(a: unknown, b: unknown): boolean {
  a = numeric(a);
  b = numeric(b);
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  return keysA.length === keysB.length && keysA.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

const show = (value: unknown): string => (value === undefined ? 'none' : JSON.stringify(numeric(value)));

const keyText = (key: Array<[string, unknown]>) => `{${key.map(([f, v]) => `${f}: ${show(v)}`).join(', ')}}`;

/** Same fields in the same order with the same directions or types. */
const sameKey = (a: Array<[string, unknown]>, b: Array<[string, unknown]>) =>
  a.length === b.length && a.every(([field, value], i) => b[i]?.[0] === field && sameValue(value, b[i]?.[1]));

/** What differs between the definition in indexes/ and the index in the database (empty: same). */
export function indexDifferences(wanted: IndexDefinition, actual: ListedIndex): string[] {
  const w = normalizeWanted(wanted);
  const a = normalizeListed(actual, wanted);
  const differences: string[] = [];
  if (!sameKey(w.key, a.key)) {
    differences.push(`key: indexes/ ${keyText(w.key)}, database ${keyText(a.key)}`);
  }
  for (const option of new Set([...Object.keys(w.options), ...Object.keys(a.options)])) {
    if (option === 'weights' && typeof w.options.weights === 'object' && typeof a.options.weights === 'object') {
      const ww = w.options.weights as Record<string, unknown>;
      const aw = a.options.weights as Record<string, unknown>;
      for (const field of new Set([...Object.keys(ww), ...Object.keys(aw)])) {
        if (!sameValue(ww[field], aw[field])) differences.push(`weights.${field}: indexes/ ${show(ww[field])}, database ${show(aw[field])}`);
      }
      continue;
    }
    if (!sameValue(w.options[option], a.options[option]))
      differences.push(`${option}: indexes/ ${show(w.options[option])}, database ${show(a.options[option])}`);
  }
  return differences;
}

/** indexes/ against one collection's listing. */
export function diffIndexes(collection: CollectionName, wanted: readonly IndexDefinition[], listed: readonly ListedIndex[]): CollectionIndexDiff {
  const diff: CollectionIndexDiff = { collection, missing: [], changed: [], unknown: [], matching: [] };
  const byName = new Map(listed.map((index) => [index.name, index]));
  for (const definition of wanted) {
    const actual = byName.get(definition.name);
    if (!actual) diff.missing.push(definition);
    else {
      const differences = indexDifferences(definition, actual);
      if (differences.length === 0) diff.matching.push(definition.name);
      else diff.changed.push({ name: definition.name, wanted: definition, actual, differences });
    }
  }
  const names = new Set(wanted.map((d) => d.name));
  diff.unknown = listed.filter((index) => index.name !== '_id_' && !names.has(index.name));
  return diff;
}

export const hasDifferences = (diff: CollectionIndexDiff): boolean => diff.missing.length + diff.changed.length + diff.unknown.length > 0;

/** The database side of a sync. */
export interface IndexTarget {
  /** The indexes of a collection; [] when the collection does not exist yet. */
  list(collection: CollectionName): Promise<ListedIndex[]>;
  create(collection: CollectionName, definitions: IndexDefinition[]): Promise<void>;
  /** Drops an index; one already gone (another process dropped it meanwhile) is no error. */
  drop(collection: CollectionName, name: string): Promise<void>;
}

/** Why MongoDB refuses to create an index beside an existing one of another name. */
export type ConflictRule = 'same-key' | 'one-text-index';

/** An index of the database standing in the way of creating one of indexes/. */
export interface IndexConflict {
  collection: CollectionName;
  /** The definition of indexes/ to create. */
  wanted: IndexDefinition;
  /** The index in its way. */
  existing: ListedIndex;
  /** `unknown`: indexes/ does not name it; `changed`: indexes/ names it, with another definition. */
  existingKind: 'unknown' | 'changed';
  rule: ConflictRule;
}

/**
 * Whether MongoDB refuses to create `wanted` while `existing`, of another name, exists:
 * - `same-key`: the same key pattern, text keys compared as the server stores them (`_fts`/`_ftsx`).
 *   Every server the driver supports (4.4 and later) refuses a second index on one key pattern
 *   (IndexOptionsConflict, 85) unless the two differ in collation, which tells indexes apart on
 *   every such server; indexes/ declares no collation, so a listed index with one is not in the way.
 *   Servers from 5.0 also tell unique, sparse and partial indexes apart, but an index on the very
 *   key of one of indexes/ under another name is that index renamed, and 4.4 refuses it anyway.
 * - `one-text-index`: both are text indexes; a collection holds at most one (CannotCreateIndex, 67).
 */
export function conflictRule(wanted: IndexDefinition, existing: ListedIndex): ConflictRule | null {
  if (existing.collation === undefined && sameKey(normalizeWanted(wanted).key, normalizeListed(existing, wanted).key)) return 'same-key';
  if (Object.values(wanted.key).some(isText) && existing.key._fts === 'text') return 'one-text-index';
  return null;
}

interface ConflictCandidate {
  index: ListedIndex;
  kind: IndexConflict['existingKind'];
}

/**
 * Every pair of a definition about to be created and a candidate index in its way. The candidates
 * are unknown and changed indexes of `diffIndexes`, which never counts `_id_` among them.
 */
export function findConflicts(collection: CollectionName, creating: readonly IndexDefinition[], candidates: readonly ConflictCandidate[]): IndexConflict[] {
  const conflicts: IndexConflict[] = [];
  for (const wanted of creating) {
    for (const { index, kind } of candidates) {
      if (index.name === wanted.name) continue;
      const rule = conflictRule(wanted, index);
      if (rule !== null) conflicts.push({ collection, wanted, existing: index, existingKind: kind, rule });
    }
  }
  return conflicts;
}

/** Why the existing index is in the way, as a clause: `it has the same key {slug: 1} as events_slug, …`. */
export function conflictReason(conflict: IndexConflict): string {
  return conflict.rule === 'same-key'
    ? `it has the same key ${keyText(normalizeWanted(conflict.wanted).key)} as ${conflict.wanted.name}, which MongoDB will not create beside it`
    : `it is a text index like ${conflict.wanted.name}, and MongoDB allows one text index per collection`;
}

/** The line logged when start-up drops a conflicting index. */
export const describeDroppedConflict = (conflict: IndexConflict): string =>
  `dropped index ${qualified(conflict.collection, conflict.existing.name)}: it is not in indexes/, and ${conflictReason(conflict)}`;

const unknownCandidates = (diff: CollectionIndexDiff): ConflictCandidate[] => diff.unknown.map((index) => ({ index, kind: 'unknown' }));

export interface IndexSyncMode {
  /** Only compare (`--check`). */
  check: boolean;
  /** Drop and rebuild indexes whose definition changed (`--recreate`). */
  recreate: boolean;
  /** Drop indexes indexes/ does not name (`--drop-unknown`). */
  dropUnknown: boolean;
}

export interface IndexSyncReport {
  /** The comparison before anything was done. */
  diffs: CollectionIndexDiff[];
  created: string[];
  recreated: string[];
  /** Every index dropped as unknown, the conflicting ones included. */
  dropped: string[];
  /** Conflicting unknown indexes dropped before creating the index of indexes/ they blocked. */
  resolved: IndexConflict[];
  /** Indexes of indexes/ left uncreated (or not rebuilt) because an index the flags keep is in the way. */
  blocked: IndexConflict[];
  /** Differences left after the run (what the flags did not allow to fix, or all with --check). */
  remaining: { changed: string[]; unknown: string[]; missing: string[] };
}

const qualified = (collection: string, name: string) => `${collection}.${name}`;

/**
 * Compares every collection, then (unless `check`) drops, creates and rebuilds as the mode allows.
 * Drops come before creations, since MongoDB refuses an index while a conflicting one exists: the
 * unknown indexes in the way (with `dropUnknown`) and the changed indexes to rebuild (with
 * `recreate`). An index whose creation is blocked by one the mode keeps is not attempted (nor is the
 * changed index it would replace dropped): the report names the blocker instead.
 */
export async function syncIndexSet(target: IndexTarget, indexes: IndexSet, mode: IndexSyncMode): Promise<IndexSyncReport> {
  const report: IndexSyncReport = {
    diffs: [],
    created: [],
    recreated: [],
    dropped: [],
    resolved: [],
    blocked: [],
    remaining: { changed: [], unknown: [], missing: [] },
  };
  for (const collection of COLLECTION_NAMES) {
    const diff = diffIndexes(collection, indexes[collection], await target.list(collection));
    report.diffs.push(diff);
    const changedCandidates = (changes: IndexChange[]): ConflictCandidate[] => changes.map((c) => ({ index: c.actual, kind: 'changed' }));
    if (mode.check) {
      report.blocked.push(...findConflicts(collection, diff.missing, [...unknownCandidates(diff), ...changedCandidates(diff.changed)]));
      report.remaining.missing.push(...diff.missing.map((d) => qualified(collection, d.name)));
      report.remaining.changed.push(...diff.changed.map((c) => qualified(collection, c.name)));
      report.remaining.unknown.push(...diff.unknown.map((u) => qualified(collection, u.name)));
      continue;
    }
    // Indexes rebuilt are dropped first: only the changed ones kept can stand in the way.
    const rebuilding = mode.recreate ? diff.changed : [];
    const kept = mode.recreate ? [] : diff.changed;
    const conflicts = findConflicts(
      collection,
      [...diff.missing, ...rebuilding.map((c) => c.wanted)],
      [...unknownCandidates(diff), ...changedCandidates(kept)],
    );
    const removable = (c: IndexConflict) => c.existingKind === 'unknown' && mode.dropUnknown;
    const blocked = conflicts.filter((c) => !removable(c));
    const blockedNames = new Set(blocked.map((c) => c.wanted.name));
    report.blocked.push(...blocked);

    const droppedHere = new Set<string>();
    for (const conflict of conflicts) {
      // Dropping for an index that stays blocked by another would gain nothing.
      if (!removable(conflict) || blockedNames.has(conflict.wanted.name)) continue;
      if (!droppedHere.has(conflict.existing.name)) {
        await target.drop(collection, conflict.existing.name);
        droppedHere.add(conflict.existing.name);
        report.dropped.push(qualified(collection, conflict.existing.name));
      }
      report.resolved.push(conflict);
    }
    const rebuilt = rebuilding.filter((c) => !blockedNames.has(c.name));
    for (const change of rebuilt) await target.drop(collection, change.name);
    for (const change of rebuilt) {
      await target.create(collection, [change.wanted]);
      report.recreated.push(qualified(collection, change.name));
    }
    report.remaining.changed.push(...diff.changed.filter((c) => !rebuilt.includes(c)).map((c) => qualified(collection, c.name)));

    const creatable = diff.missing.filter((d) => !blockedNames.has(d.name));
    if (creatable.length > 0) {
      await target.create(collection, creatable);
      report.created.push(...creatable.map((d) => qualified(collection, d.name)));
    }
    report.remaining.missing.push(...diff.missing.filter((d) => blockedNames.has(d.name)).map((d) => qualified(collection, d.name)));

    for (const index of diff.unknown) {
      if (droppedHere.has(index.name)) continue;
      if (!mode.dropUnknown) {
        report.remaining.unknown.push(qualified(collection, index.name));
        continue;
      }
      await target.drop(collection, index.name);
      report.dropped.push(qualified(collection, index.name));
    }
  }
  return report;
}

/**
 * Start-up (the MongoDB storage's ensureIndexes): first drops each index indexes/ does not name that
 * would make creating a missing one fail (`conflictRule`), telling `onDrop` as it happens, then
 * creates every definition of the collection, as `createIndexes` always did (an identical existing
 * index is a no-op). It never drops `_id_` nor an index indexes/ names: one whose definition changed
 * under the same name is for `npm run indexes -- --recreate`, and its creation fails as before.
 * Returns the conflicts whose index was dropped.
 */
export async function prepareIndexSet(target: IndexTarget, indexes: IndexSet, onDrop?: (conflict: IndexConflict) => void): Promise<IndexConflict[]> {
  const dropped: IndexConflict[] = [];
  await Promise.all(
    COLLECTION_NAMES.map(async (collection) => {
      const definitions = indexes[collection];
      if (definitions.length === 0) return;
      const diff = diffIndexes(collection, definitions, await target.list(collection));
      const droppedHere = new Set<string>();
      for (const conflict of findConflicts(collection, diff.missing, unknownCandidates(diff))) {
        if (droppedHere.has(conflict.existing.name)) continue;
        droppedHere.add(conflict.existing.name);
        await target.drop(collection, conflict.existing.name);
        dropped.push(conflict);
        onDrop?.(conflict);
      }
      await target.create(collection, definitions);
    }),
  );
  return dropped;
}
