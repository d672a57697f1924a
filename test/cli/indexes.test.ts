/**
 * `npm run indexes`: the comparison of indexes/ with a database's listing, the sync plan applied to
 * a fake database, exit codes, and the command on the embedded engine. The listings have the shape
 * MongoDB 7 returns from `listIndexes`.
 */
import { describe, expect, it } from 'vitest';
import { indexes } from '../../indexes/index.js';
import { describeIndexSync, indexesCli, parseIndexesArgs } from '../../src/cli/indexes.js';
import { diffIndexes, indexDifferences, type IndexTarget, type ListedIndex, syncIndexSet } from '../../src/storage/mongodb/index-diff.js';
import { COLLECTION_NAMES, type CollectionName, type IndexDefinition } from '../../src/storage/port.js';
import { asListed, ID_INDEX } from '../helpers/listed-indexes.js';

/** A database in memory, listing what was created the way MongoDB does. */
function fakeDatabase(initial: Partial<Record<CollectionName, ListedIndex[]>> = {}) {
  const state = new Map<CollectionName, ListedIndex[]>(COLLECTION_NAMES.map((c) => [c, [...(initial[c] ?? [])]]));
  const calls: string[] = [];
  const target: IndexTarget = {
    async list(collection) {
      return [...(state.get(collection) ?? [])];
    },
    async create(collection, definitions) {
      calls.push(`create ${collection} ${definitions.map((d) => d.name).join(',')}`);
      const list = state.get(collection) ?? [];
      if (list.length === 0) list.push(ID_INDEX);
      list.push(...definitions.map(asListed));
      state.set(collection, list);
    },
    async drop(collection, name) {
      calls.push(`drop ${collection} ${name}`);
      state.set(
        collection,
        (state.get(collection) ?? []).filter((i) => i.name !== name),
      );
    },
  };
  return { target, calls, state };
}

const inLine = () => Object.fromEntries(COLLECTION_NAMES.map((c) => [c, [ID_INDEX, ...indexes[c].map(asListed)]])) as Record<CollectionName, ListedIndex[]>;

describe('index comparison', () => {
  it('finds no difference between indexes/ and what MongoDB lists for it', () => {
    for (const collection of COLLECTION_NAMES) {
      const diff = diffIndexes(collection, indexes[collection], inLine()[collection]);
      expect(diff, collection).toMatchObject({ missing: [], changed: [], unknown: [] });
      expect(diff.matching).toHaveLength(indexes[collection].length);
    }
  });

  it('names what differs: key, unique, text weights and language, extra options', () => {
    const slug: IndexDefinition = { name: 'events_slug_unique', key: { slug: 1 }, unique: true };
    expect(indexDifferences(slug, { v: 2, key: { slug: 1 }, name: 'events_slug_unique' })).toEqual(['unique: indexes/ true, database none']);
    expect(indexDifferences(slug, { v: 2, key: { slug: -1 }, name: 'events_slug_unique', unique: true })).toEqual([
      'key: indexes/ {slug: 1}, database {slug: -1}',
    ]);
    expect(indexDifferences(slug, { v: 2, key: { slug: 1 }, name: 'events_slug_unique', unique: true, sparse: true })).toEqual([
      'sparse: indexes/ none, database true',
    ]);
    expect(indexDifferences(slug, { v: 2, key: { slug: 1 }, name: 'events_slug_unique', unique: true, background: true })).toEqual([]);

    const ttl = indexes.idempotency.find((d) => d.expireAfterSeconds !== undefined) as IndexDefinition;
    expect(indexDifferences(ttl, asListed(ttl))).toEqual([]);
    expect(indexDifferences(ttl, { ...asListed(ttl), expireAfterSeconds: 3600 })).toEqual([
      `expireAfterSeconds: indexes/ ${ttl.expireAfterSeconds}, database 3600`,
    ]);
    expect(indexDifferences(ttl, { v: 2, key: ttl.key, name: ttl.name })).toEqual([`expireAfterSeconds: indexes/ ${ttl.expireAfterSeconds}, database none`]);

    const text = indexes.events.find((d) => d.name === 'events_text') as IndexDefinition;
    const listed = asListed(text);
    expect(indexDifferences(text, { ...listed, weights: { ...(listed.weights as object), title: 5 } })).toEqual(['weights.title: indexes/ 10, database 5']);
    expect(indexDifferences(text, { ...listed, default_language: 'german' })).toEqual(['default_language: indexes/ "english", database "german"']);
    const { excerpt: _excerpt, ...fewer } = listed.weights as Record<string, number>;
    expect(indexDifferences(text, { ...listed, weights: fewer })).toEqual(['weights.excerpt: indexes/ 3, database none']);

    const geo = indexes.venues.find((d) => d.name === 'venues_location_2dsphere') as IndexDefinition;
    expect(indexDifferences(geo, { v: 2, key: { location: '2dsphere' }, name: geo.name, '2dsphereIndexVersion': 2 })).toEqual([
      '2dsphereIndexVersion: indexes/ 3, database 2',
    ]);
  });

  it('tells missing, changed and unknown indexes apart, and ignores _id_', () => {
    const listed = inLine().tags.filter((i) => i.name !== 'tags_name_unique');
    listed.push({ v: 2, key: { nameKey: 1 }, name: 'tags_name_legacy' });
    const slug = listed.find((i) => i.name === 'tags_slug_unique') as ListedIndex;
    delete slug.unique;
    const diff = diffIndexes('tags', indexes.tags, listed);
    expect(diff.missing.map((d) => d.name)).toEqual(['tags_name_unique']);
    expect(diff.changed.map((c) => [c.name, c.differences])).toEqual([['tags_slug_unique', ['unique: indexes/ true, database none']]]);
    expect(diff.unknown.map((u) => u.name)).toEqual(['tags_name_legacy']);
  });
});

describe('index sync', () => {
  const drifted = () => {
    const db = inLine();
    db.events = db.events.filter((i) => i.name !== 'events_post_parent_start_id');
    db.events.push({ v: 2, key: { title: 1 }, name: 'events_title_legacy' });
    db.venues = db.venues.map((i) => (i.name === 'venues_slug_unique' ? { v: 2, key: { slug: 1 }, name: 'venues_slug_unique' } : i));
    return db;
  };

  it('creates missing indexes on an empty database', async () => {
    const { target, calls } = fakeDatabase();
    const mode = { check: false, recreate: false, dropUnknown: false };
    const report = await syncIndexSet(target, indexes, mode);
    expect(report.created).toHaveLength(COLLECTION_NAMES.reduce((n, c) => n + indexes[c].length, 0));
    expect(calls.every((c) => c.startsWith('create '))).toBe(true);
    expect(describeIndexSync(report, mode).exitCode).toBe(0);
    // A second run finds everything in line.
    const again = await syncIndexSet(target, indexes, { check: true, recreate: false, dropUnknown: false });
    expect(describeIndexSync(again, { check: true, recreate: false, dropUnknown: false })).toMatchObject({ exitCode: 0 });
  });

  it('creates missing ones but leaves changed and unknown ones unless asked', async () => {
    const { target, calls } = fakeDatabase(drifted());
    const mode = { check: false, recreate: false, dropUnknown: false };
    const report = await syncIndexSet(target, indexes, mode);
    expect(calls).toEqual(['create events events_post_parent_start_id']);
    expect(report.remaining).toEqual({ changed: ['venues.venues_slug_unique'], unknown: ['events.events_title_legacy'], missing: [] });
    const { lines, exitCode } = describeIndexSync(report, mode);
    expect(exitCode).toBe(1);
    expect(lines).toContain('events: created events_post_parent_start_id');
    expect(lines).toContain('venues: venues_slug_unique differs from indexes/ (unique: indexes/ true, database none); run with --recreate to rebuild it');
    expect(lines).toContain('events: events_title_legacy is not in indexes/; run with --drop-unknown to drop it');
  });

  it('rebuilds changed indexes with --recreate and drops unknown ones with --drop-unknown', async () => {
    const { target, calls } = fakeDatabase(drifted());
    const mode = { check: false, recreate: true, dropUnknown: true };
    const report = await syncIndexSet(target, indexes, mode);
    expect(calls).toEqual([
      'create events events_post_parent_start_id',
      'drop events events_title_legacy',
      'drop venues venues_slug_unique',
      'create venues venues_slug_unique',
    ]);
    expect(report).toMatchObject({
      recreated: ['venues.venues_slug_unique'],
      dropped: ['events.events_title_legacy'],
      remaining: { changed: [], unknown: [], missing: [] },
    });
    expect(describeIndexSync(report, mode).exitCode).toBe(0);
    const check = { check: true, recreate: false, dropUnknown: false };
    expect(describeIndexSync(await syncIndexSet(target, indexes, check), check).exitCode).toBe(0);
  });

  it('only compares with --check, and exits 1 on any difference', async () => {
    const { target, calls } = fakeDatabase(drifted());
    const mode = { check: true, recreate: false, dropUnknown: false };
    const { lines, exitCode } = describeIndexSync(await syncIndexSet(target, indexes, mode), mode);
    expect(calls).toEqual([]);
    expect(exitCode).toBe(1);
    expect(lines).toContain('events: missing events_post_parent_start_id');
    expect(lines.at(-1)).toBe('The database differs from indexes/: 1 missing, 1 changed, 1 unknown.');

    // Only an unknown index: still a difference for --check.
    const onlyUnknown = inLine();
    onlyUnknown.tags.push({ v: 2, key: { name: 1 }, name: 'tags_extra' });
    const second = fakeDatabase(onlyUnknown);
    expect(describeIndexSync(await syncIndexSet(second.target, indexes, mode), mode).exitCode).toBe(1);
    // Without --check an unknown index is reported and left, without failing.
    const apply = { check: false, recreate: false, dropUnknown: false };
    expect(describeIndexSync(await syncIndexSet(second.target, indexes, apply), apply).exitCode).toBe(0);
  });
});

describe('indexes command', () => {
  const capture = () => {
    let text = '';
    return { stream: { write: (c: string) => (text += c) }, text: () => text };
  };

  it('has nothing to sync without MongoDB, and says so (exit 0)', async () => {
    for (const env of [{}, { STORAGE: 'embedded' }, { STORAGE: 'embedded', MONGODB_URI: 'mongodb://db:27017' }]) {
      const out = capture();
      expect(await indexesCli(['--check'], { out: out.stream, err: capture().stream, env })).toBe(0);
      expect(out.text()).toContain('the embedded engine builds its indexes from indexes/');
    }
  });

  it('refuses bad arguments (exit 2)', async () => {
    const err = capture();
    expect(await indexesCli(['--check', '--recreate'], { out: capture().stream, err: err.stream, env: {} })).toBe(2);
    expect(err.text()).toContain('--check changes nothing');
    expect(await indexesCli(['--force'], { out: capture().stream, err: capture().stream, env: {} })).toBe(2);
    expect(parseIndexesArgs(['--recreate', '--drop-unknown'])).toMatchObject({ check: false, recreate: true, dropUnknown: true });
  });

  it('exits 1 when MongoDB cannot be reached', async () => {
    const err = capture();
    const code = await indexesCli(['--check'], {
      out: capture().stream,
      err: err.stream,
      // Nothing listens on port 1.
      env: { MONGODB_URI: 'mongodb://127.0.0.1:1/' },
      mongoTimeouts: { serverSelectionMS: 300, connectMS: 300 },
    });
    expect(code).toBe(1);
    expect(err.text()).toMatch(/^indexes: /);
  });
});
