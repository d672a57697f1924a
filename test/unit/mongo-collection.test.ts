/**
 * What the MongoDB engine sends to the driver, checked against a recording stand-in for a driver
 * collection (no server needed): the commands themselves are the driver's and the server's job.
 */
import { type Collection as DriverCollection, MongoNetworkError, MongoServerError, MongoServerSelectionError, MongoWriteConcernError } from 'mongodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { indexes } from '../../indexes/index.js';
import { DuplicateKeyError, ResultTooLargeError, StorageUnavailableError, StorageWriteUnconfirmedError, UnsupportedQueryError } from '../../src/errors.js';
import { createMongoCollection, planOf, type StoredDocument } from '../../src/storage/mongodb/collection.js';
import { type CounterDoc, createSequences } from '../../src/storage/mongodb/counters.js';
import { mongoClientOptions, DEFAULT_MONGO_TIMEOUTS } from '../../src/storage/mongodb/index.js';
import { createEmbeddedStorage } from '../../src/storage/embedded/index.js';
import { type Collection, type TagDoc } from '../../src/storage/port.js';
import { type ScriptedDriver, scriptedDriver } from '../helpers/driver-wire.js';

const limits = { operationMS: 8000 };

function fakeCollection(overrides: Record<string, unknown> = {}) {
  const toArray = vi.fn(() => Promise.resolve([{ _id: 1 }]));
  const aggregateToArray = vi.fn((): Promise<unknown[]> =>
    Promise.resolve([
      { _id: 3, count: 2 },
      { _id: null, count: 5 },
    ]),
  );
  const fake = {
    collectionName: 'tags',
    find: vi.fn(() => ({ toArray })),
    findOne: vi.fn(() => Promise.resolve({ _id: 1, name: 'current' })),
    countDocuments: vi.fn(() => Promise.resolve(42)),
    distinct: vi.fn((): Promise<unknown[]> => Promise.resolve([0, null, 3])),
    aggregate: vi.fn(() => ({ toArray: aggregateToArray })),
    insertOne: vi.fn(() => Promise.resolve({ acknowledged: true, insertedId: 1 })),
    insertMany: vi.fn((docs: unknown[]) => Promise.resolve({ acknowledged: true, insertedCount: docs.length })),
    findOneAndUpdate: vi.fn(() => Promise.resolve({ _id: 1, name: 'after' })),
    updateMany: vi.fn(() => Promise.resolve({ modifiedCount: 3 })),
    deleteOne: vi.fn(() => Promise.resolve({ deletedCount: 1 })),
    ...overrides,
  };
  const collection = createMongoCollection<TagDoc>(fake as unknown as DriverCollection<StoredDocument>, indexes.tags, limits);
  return { fake, toArray, aggregateToArray, collection };
}

/** A tag document; `extra` fields stand for any nested value a document may hold. */
const tag = (fields: Record<string, unknown> = {}): TagDoc => ({ _id: 5, name: 'Jazz', nameKey: 'jazz', slug: 'jazz', description: '', parent: 0, ...fields });

const duplicateSlug = () =>
  new MongoServerError({
    code: 11000,
    errmsg: 'E11000 duplicate key error collection: calendar.tags index: tags_slug_unique dup key: { slug: "a" }',
  });

describe('mongodb collection', () => {
  it('passes a compiled query through: filter, ordered sort, skip, limit, server time limit', async () => {
    const { fake, collection } = fakeCollection();
    const filter = { $text: { $search: 'jazz' }, parent: { $in: [0, 3] } };
    await collection.find({
      filter,
      sort: [
        ['name', 1],
        ['_id', -1],
      ],
      skip: 20,
      limit: 10,
    });
    expect(fake.find).toHaveBeenCalledWith(filter, {
      maxTimeMS: 8000,
      sort: [
        ['name', 1],
        ['_id', -1],
      ],
      skip: 20,
      limit: 10,
    });
  });

  it('leaves out absent sort, skip 0 and limit', async () => {
    const { fake, collection } = fakeCollection();
    await collection.find({ filter: {}, skip: 0 });
    expect(fake.find).toHaveBeenCalledWith({}, { maxTimeMS: 8000 });
  });

  it('reads limit 0 as no limit, like MongoDB and the embedded engine', async () => {
    const { fake, collection } = fakeCollection();
    await collection.find({ filter: {}, limit: 0 });
    expect(fake.find).toHaveBeenCalledWith({}, { maxTimeMS: 8000 });
  });

  it('findPage runs the find and the count of the same filter concurrently', async () => {
    let resolveFind: (docs: unknown[]) => void = () => undefined;
    const toArray = vi.fn(() => new Promise<unknown[]>((resolve) => (resolveFind = resolve)));
    const { fake, collection } = fakeCollection({ find: vi.fn(() => ({ toArray })) });
    const filter = { $text: { $search: 'jazz' } };
    const page = collection.findPage({ filter, limit: 5 });
    await Promise.resolve();
    // The count is already on its way while the find is still pending.
    expect(fake.countDocuments).toHaveBeenCalledWith(filter, { maxTimeMS: 8000 });
    resolveFind([{ _id: 7 }]);
    expect(await page).toEqual({ items: [{ _id: 7 }], total: 42 });
  });

  it('distinct sends the key and filter as given with the server time limit, and drops nulls', async () => {
    const { fake, collection } = fakeCollection();
    const filter = { $text: { $search: 'jazz' }, searchTerms: { $all: ['jazz'] }, _id: { $in: [1, 2] } };
    const day = new Date('2025-04-01T00:00:00.000Z');
    fake.distinct.mockResolvedValueOnce([null, 0, 'a', day, null]);
    expect(await collection.distinct('parent', filter)).toEqual([0, 'a', day]);
    expect(fake.distinct).toHaveBeenCalledWith('parent', filter, { maxTimeMS: 8000 });
    expect(await collection.distinct('name', {})).toEqual([0, 3]);
    expect(fake.distinct).toHaveBeenLastCalledWith('name', {}, { maxTimeMS: 8000 });
  });

  it('distinct translates driver errors like the other operations', async () => {
    const timeout = new MongoServerError({ code: 50, errmsg: 'operation exceeded time limit' });
    const { collection } = fakeCollection({ distinct: vi.fn(() => Promise.reject(timeout)) });
    await expect(collection.distinct('parent', {})).rejects.toBeInstanceOf(StorageUnavailableError);
    const badValue = new MongoServerError({ code: 2, codeName: 'BadValue', errmsg: 'unknown operator: $foo' });
    const refused = fakeCollection({ distinct: vi.fn(() => Promise.reject(badValue)) }).collection;
    await expect(refused.distinct('parent', {})).rejects.toThrow('MongoDB tags.distinct failed (MongoServerError, code 2, BadValue)');
  });

  it('distinct past the 16 MB reply (code 17217) is ResultTooLargeError, which services refuse by parameter', async () => {
    const tooBig = new MongoServerError({ code: 17217, errmsg: 'distinct too big, 16mb cap' });
    const { collection } = fakeCollection({ distinct: vi.fn(() => Promise.reject(tooBig)) });
    const failure = collection.distinct('venueId', {});
    await expect(failure).rejects.toBeInstanceOf(ResultTooLargeError);
    await expect(failure).rejects.toMatchObject({ cause: tooBig });
  });

  it('countValues sends $match, a per-document set of values, $unwind and $group with the server time limit', async () => {
    const { fake, collection } = fakeCollection();
    const filter = { $text: { $search: 'jazz' }, searchTerms: { $all: ['jazz'] }, parent: { $in: [0, 3] } };
    expect(await collection.countValues('parent', filter)).toEqual([{ value: 3, count: 2 }]);
    expect(fake.aggregate).toHaveBeenCalledWith(
      [
        // First stage, so `$text` is allowed.
        { $match: filter },
        {
          $project: {
            _id: 0,
            values: { $setUnion: [{ $cond: [{ $isArray: '$parent' }, '$parent', ['$parent']] }, []] },
          },
        },
        { $unwind: '$values' },
        { $group: { _id: '$values', count: { $sum: 1 } } },
      ],
      { maxTimeMS: 8000 },
    );
  });

  it('countValues drops the null group and keeps every other value as the driver returns it', async () => {
    const { aggregateToArray, collection } = fakeCollection();
    const day = new Date('2025-04-01T00:00:00.000Z');
    aggregateToArray.mockResolvedValueOnce([
      { _id: null, count: 4 },
      { _id: 0, count: 1 },
      { _id: 'a', count: 3 },
      { _id: day, count: 2 },
      { _id: false, count: 6 },
    ]);
    expect(await collection.countValues('name', {})).toEqual([
      { value: 0, count: 1 },
      { value: 'a', count: 3 },
      { value: day, count: 2 },
      { value: false, count: 6 },
    ]);
    aggregateToArray.mockResolvedValueOnce([{ _id: null, count: 9 }]);
    expect(await collection.countValues('name', {})).toEqual([]);
  });

  it('countValues translates driver errors like the other operations', async () => {
    const timeout = new MongoServerError({ code: 50, errmsg: 'operation exceeded time limit' });
    const failing = (error: Error) => fakeCollection({ aggregate: vi.fn(() => ({ toArray: () => Promise.reject(error) })) }).collection;
    await expect(failing(timeout).countValues('parent', {})).rejects.toBeInstanceOf(StorageUnavailableError);
    const noTextIndex = new MongoServerError({
      code: 27,
      codeName: 'IndexNotFound',
      errmsg: 'text index required for $text query',
    });
    await expect(failing(noTextIndex).countValues('parent', { $text: { $search: 'jazz' } })).rejects.toThrow(
      'MongoDB tags.aggregate failed (MongoServerError, code 27, IndexNotFound)',
    );
  });

  it('updateById sends $set as given and $unset as a document', async () => {
    const { fake, collection } = fakeCollection();
    const after = await collection.updateById(1, { $set: { name: 'Jazz', parent: 0 }, $unset: ['description'] });
    expect(fake.findOneAndUpdate).toHaveBeenCalledWith(
      { _id: 1 },
      { $set: { name: 'Jazz', parent: 0 }, $unset: { description: '' } },
      { maxTimeMS: 8000, returnDocument: 'after' },
    );
    expect(after).toEqual({ _id: 1, name: 'after' });
  });

  it.each([
    ['an undefined value', { $set: { slug: undefined } }],
    ['_id in $set', { $set: { _id: 9 } }],
    ['_id in $unset', { $unset: ['_id'] }],
    ['a field both set and unset', { $set: { name: 'x' }, $unset: ['name'] }],
  ])('updateById refuses %s, like the embedded engine', async (_name, update) => {
    const { fake, collection } = fakeCollection();
    await expect(collection.updateById(1, update as never)).rejects.toBeInstanceOf(UnsupportedQueryError);
    expect(fake.findOneAndUpdate).not.toHaveBeenCalled();
  });

  it('updateById accepts $set of the _id the document has, and leaves it out of the update sent', async () => {
    const { fake, collection } = fakeCollection();
    expect(await collection.updateById(1, { $set: { _id: 1, name: 'Kept' } })).toEqual({ _id: 1, name: 'after' });
    expect(fake.findOneAndUpdate).toHaveBeenCalledWith({ _id: 1 }, { $set: { name: 'Kept' } }, { maxTimeMS: 8000, returnDocument: 'after' });
    // Nothing else to change: the document is read, nothing is written.
    expect(await collection.updateById(1, { $set: { _id: 1 } })).toEqual({ _id: 1, name: 'current' });
    expect(fake.findOneAndUpdate).toHaveBeenCalledOnce();
  });

  it.each([
    ['another number', 2],
    ['the same id as a string', '1'],
  ])('updateById refuses $set of _id to %s before writing anything, naming the document', async (_name, value) => {
    const { fake, collection } = fakeCollection();
    await expect(collection.updateById(1, { $set: { _id: value, name: 'x' } } as never)).rejects.toThrow(
      new UnsupportedQueryError('$set: _id is immutable (document 1).'),
    );
    expect(fake.findOneAndUpdate).not.toHaveBeenCalled();
  });

  it('insertOne refuses undefined anywhere in the document', async () => {
    const { fake, collection } = fakeCollection();
    await expect(collection.insertOne({ _id: 1, name: 'a', nameKey: 'a', slug: 'a', description: undefined as never, parent: 0 })).rejects.toBeInstanceOf(
      UnsupportedQueryError,
    );
    expect(fake.insertOne).not.toHaveBeenCalled();
  });

  it.each([
    ['insertOne, a top-level field', (c: Collection<TagDoc>) => c.insertOne(tag({ description: undefined as never }))],
    ['insertOne, inside an array in an object', (c: Collection<TagDoc>) => c.insertOne(tag({ extra: { list: [1, undefined] } }))],
    [
      'insertOne, inside an object without a prototype',
      (c: Collection<TagDoc>) => c.insertOne(tag({ extra: Object.assign(Object.create(null) as object, { a: undefined }) })),
    ],
    ['insertMany, in its second document', (c: Collection<TagDoc>) => c.insertMany([tag({ _id: 7, slug: 'ok' }), tag({ _id: 8, extra: [undefined] })])],
    ['updateById, a $set field', (c: Collection<TagDoc>) => c.updateById(1, { $set: { description: undefined as never } })],
    ['updateById, inside a $set value', (c: Collection<TagDoc>) => c.updateById(1, { $set: { extra: { a: [undefined] } } as never })],
  ])('refuses undefined (%s) with the embedded engine’s message, before any driver call', async (_name, write) => {
    const embedded = createEmbeddedStorage({ indexes, reason: 'test' });
    await embedded.ensureIndexes();
    await embedded.tags.insertOne(tag({ _id: 1 }));
    const embeddedRefusal = await write(embedded.tags).then(
      () => null,
      (error: unknown) => error,
    );
    await embedded.close();
    expect(embeddedRefusal).toBeInstanceOf(UnsupportedQueryError);
    const { fake, collection } = fakeCollection();
    await expect(write(collection)).rejects.toThrow(new UnsupportedQueryError((embeddedRefusal as Error).message));
    expect([fake.insertOne, fake.insertMany, fake.findOneAndUpdate].map((call) => call.mock.calls.length)).toEqual([0, 0, 0]);
  });

  it('updateById with nothing to change returns the stored document', async () => {
    const { fake, collection } = fakeCollection();
    expect(await collection.updateById(1, { $set: {} })).toEqual({ _id: 1, name: 'current' });
    expect(await collection.updateById(1, {})).toEqual({ _id: 1, name: 'current' });
    expect(fake.findOneAndUpdate).not.toHaveBeenCalled();
    expect(fake.findOne).toHaveBeenCalledWith({ _id: 1 }, { maxTimeMS: 8000 });
  });

  it('updateById translates a slug clash into DuplicateKeyError', async () => {
    const { collection } = fakeCollection({ findOneAndUpdate: vi.fn(() => Promise.reject(duplicateSlug())) });
    await expect(collection.updateById(1, { $set: { slug: 'a' } })).rejects.toSatisfy(
      (e: unknown) => e instanceof DuplicateKeyError && e.index === 'tags_slug_unique',
    );
  });

  it('updateMany supports $set and $pull and returns the modified count', async () => {
    const { fake, collection } = fakeCollection();
    expect(await collection.updateMany({ venueId: 4 }, { $set: { venueId: null }, $pull: { tagIds: 4 } })).toBe(3);
    expect(fake.updateMany).toHaveBeenCalledWith({ venueId: 4 }, { $set: { venueId: null }, $pull: { tagIds: 4 } });
    expect(await collection.updateMany({}, {})).toBe(0);
    expect(fake.updateMany).toHaveBeenCalledOnce();
  });

  it('deleteById reports whether a document was removed', async () => {
    const { fake, collection } = fakeCollection();
    expect(await collection.deleteById(5)).toBe(true);
    expect(fake.deleteOne).toHaveBeenCalledWith({ _id: 5 });
    fake.deleteOne.mockResolvedValueOnce({ deletedCount: 0 });
    expect(await collection.deleteById(5)).toBe(false);
  });

  it('insertOne translates a duplicate into DuplicateKeyError', async () => {
    const { collection } = fakeCollection({ insertOne: vi.fn(() => Promise.reject(duplicateSlug())) });
    await expect(collection.insertOne({ _id: 1, name: 'a', nameKey: 'a', slug: 'a', description: '', parent: 0 })).rejects.toBeInstanceOf(DuplicateKeyError);
  });
});

describe('mongodb insertMany (the real driver, scripted replies)', () => {
  let driver: ScriptedDriver | undefined;
  afterEach(() => driver?.restore());

  /** Our collection over a real driver collection whose commands get `replies`. */
  const tagsOver = (options: { maxWriteBatchSize?: number }, ...replies: Parameters<ScriptedDriver['reply']>) => {
    driver = scriptedDriver(options);
    driver.reply(...replies);
    return createMongoCollection<TagDoc>(driver.collection<StoredDocument>('tags'), indexes.tags, limits);
  };
  const tags = (count: number) =>
    Array.from({ length: count }, (_, i) => ({ _id: i + 1, name: `t${i}`, nameKey: `t${i}`, slug: `t${i}`, description: '', parent: 0 }));
  const duplicate = (index: number, slug: string) => ({
    index,
    code: 11000,
    errmsg: `E11000 duplicate key error collection: calendar.tags index: tags_slug_unique dup key: { slug: "${slug}" }`,
    keyPattern: { slug: 1 },
    keyValue: { slug },
  });
  const wtimeout = { code: 64, codeName: 'WriteConcernTimeout', errmsg: 'waiting for replication timed out', errInfo: { wtimeout: true } };

  it('reports duplicates by position and stores the rest', async () => {
    const collection = tagsOver({}, { ok: 1, n: 2, writeErrors: [duplicate(1, 't1')] });
    const failures = await collection.insertMany(tags(3));
    expect(failures.map((f) => [f.index, f.error.index])).toEqual([[1, 'tags_slug_unique']]);
    expect(failures[0]?.error).toBeInstanceOf(DuplicateKeyError);
    expect(driver?.sent.map((c) => c.commandName)).toEqual(['insert']);
  });

  it('reports duplicates from every batch at their positions in the whole list', async () => {
    const collection = tagsOver(
      { maxWriteBatchSize: 3 },
      { ok: 1, n: 1, writeErrors: [duplicate(0, 't0')] },
      { ok: 1, n: 0, writeErrors: [duplicate(0, 't2')] },
    );
    expect((await collection.insertMany(tags(3))).map((f) => f.index)).toEqual([0, 2]);
    expect(driver?.sent.map((c) => c.documents?.length)).toEqual([2, 1]);
  });

  it.each([
    ['a network error', () => new MongoNetworkError('connection 4 to 127.0.0.1:27017 closed')],
    [
      'a server selection timeout',
      () => new MongoServerSelectionError('Server selection timed out after 5000 ms', { type: 'Unknown', servers: new Map(), error: null } as never),
    ],
    ['NotWritablePrimary (10107)', () => new MongoServerError({ ok: 0, code: 10107, codeName: 'NotWritablePrimary', errmsg: 'not primary' })],
    ['MaxTimeMSExpired (50)', () => new MongoServerError({ ok: 0, code: 50, codeName: 'MaxTimeMSExpired', errmsg: 'operation exceeded time limit' })],
  ])('rejects with StorageUnavailableError when the insert command fails with %s (nothing was reported stored)', async (_name, failure) => {
    const collection = tagsOver({}, failure());
    await expect(collection.insertMany(tags(3))).rejects.toBeInstanceOf(StorageUnavailableError);
  });

  it('rejects when a later batch fails, even though the first one only had duplicates', async () => {
    const collection = tagsOver({ maxWriteBatchSize: 3 }, { ok: 1, n: 1, writeErrors: [duplicate(1, 't1')] }, new MongoNetworkError('connection reset'));
    await expect(collection.insertMany(tags(3))).rejects.toBeInstanceOf(StorageUnavailableError);
  });

  it('rejects with StorageWriteUnconfirmedError when the write concern fails, with or without duplicates', async () => {
    // The server's reply carries both; the driver throws it as a MongoWriteConcernError.
    const withDuplicates = tagsOver({}, () => {
      throw new MongoWriteConcernError({ ok: 1, n: 2, writeErrors: [duplicate(1, 't1')], writeConcernError: wtimeout });
    });
    await expect(withDuplicates.insertMany(tags(3))).rejects.toBeInstanceOf(StorageWriteUnconfirmedError);
    driver?.restore();
    const alone = tagsOver({}, () => {
      throw new MongoWriteConcernError({ ok: 1, n: 3, writeConcernError: wtimeout });
    });
    await expect(alone.insertMany(tags(3))).rejects.toBeInstanceOf(StorageWriteUnconfirmedError);
  });

  it('rejects when the reply does not account for every document', async () => {
    // One duplicate, yet only one of the other two reported inserted.
    const collection = tagsOver({}, { ok: 1, n: 1, writeErrors: [duplicate(1, 't1')] });
    const rejection = collection.insertMany(tags(3));
    await expect(rejection).rejects.toThrow('MongoDB tags.insertMany failed (MongoBulkWriteError, code 11000)');
    await expect(rejection).rejects.not.toBeInstanceOf(DuplicateKeyError);
  });

  it('rejects a success that stored fewer documents than sent', async () => {
    const collection = tagsOver({}, { ok: 1, n: 1 });
    await expect(collection.insertMany(tags(3))).rejects.toThrow('MongoDB tags.insertMany stored 1 of 3 documents');
  });

  it('rejects when any write failed for another reason than a duplicate key', async () => {
    const invalid = { index: 2, code: 121, codeName: 'DocumentValidationFailure', errmsg: 'Document failed validation' };
    const collection = tagsOver({}, { ok: 1, n: 1, writeErrors: [duplicate(1, 't1'), invalid] });
    await expect(collection.insertMany(tags(3))).rejects.toThrow('MongoDB tags.insertMany failed (MongoBulkWriteError, code 11000)');
  });
});

describe('mongodb sequences', () => {
  const counters = (findOneAndUpdate: ReturnType<typeof vi.fn>) => createSequences({ findOneAndUpdate } as unknown as DriverCollection<CounterDoc>, limits);

  it('increments with an upsert returning the document after the update', async () => {
    const findOneAndUpdate = vi.fn(() => Promise.resolve({ _id: 'posts', value: 7 }));
    expect(await counters(findOneAndUpdate)('posts')).toBe(7);
    expect(findOneAndUpdate).toHaveBeenCalledWith({ _id: 'posts' }, { $inc: { value: 1 } }, { upsert: true, returnDocument: 'after', maxTimeMS: 8000 });
  });

  it('retries once when a concurrent first upsert won the insert', async () => {
    const duplicate = new MongoServerError({
      code: 11000,
      errmsg: 'E11000 duplicate key error collection: calendar.counters index: _id_ dup key: { _id: "terms" }',
    });
    const findOneAndUpdate = vi.fn().mockRejectedValueOnce(duplicate).mockResolvedValueOnce({ _id: 'terms', value: 2 });
    expect(await counters(findOneAndUpdate)('terms')).toBe(2);
    expect(findOneAndUpdate).toHaveBeenCalledTimes(2);
  });

  it('translates other failures', async () => {
    const findOneAndUpdate = vi.fn(() => Promise.reject(new MongoServerError({ code: 91, errmsg: 'shutting down' })));
    await expect(counters(findOneAndUpdate)('posts')).rejects.toBeInstanceOf(StorageUnavailableError);
  });
});

describe('mongodb client options', () => {
  it('asks for majority writes, primary reads and bounded waits, and no CSOT timeoutMS (a no-op in driver 7)', () => {
    const options = mongoClientOptions(DEFAULT_MONGO_TIMEOUTS);
    expect(options).toMatchObject({
      appName: 'calendar-service',
      retryWrites: true,
      writeConcern: { w: 'majority', wtimeoutMS: 8000 },
      readConcern: { level: 'local' },
      readPreference: 'primary',
      serverSelectionTimeoutMS: 5000,
    });
    expect(options).not.toHaveProperty('timeoutMS');
  });
});

describe('planOf (explain on MongoDB)', () => {
  const sorted = {
    filter: {},
    sort: [
      ['startUtc', 1],
      ['_id', 1],
    ] as Array<[string, 1 | -1]>,
  };

  it('reads an index walk in the classic plan tree', () => {
    const plan = planOf(
      {
        stage: 'LIMIT',
        inputStage: {
          stage: 'FETCH',
          filter: { hideFromListings: { $eq: false } },
          inputStage: { stage: 'IXSCAN', indexName: 'events_status_start', keyPattern: { status: 1, startUtc: 1, _id: 1 } },
        },
      },
      sorted,
    );
    expect(plan).toEqual({ indexes: ['events_status_start'], collectionScan: false, sort: 'index' });
  });

  it('reads a collection scan sorted in memory', () => {
    expect(planOf({ stage: 'SORT', sortPattern: { startUtc: 1 }, inputStage: { stage: 'COLLSCAN', direction: 'forward' } }, sorted)).toEqual({
      indexes: [],
      collectionScan: true,
      sort: 'memory',
    });
  });

  it('reads text search stages and OR branches', () => {
    const plan = planOf(
      {
        stage: 'SORT',
        inputStage: {
          stage: 'TEXT_MATCH',
          indexName: 'events_text',
          inputStage: {
            stage: 'FETCH',
            inputStage: {
              stage: 'OR',
              inputStages: [
                { stage: 'IXSCAN', indexName: 'events_text' },
                { stage: 'IXSCAN', indexName: 'events_venue_start' },
              ],
            },
          },
        },
      },
      sorted,
    );
    expect(plan).toEqual({ indexes: ['events_text', 'events_venue_start'], collectionScan: false, sort: 'memory' });
  });

  it('reads the slot-based engine form (queryPlan under winningPlan), unsorted queries', () => {
    const plan = planOf(
      {
        queryPlan: { stage: 'FETCH', planNodeId: 2, inputStage: { stage: 'IXSCAN', planNodeId: 1, indexName: '_id_' } },
        slotBasedPlan: { slots: '$$RESULT=s11', stages: '[2] nlj …' },
      },
      { filter: {} },
    );
    expect(plan).toEqual({ indexes: ['_id_'], collectionScan: false, sort: 'none' });
  });

  /** An IXSCAN as explain prints it (6.0+, classic and slot-based alike). */
  const ixscan = (indexName: string, keyPattern: Record<string, number>, indexBounds: Record<string, string[]>, more: Record<string, unknown> = {}) => ({
    stage: 'IXSCAN',
    keyPattern,
    indexName,
    isMultiKey: false,
    multiKeyPaths: Object.fromEntries(Object.keys(keyPattern).map((field) => [field, []])),
    isUnique: indexName === '_id_',
    isSparse: false,
    isPartial: false,
    indexVersion: 2,
    direction: 'forward',
    indexBounds,
    ...more,
  });
  const unserved = { allDay: { $eq: true }, showMapLink: { $eq: false } };
  const byId = { filter: { allDay: true, showMapLink: false }, sort: [['_id', 1]] as Array<[string, 1 | -1]> };

  it('reads a FETCH over the whole _id_ index (chosen for its order) as a collection scan: classic 6.0 / 7.0', () => {
    const plan = planOf({ stage: 'FETCH', filter: { $and: [unserved] }, inputStage: ixscan('_id_', { _id: 1 }, { _id: ['[MinKey, MaxKey]'] }) }, byId);
    expect(plan).toEqual({ indexes: ['_id_'], collectionScan: true, sort: 'index' });
  });

  it('reads the same plan in the slot-based form (7.0 / 8.0), and a backward walk', () => {
    const sbe = {
      isCached: false,
      queryPlan: {
        stage: 'FETCH',
        planNodeId: 2,
        filter: { $and: [unserved] },
        inputStage: ixscan('_id_', { _id: 1 }, { _id: ['[MaxKey, MinKey]'] }, { planNodeId: 1, direction: 'backward' }),
      },
      slotBasedPlan: { slots: '$$RESULT=s11 env: { }', stages: '[2] filter {…} [2] nlj inner [] [s2, s3, s4, s5, s6] …' },
    };
    expect(planOf(sbe, { ...byId, sort: [['_id', -1]] })).toEqual({ indexes: ['_id_'], collectionScan: true, sort: 'index' });
  });

  it('reads a whole-index walk of a compound index as a collection scan, a bounded one as an index scan', () => {
    const sorted = {
      filter: {},
      sort: [
        ['status', 1],
        ['startUtc', 1],
        ['_id', 1],
      ] as Array<[string, 1 | -1]>,
    };
    const key = { status: 1, startUtc: 1, _id: 1 };
    const whole = { status: ['[MinKey, MaxKey]'], startUtc: ['[MinKey, MaxKey]'], _id: ['[MinKey, MaxKey]'] };
    expect(planOf({ stage: 'FETCH', inputStage: ixscan('events_status_start', key, whole) }, sorted).collectionScan).toBe(true);
    const bounded = { status: ['["publish", "publish"]'], startUtc: ['[new Date(1780000000000), new Date(9223372036854775807)]'], _id: ['[MinKey, MaxKey]'] };
    expect(planOf({ stage: 'FETCH', inputStage: ixscan('events_status_start', key, bounded) }, sorted)).toEqual({
      indexes: ['events_status_start'],
      collectionScan: false,
      sort: 'index',
    });
    // Two intervals ($ne / $nin) skip some keys; a partial or sparse index holds only some documents;
    // bounds left out of a too large explain say nothing.
    expect(planOf(ixscan('events_status_start', key, { ...whole, status: ['[MinKey, "draft")', '("draft", MaxKey]'] }), sorted).collectionScan).toBe(false);
    expect(planOf(ixscan('events_status_start', key, whole, { isPartial: true }), sorted).collectionScan).toBe(false);
    expect(planOf(ixscan('events_status_start', key, whole, { isSparse: true }), sorted).collectionScan).toBe(false);
    expect(
      planOf({ ...ixscan('events_status_start', key, {}), indexBounds: undefined, warning: 'index bounds omitted due to BSON size limit for explain' }, sorted)
        .collectionScan,
    ).toBe(false);
  });

  it('reads the _id point look-ups that name no index as _id_: IDHACK (7.0), EXPRESS_CLUSTERED_IXSCAN (8.0)', () => {
    const byIdEq = { filter: { _id: 5 } };
    expect(planOf({ stage: 'IDHACK' }, byIdEq)).toEqual({ indexes: ['_id_'], collectionScan: false, sort: 'none' });
    expect(planOf({ isCached: false, stage: 'EXPRESS_CLUSTERED_IXSCAN' }, byIdEq)).toEqual({ indexes: ['_id_'], collectionScan: false, sort: 'none' });
  });

  it('reads the 8.0 express stages that name their index', () => {
    expect(planOf({ isCached: false, stage: 'EXPRESS_IXSCAN', keyPattern: '{ _id: 1 }', indexName: '_id_' }, { filter: { _id: 5 } }).indexes).toEqual(['_id_']);
    expect(
      planOf({ isCached: false, stage: 'EXPRESS_IXSCAN', keyPattern: { slug: 1 }, indexName: 'events_slug_unique' }, { filter: { slug: 'a' } }).indexes,
    ).toEqual(['events_slug_unique']);
  });

  it('reads SORT_MERGE as index order and SORT of either type as a sort in memory', () => {
    const sorted = {
      filter: {},
      sort: [
        ['startUtc', 1],
        ['_id', 1],
      ] as Array<[string, 1 | -1]>,
    };
    const merge = {
      stage: 'FETCH',
      inputStage: {
        stage: 'SORT_MERGE',
        sortPattern: { startUtc: 1, _id: 1 },
        inputStages: [
          ixscan(
            'events_venue_start',
            { venueId: 1, startUtc: 1, _id: 1 },
            { venueId: ['[112, 112]'], startUtc: ['[MinKey, MaxKey]'], _id: ['[MinKey, MaxKey]'] },
          ),
          ixscan(
            'events_organizers_start',
            { organizerIds: 1, startUtc: 1, _id: 1 },
            { organizerIds: ['[211, 211]'], startUtc: ['[MinKey, MaxKey]'], _id: ['[MinKey, MaxKey]'] },
          ),
        ],
      },
    };
    expect(planOf(merge, sorted)).toEqual({ indexes: ['events_organizers_start', 'events_venue_start'], collectionScan: false, sort: 'index' });
    for (const type of ['simple', 'default']) {
      const blocking = {
        stage: 'SORT',
        sortPattern: { startUtc: 1, _id: 1 },
        memLimit: 104857600,
        type,
        inputStage: { stage: 'COLLSCAN', direction: 'forward' },
      };
      expect(planOf(blocking, sorted)).toEqual({ indexes: [], collectionScan: true, sort: 'memory' });
      expect(planOf({ queryPlan: { ...blocking, planNodeId: 2 }, slotBasedPlan: {} }, sorted).sort).toBe('memory');
    }
  });
});
