/**
 * Renamed indexes: an index of another name on the same key, or a second text index, makes MongoDB
 * refuse the creation of an index of indexes/. `npm run indexes -- --drop-unknown` and start-up
 * (the MongoDB storage's ensureIndexes, i.e. prepareIndexSet through mongoIndexTarget) drop it
 * first; without the flag the command names it and exits 1.
 *
 * The database is a stand-in for the driver's `Db`: listIndexes answers what MongoDB lists, and
 * createIndexes / dropIndex / listIndexes throw the driver's MongoServerError with the codes the
 * server returns (error_codes.yml): 85 IndexOptionsConflict (same key under another name), 86
 * IndexKeySpecsConflict (same name, other key), 67 CannotCreateIndex (a second text index), 26
 * NamespaceNotFound (no such collection), 27 IndexNotFound, 72 InvalidOptions (dropping `_id_`).
 */
import { type Db, MongoServerError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { describeIndexSync } from '../../src/cli/indexes.js';
import { describeDroppedConflict, type ListedIndex, prepareIndexSet, syncIndexSet } from '../../src/storage/mongodb/index-diff.js';
import { mongoIndexTarget } from '../../src/storage/mongodb/index.js';
import { COLLECTION_NAMES, type CollectionName, type IndexDefinition, type IndexSet } from '../../src/storage/port.js';
import { asListed, ID_INDEX } from '../helpers/listed-indexes.js';

const EVENTS: IndexDefinition[] = [
  { name: 'events_slug_unique', key: { slug: 1 }, unique: true },
  { name: 'events_status_start', key: { status: 1, startUtc: 1, _id: 1 } },
  {
    name: 'events_text',
    key: { title: 'text', description: 'text', excerpt: 'text' },
    weights: { title: 10, excerpt: 3, description: 1 },
    default_language: 'english',
  },
];
const TAGS: IndexDefinition[] = [
  { name: 'tags_slug_unique', key: { slug: 1 }, unique: true },
  { name: 'tags_name_unique', key: { nameKey: 1 }, unique: true },
];
/** indexes/ for these tests: its own, so that edits of indexes/ change nothing here. */
const wanted = (): IndexSet => ({ ...(Object.fromEntries(COLLECTION_NAMES.map((c) => [c, []])) as unknown as IndexSet), events: EVENTS, tags: TAGS });

const serverError = (code: number, codeName: string, errmsg: string) => new MongoServerError({ ok: 0, code, codeName, errmsg });

const sameKey = (a: Record<string, unknown>, b: Record<string, unknown>) => JSON.stringify(Object.entries(a)) === JSON.stringify(Object.entries(b));
const sameOptions = (a: ListedIndex, b: ListedIndex) =>
  Boolean(a.unique) === Boolean(b.unique) &&
  JSON.stringify(a.weights ?? null) === JSON.stringify(b.weights ?? null) &&
  a.default_language === b.default_language;

/**
 * A stand-in for the driver's Db, refusing what mongod refuses. The same-key rule is that of
 * MongoDB 4.4, the oldest server the driver supports (later ones also tell unique, sparse and
 * partial indexes apart, which these listings never vary).
 */
function fakeDriverDb(initial: Partial<Record<CollectionName, ListedIndex[]>>) {
  const state = new Map<string, ListedIndex[]>(Object.entries(initial).map(([c, list]) => [c, [ID_INDEX, ...list]]));
  const calls: string[] = [];
  const refusal = (list: ListedIndex[], def: IndexDefinition): MongoServerError | 'identical' | null => {
    const listed = asListed(def);
    const named = list.find((i) => i.name === def.name);
    if (named) {
      if (!sameKey(named.key, listed.key))
        return serverError(
          86,
          'IndexKeySpecsConflict',
          `An existing index has the same name as the requested index. Requested index: ${JSON.stringify(listed)}, existing index: ${JSON.stringify(named)}`,
        );
      return sameOptions(named, listed)
        ? 'identical'
        : serverError(85, 'IndexOptionsConflict', `An equivalent index already exists with the same name but different options.`);
    }
    const byKey = list.find((i) => i.collation === undefined && sameKey(i.key, listed.key));
    if (byKey) return serverError(85, 'IndexOptionsConflict', `Index already exists with a different name: ${byKey.name}`);
    const text = listed.key._fts === 'text' ? list.find((i) => i.key._fts === 'text') : undefined;
    if (text) return serverError(67, 'CannotCreateIndex', `only one text index per collection allowed, found existing text index "${text.name}"`);
    return null;
  };
  const db = {
    collection: (name: string) => ({
      listIndexes: () => ({
        toArray: async () => {
          const list = state.get(name);
          if (!list) throw serverError(26, 'NamespaceNotFound', `ns does not exist: calendar.${name}`);
          return list.map((i) => structuredClone(i));
        },
      }),
      createIndexes: async (definitions: IndexDefinition[]) => {
        calls.push(`create ${name} ${definitions.map((d) => d.name).join(',')}`);
        const list = state.get(name) ?? [ID_INDEX];
        // createIndexes checks every spec before building any.
        const added: ListedIndex[] = [];
        for (const def of definitions) {
          const refused = refusal(list, def);
          if (refused instanceof MongoServerError) throw refused;
          if (refused === null) added.push(asListed(def));
        }
        state.set(name, [...list, ...added]);
        return definitions.map((d) => d.name);
      },
      dropIndex: async (index: string) => {
        calls.push(`drop ${name} ${index}`);
        if (index === '_id_') throw serverError(72, 'InvalidOptions', 'cannot drop _id index');
        const list = state.get(name) ?? [];
        if (!list.some((i) => i.name === index)) throw serverError(27, 'IndexNotFound', `index not found with name [${index}]`);
        state.set(
          name,
          list.filter((i) => i.name !== index),
        );
        return { nIndexesWas: list.length, ok: 1 };
      },
    }),
  };
  return { db: db as unknown as Pick<Db, 'collection'>, calls, state };
}

const inLine = (): Record<'events' | 'tags', ListedIndex[]> => ({ events: EVENTS.map(asListed), tags: TAGS.map(asListed) });

/** The database after renames: events_slug_unique was events_slug, events_text was events_search. */
function renamed(text: 'same-key' | 'compound' = 'same-key'): Partial<Record<CollectionName, ListedIndex[]>> {
  const db = inLine();
  db.events = db.events.map((i) => (i.name === 'events_slug_unique' ? { ...i, name: 'events_slug' } : i));
  // A text index on other fields lists the same key ({_fts, _ftsx}: 85); one with a prefix field does not (67).
  const search: ListedIndex =
    text === 'same-key'
      ? {
          v: 2,
          key: { _fts: 'text', _ftsx: 1 },
          name: 'events_search',
          weights: { title: 1 },
          default_language: 'english',
          language_override: 'language',
          textIndexVersion: 3,
        }
      : {
          v: 2,
          key: { status: 1, _fts: 'text', _ftsx: 1 },
          name: 'events_search',
          weights: { title: 1 },
          default_language: 'english',
          language_override: 'language',
          textIndexVersion: 3,
        };
  db.events = db.events.map((i) => (i.name === 'events_text' ? search : i));
  // An unknown index in nobody's way stays without --drop-unknown.
  db.events.push({ v: 2, key: { title: 1 }, name: 'events_title_extra' });
  return db;
}

const apply = { check: false, recreate: false, dropUnknown: false };

describe('npm run indexes with a renamed index', () => {
  for (const text of ['same-key', 'compound'] as const) {
    it(`--drop-unknown drops the conflicting indexes before creating (text index ${text === 'same-key' ? 'on other fields: 85' : 'with a prefix field: 67'})`, async () => {
      const { db, calls, state } = fakeDriverDb(renamed(text));
      const mode = { ...apply, dropUnknown: true };
      const report = await syncIndexSet(mongoIndexTarget(db), wanted(), mode);
      expect(calls.filter((c) => c.includes(' events '))).toEqual([
        'drop events events_slug',
        'drop events events_search',
        'create events events_slug_unique,events_text',
        'drop events events_title_extra',
      ]);
      expect(report.resolved.map((r) => [r.existing.name, r.wanted.name, r.rule])).toEqual([
        ['events_slug', 'events_slug_unique', 'same-key'],
        ['events_search', 'events_text', text === 'same-key' ? 'same-key' : 'one-text-index'],
      ]);
      const { lines, exitCode } = describeIndexSync(report, mode);
      expect(exitCode).toBe(0);
      expect(lines).toContain(
        'events: dropped events_slug: it is not in indexes/, and it has the same key {slug: 1} as events_slug_unique, which MongoDB will not create beside it',
      );
      expect(lines).toContain(
        text === 'same-key'
          ? 'events: dropped events_search: it is not in indexes/, and it has the same key {_fts: "text", _ftsx: 1} as events_text, which MongoDB will not create beside it'
          : 'events: dropped events_search: it is not in indexes/, and it is a text index like events_text, and MongoDB allows one text index per collection',
      );
      expect(lines).toContain('events: created events_slug_unique');
      expect(lines).toContain('events: events_title_extra is not in indexes/ — dropped');
      expect(state.get('events')?.map((i) => i.name)).toEqual(['_id_', 'events_status_start', 'events_slug_unique', 'events_text']);
      // Nothing left to do.
      const check = { check: true, recreate: false, dropUnknown: false };
      expect(describeIndexSync(await syncIndexSet(mongoIndexTarget(db), wanted(), check), check).exitCode).toBe(0);
    });
  }

  it('without --drop-unknown drops nothing, names the blocking index and the fix, and exits 1', async () => {
    const { db, calls } = fakeDriverDb({ ...renamed('compound'), tags: [] });
    const report = await syncIndexSet(mongoIndexTarget(db), wanted(), apply);
    // The unblocked creations still happen (tags); the blocked ones are not attempted.
    expect(calls).toEqual(['create tags tags_slug_unique,tags_name_unique']);
    const { lines, exitCode } = describeIndexSync(report, apply);
    expect(exitCode).toBe(1);
    expect(lines).toContain(
      'events: events_slug_unique was not created: events_slug, not in indexes/, is in the way (it has the same key {slug: 1} as events_slug_unique, which MongoDB will not create beside it); run with --drop-unknown to drop events_slug, or name the definition events_slug in indexes/ to keep it',
    );
    expect(lines).toContain(
      'events: events_text was not created: events_search, not in indexes/, is in the way (it is a text index like events_text, and MongoDB allows one text index per collection); run with --drop-unknown to drop events_search, or name the definition events_search in indexes/ to keep it',
    );
    // The blocking index gets no second, generic line; the one in nobody's way does.
    expect(lines.filter((l) => l.includes('events_slug,') || l.startsWith('events: events_slug '))).toHaveLength(1);
    expect(lines).toContain('events: events_title_extra is not in indexes/; run with --drop-unknown to drop it');
    expect(lines.at(-1)).toBe('2 created, 0 rebuilt, 0 dropped; 2 indexes of indexes/ not created, another index being in the way (see above).');
    expect(report.remaining.missing).toEqual(['events.events_slug_unique', 'events.events_text']);
  });

  it('--check names what blocks a missing index', async () => {
    const { db, calls } = fakeDriverDb(renamed());
    const check = { check: true, recreate: false, dropUnknown: false };
    const { lines, exitCode } = describeIndexSync(await syncIndexSet(mongoIndexTarget(db), wanted(), check), check);
    expect(calls).toEqual([]);
    expect(exitCode).toBe(1);
    expect(lines).toContain('events: missing events_slug_unique');
    expect(lines).toContain(
      'events: events_slug_unique cannot be created: events_slug, not in indexes/, is in the way (it has the same key {slug: 1} as events_slug_unique, which MongoDB will not create beside it); run with --drop-unknown to drop events_slug, or name the definition events_slug in indexes/ to keep it',
    );
  });

  it('a changed index of indexes/ in the way needs --recreate, which rebuilds it first', async () => {
    // tags_name_unique is listed on slug, the key tags_slug_unique (missing) wants.
    const initial = { tags: [{ v: 2, key: { slug: 1 }, name: 'tags_name_unique', unique: true }] };
    const kept = fakeDriverDb(initial);
    const report = await syncIndexSet(mongoIndexTarget(kept.db), wanted(), apply);
    expect(kept.calls.filter((c) => c.includes(' tags '))).toEqual([]);
    const { lines, exitCode } = describeIndexSync(report, apply);
    expect(exitCode).toBe(1);
    expect(lines).toContain(
      'tags: tags_slug_unique was not created: tags_name_unique, whose definition differs from indexes/, is in the way (it has the same key {slug: 1} as tags_slug_unique, which MongoDB will not create beside it); run with --recreate to rebuild tags_name_unique first',
    );

    const rebuilt = fakeDriverDb(initial);
    const mode = { ...apply, recreate: true };
    const second = await syncIndexSet(mongoIndexTarget(rebuilt.db), wanted(), mode);
    expect(rebuilt.calls.filter((c) => c.includes(' tags '))).toEqual([
      'drop tags tags_name_unique',
      'create tags tags_name_unique',
      'create tags tags_slug_unique',
    ]);
    expect(describeIndexSync(second, mode).exitCode).toBe(0);
  });

  it('--recreate keeps a changed index whose rebuild an unknown one blocks; a collation is no block', async () => {
    // tags_slug_unique lost its unique flag under the same name (changed); tags_slug_copy holds the key it wants.
    const changed: ListedIndex[] = [{ v: 2, key: { slug: 1 }, name: 'tags_slug_unique' }, asListed(TAGS[1] as IndexDefinition)];
    const mode = { ...apply, recreate: true };
    const blocked = fakeDriverDb({ tags: [...changed, { v: 2, key: { slug: 1 }, name: 'tags_slug_copy', unique: true }] });
    const report = await syncIndexSet(mongoIndexTarget(blocked.db), wanted(), mode);
    // Dropping tags_slug_unique could not be followed by its creation: neither is attempted.
    expect(blocked.calls.filter((c) => c.includes(' tags '))).toEqual([]);
    expect(report.remaining.changed).toEqual(['tags.tags_slug_unique']);
    expect(describeIndexSync(report, mode)).toMatchObject({ exitCode: 1 });
    expect(describeIndexSync(report, mode).lines).toContain(
      'tags: tags_slug_unique was not rebuilt: tags_slug_copy, not in indexes/, is in the way (it has the same key {slug: 1} as tags_slug_unique, which MongoDB will not create beside it); run with --drop-unknown to drop tags_slug_copy, or name the definition tags_slug_copy in indexes/ to keep it',
    );

    // An index on the same key with a collation is another index to MongoDB: the rebuild goes ahead.
    const collated = fakeDriverDb({ tags: [...changed, { v: 2, key: { slug: 1 }, name: 'tags_slug_fr', collation: { locale: 'fr', strength: 2 } }] });
    await syncIndexSet(mongoIndexTarget(collated.db), wanted(), mode);
    expect(collated.calls.filter((c) => c.includes(' tags '))).toEqual(['drop tags tags_slug_unique', 'create tags tags_slug_unique']);
  });
});

describe('start-up (ensureIndexes) with a renamed index', () => {
  it('drops only the unknown indexes in the way, logs each, then creates every definition', async () => {
    const { db, calls, state } = fakeDriverDb(renamed('compound'));
    const logged: string[] = [];
    const dropped = await prepareIndexSet(mongoIndexTarget(db), wanted(), (conflict) => logged.push(describeDroppedConflict(conflict)));
    expect(calls.filter((c) => c.includes(' events '))).toEqual([
      'drop events events_slug',
      'drop events events_search',
      'create events events_slug_unique,events_status_start,events_text',
    ]);
    expect(dropped.map((d) => d.existing.name)).toEqual(['events_slug', 'events_search']);
    expect(logged).toEqual([
      'dropped index events.events_slug: it is not in indexes/, and it has the same key {slug: 1} as events_slug_unique, which MongoDB will not create beside it',
      'dropped index events.events_search: it is not in indexes/, and it is a text index like events_text, and MongoDB allows one text index per collection',
    ]);
    // The unknown index in nobody's way stays; the collections that did not exist are created.
    expect(state.get('events')?.map((i) => i.name)).toEqual(['_id_', 'events_status_start', 'events_title_extra', 'events_slug_unique', 'events_text']);
    expect(calls).toContain('create tags tags_slug_unique,tags_name_unique');
    // A second start finds nothing to drop.
    expect(await prepareIndexSet(mongoIndexTarget(db), wanted())).toEqual([]);
  });

  it('drops a renamed compound text index (CannotCreateIndex, 67, on the old order)', async () => {
    const db = inLine();
    db.events = db.events.map((i) =>
      i.name === 'events_text'
        ? {
            v: 2,
            key: { status: 1, _fts: 'text', _ftsx: 1 },
            name: 'events_search',
            weights: { title: 1 },
            default_language: 'english',
            language_override: 'language',
            textIndexVersion: 3,
          }
        : i,
    );
    const { db: driverDb, calls } = fakeDriverDb(db);
    const dropped = await prepareIndexSet(mongoIndexTarget(driverDb), wanted());
    expect(dropped.map((d) => [d.existing.name, d.rule])).toEqual([['events_search', 'one-text-index']]);
    expect(calls.filter((c) => c.includes(' events '))).toEqual([
      'drop events events_search',
      'create events events_slug_unique,events_status_start,events_text',
    ]);
  });

  it('leaves a changed index of indexes/ alone, whose creation fails as before (the --recreate case)', async () => {
    const db = renamed();
    // tags_slug_unique lost its unique flag under the same name.
    db.tags = [{ v: 2, key: { slug: 1 }, name: 'tags_slug_unique' }, asListed(TAGS[1] as IndexDefinition)];
    const fake = fakeDriverDb(db);
    const error: unknown = await prepareIndexSet(mongoIndexTarget(fake.db), wanted()).catch((e: unknown) => e);
    expect(((error as Error).cause as MongoServerError).code).toBe(85);
    // The other collections went ahead; nothing of tags was dropped.
    expect(fake.calls).toContain('create events events_slug_unique,events_status_start,events_text');
    expect(fake.calls.filter((c) => c.startsWith('drop'))).toEqual(['drop events events_slug', 'drop events events_search']);
  });

  it('never drops _id_, and tolerates an index another instance dropped meanwhile', async () => {
    // indexes/ asking for an index on _id alone: _id_ stands in its way, and stays.
    const onId: IndexSet = { ...wanted(), events: [{ name: 'events_by_id', key: { _id: 1 } }, ...EVENTS] };
    const fake = fakeDriverDb(renamed());
    const error: unknown = await prepareIndexSet(mongoIndexTarget(fake.db), onId).catch((e: unknown) => e);
    expect(((error as Error).cause as MongoServerError).code).toBe(85);
    expect(fake.calls.filter((c) => c.startsWith('drop'))).toEqual(['drop events events_slug', 'drop events events_search']);

    // IndexNotFound on drop: another instance starting at the same time dropped it first.
    await expect(mongoIndexTarget(fake.db).drop('events', 'events_slug')).resolves.toBeUndefined();
    // NamespaceNotFound on list: the collection does not exist yet.
    await expect(mongoIndexTarget(fake.db).list('venues')).resolves.toEqual([]);
  });
});
