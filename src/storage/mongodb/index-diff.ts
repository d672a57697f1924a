/**
 * Comparing the indexes of a MongoDB database with indexes/ (the single source of index truth,
 * design §8.8), and bringing the database in line: `npm run indexes` (src/cli/indexes.ts).
 *
 * No driver import here: the database is reached through `IndexTarget`, which ./index-sync.ts
 * implements with the driver and tests implement with a fake.
 *
 * Comparison by name, then definition: the key (fields, order, directions or types) and the options
 * that change what an index does (unique, sparse, partial filter, TTL, collation, text weights and
 * language). Versions the server picks itself (`v`, `textIndexVersion`, and `2dsphereIndexVersion`
 * unless indexes/ names one) are not differences.
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
  if (typeof value === 'object' && value !== null && 'toNumber' in value && typeof (value as { toNumber: unknown }).toNumber === 'function') {
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

/** What differs between the definition in indexes/ and the index in the database (empty: same). */
export function indexDifferences(wanted: IndexDefinition, actual: ListedIndex): string[] {
  const w = normalizeWanted(wanted);
  const a = normalizeListed(actual, wanted);
  const differences: string[] = [];
  const keyText = (key: Array<[string, unknown]>) => `{${key.map(([f, v]) => `${f}: ${show(v)}`).join(', ')}}`;
  if (w.key.length !== a.key.length || w.key.some(([f, v], i) => a.key[i]?.[0] !== f || !sameValue(v, a.key[i]?.[1]))) {
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
    if (!sameValue(w.options[option], a.options[option])) differences.push(`${option}: indexes/ ${show(w.options[option])}, database ${show(a.options[option])}`);
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
  drop(collection: CollectionName, name: string): Promise<void>;
}

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
  dropped: string[];
  /** Differences left after the run (what the flags did not allow to fix, or all with --check). */
  remaining: { changed: string[]; unknown: string[]; missing: string[] };
}

const qualified = (collection: string, name: string) => `${collection}.${name}`;

/** Compares every collection, then (unless `check`) creates, rebuilds and drops as the mode allows. */
export async function syncIndexSet(target: IndexTarget, indexes: IndexSet, mode: IndexSyncMode): Promise<IndexSyncReport> {
  const report: IndexSyncReport = { diffs: [], created: [], recreated: [], dropped: [], remaining: { changed: [], unknown: [], missing: [] } };
  for (const collection of COLLECTION_NAMES) {
    const diff = diffIndexes(collection, indexes[collection], await target.list(collection));
    report.diffs.push(diff);
    if (mode.check) {
      report.remaining.missing.push(...diff.missing.map((d) => qualified(collection, d.name)));
      report.remaining.changed.push(...diff.changed.map((c) => qualified(collection, c.name)));
      report.remaining.unknown.push(...diff.unknown.map((u) => qualified(collection, u.name)));
      continue;
    }
    if (diff.missing.length > 0) {
      await target.create(collection, diff.missing);
      report.created.push(...diff.missing.map((d) => qualified(collection, d.name)));
    }
    for (const change of diff.changed) {
      if (!mode.recreate) {
        report.remaining.changed.push(qualified(collection, change.name));
        continue;
      }
      await target.drop(collection, change.name);
      await target.create(collection, [change.wanted]);
      report.recreated.push(qualified(collection, change.name));
    }
    for (const index of diff.unknown) {
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
