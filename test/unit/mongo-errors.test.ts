import {
  MongoBulkWriteError,
  MongoClientClosedError,
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoOperationTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
  MongoWriteConcernError,
} from 'mongodb';
import { describe, expect, it } from 'vitest';
import { indexes } from '../../indexes/index.js';
import { type IndexDefinition } from '../../src/storage/port.js';
import { ApiError, DuplicateKeyError, StorageUnavailableError, StorageWriteUnconfirmedError } from '../../src/errors.js';
import { toErrorResponse } from '../../src/plugins/error-handler.js';
import { duplicateKeyIndexName, insertManyFailures, translateMongoError } from '../../src/storage/mongodb/errors.js';
import { insertManyError } from '../helpers/driver-wire.js';

const serverError = (fields: Record<string, unknown>) => new MongoServerError(fields);

describe('translateMongoError', () => {
  it('turns E11000 into DuplicateKeyError naming the index from the server message', () => {
    const error = serverError({
      code: 11000,
      codeName: 'DuplicateKey',
      errmsg: 'E11000 duplicate key error collection: calendar.events index: events_slug_unique dup key: { slug: "a" }',
      keyPattern: { slug: 1 },
      keyValue: { slug: 'a' },
    });
    const translated = translateMongoError(error, 'events.insertOne', indexes.events);
    expect(translated).toBeInstanceOf(DuplicateKeyError);
    expect((translated as DuplicateKeyError).index).toBe('events_slug_unique');
    expect(translated.cause).toBe(error);
  });

  it('names the _id index and compound indexes', () => {
    const id = serverError({
      code: 11000,
      errmsg: 'E11000 duplicate key error collection: calendar.tags index: _id_ dup key: { _id: 5 }',
    });
    expect(translateMongoError(id, 'tags.insertOne')).toMatchObject({ index: '_id_' });
    const compound = serverError({
      code: 11000,
      errmsg: 'E11000 duplicate key error collection: calendar.categories index: categories_parent_name_unique dup key: { parent: 0, nameKey: "music" }',
    });
    expect(translateMongoError(compound, 'categories.findOneAndUpdate')).toMatchObject({
      index: 'categories_parent_name_unique',
    });
  });

  it('falls back to keyPattern when the message does not name the index', () => {
    const error = serverError({ code: 11000, errmsg: 'duplicate key', keyPattern: { parent: 1, nameKey: 1 } });
    expect(translateMongoError(error, 'categories.insertOne', indexes.categories)).toMatchObject({
      index: 'categories_parent_name_unique',
    });
    const id = serverError({ code: 11000, errmsg: 'duplicate key', keyPattern: { _id: 1 } });
    expect(translateMongoError(id, 'events.insertOne', indexes.events)).toMatchObject({ index: '_id_' });
  });

  it.each([
    ['a network error', new MongoNetworkError('connection 3 to 127.0.0.1:27017 closed')],
    ['a network timeout', new MongoNetworkTimeoutError('connection timed out')],
    [
      'a server selection timeout',
      new MongoServerSelectionError('Server selection timed out after 5000 ms', { type: 'Unknown', servers: new Map(), error: null } as never),
    ],
    ['an operation timeout', new MongoOperationTimeoutError('Timed out during operation')],
    ['a closed client', new MongoClientClosedError()],
    ['not writable primary', serverError({ code: 10107, codeName: 'NotWritablePrimary', errmsg: 'not primary' })],
    ['primary stepped down', serverError({ code: 189, codeName: 'PrimarySteppedDown', errmsg: 'stepped down' })],
    ['shutdown in progress', serverError({ code: 91, codeName: 'ShutdownInProgress', errmsg: 'shutting down' })],
    ['maxTimeMS expired', serverError({ code: 50, codeName: 'MaxTimeMSExpired', errmsg: 'operation exceeded time limit' })],
    ['failed authentication', serverError({ code: 18, codeName: 'AuthenticationFailed', errmsg: 'auth failed' })],
    ['a retryable write label', serverError({ code: 999999, errmsg: 'x', errorLabels: ['RetryableWriteError'] })],
  ])('turns %s into StorageUnavailableError', (_name, error) => {
    const translated = translateMongoError(error, 'events.find');
    expect(translated).toBeInstanceOf(StorageUnavailableError);
    expect(translated).toMatchObject({ statusCode: 503, code: 'storage-unavailable' });
    expect(translated.message).not.toMatch(/127\.0\.0\.1|primary|replication/);
    expect(translated.cause).toBe(error);
  });

  /** A reply whose write was applied on the primary but whose write concern was not met. */
  const wceReply = (writeConcernError: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    ok: 1,
    n: 1,
    ...extra,
    writeConcernError,
  });
  const wtimeout = {
    code: 64,
    codeName: 'WriteConcernTimeout',
    errmsg: 'waiting for replication timed out',
    errInfo: { wtimeout: true, writeConcern: { w: 'majority', wtimeout: 8000, provenance: 'clientSupplied' } },
  };

  it.each([
    ['a write concern timeout (code 64, errInfo.wtimeout)', new MongoWriteConcernError(wceReply(wtimeout) as never)],
    [
      'a write concern timeout named only by errInfo.wtimeout',
      new MongoWriteConcernError(wceReply({ errmsg: 'timed out', errInfo: { wtimeout: true } }) as never),
    ],
    [
      'any other write-concern error (unsatisfiable)',
      new MongoWriteConcernError(wceReply({ code: 100, codeName: 'UnsatisfiableWriteConcern', errmsg: 'Not enough data-bearing nodes' }) as never),
    ],
    [
      'a write-concern error whose code is a shutdown',
      new MongoWriteConcernError(wceReply({ code: 91, codeName: 'ShutdownInProgress', errmsg: 'shutting down' }) as never),
    ],
    ['a server error carrying a writeConcernError with code 64', serverError(wceReply(wtimeout))],
    ['a bare WriteConcernTimeout code', serverError({ code: 64, codeName: 'WriteConcernTimeout', errmsg: 'waiting for replication timed out' })],
  ])('turns %s into StorageWriteUnconfirmedError, not StorageUnavailableError', (_name, error) => {
    const translated = translateMongoError(error, 'events.findOneAndUpdate');
    expect(translated).toBeInstanceOf(StorageWriteUnconfirmedError);
    expect(translated).not.toBeInstanceOf(StorageUnavailableError);
    expect(translated).toMatchObject({ statusCode: 503, code: 'storage-write-unconfirmed', headers: { 'retry-after': '5' } });
    expect(translated.message).toMatch(/may have been applied/);
    expect(translated.message).toMatch(/Idempotency-Key/);
    expect(translated.message).not.toMatch(/replication|nodes|shutting/);
    expect(translated.cause).toBe(error);
  });

  it('answers an unconfirmed write 503 storage-write-unconfirmed with Retry-After', () => {
    const { body, headers } = toErrorResponse(translateMongoError(new MongoWriteConcernError(wceReply(wtimeout) as never), 'events.insertOne'));
    expect(body).toMatchObject({ code: 'storage-write-unconfirmed', data: { status: 503 } });
    expect(headers).toEqual({ 'retry-after': '5' });
  });

  it('turns a bulk write whose write concern timed out into StorageWriteUnconfirmedError (built by the driver)', async () => {
    // The driver rethrows the batch's MongoWriteConcernError as a MongoBulkWriteError of its own,
    // with the write-concern error only in the BulkWriteResult.
    const error = await insertManyError([{ _id: 1 }, { _id: 2 }], () => {
      throw new MongoWriteConcernError(wceReply(wtimeout, { n: 2 }) as never);
    });
    expect(error).toBeInstanceOf(MongoBulkWriteError);
    expect((error as MongoBulkWriteError).writeConcernError).toBeUndefined();
    expect(translateMongoError(error, 'events.insertMany')).toBeInstanceOf(StorageWriteUnconfirmedError);
  });

  it('prefers a duplicate key over the write-concern error of the same reply: nothing was written', () => {
    const error = serverError({
      ok: 0,
      code: 11000,
      codeName: 'DuplicateKey',
      errmsg: 'E11000 duplicate key error collection: calendar.events index: events_slug_unique dup key: { slug: "a" }',
      writeConcernError: wtimeout,
    });
    expect(translateMongoError(error, 'events.findOneAndUpdate', indexes.events)).toMatchObject({ index: 'events_slug_unique' });
  });

  it('turns the driver-internal pool-cleared error (recognised by name) into StorageUnavailableError', () => {
    const poolCleared = Object.assign(new MongoNetworkError('pool cleared'), {});
    Object.defineProperty(poolCleared, 'name', { value: 'MongoPoolClearedError' });
    expect(translateMongoError(poolCleared, 'events.find')).toBeInstanceOf(StorageUnavailableError);
  });

  it('rethrows anything else as a plain Error that names the operation, not the server message', () => {
    const error = serverError({
      code: 2,
      codeName: 'BadValue',
      errmsg: 'unknown operator: $foo in { secret: "value" }',
    });
    const translated = translateMongoError(error, 'events.find');
    expect(translated).not.toBeInstanceOf(ApiError);
    expect(translated).not.toBeInstanceOf(DuplicateKeyError);
    expect(translated.message).toBe('MongoDB events.find failed (MongoServerError, code 2, BadValue)');
    expect(translated.cause).toBe(error);
  });

  it('wraps non-driver errors and passes our own through untouched', () => {
    const typeError = new TypeError('Cannot read properties of undefined');
    expect(translateMongoError(typeError, 'events.insertOne').message).toBe('MongoDB events.insertOne failed (TypeError)');
    const ours = new DuplicateKeyError('events_slug_unique');
    expect(translateMongoError(ours, 'events.insertOne')).toBe(ours);
    const unavailable = new StorageUnavailableError();
    expect(translateMongoError(unavailable, 'events.insertOne')).toBe(unavailable);
  });
});

describe('duplicateKeyIndexName', () => {
  // The server builds the message as `E11000 duplicate key error collection: <ns>[ index: <name>]
  // [ collation: <collation>] dup key: <key>[ found value: …]` (6.0, 7.0 and 8.0 alike).
  const collation =
    '{ locale: "en", caseLevel: false, caseFirst: "off", strength: 2, numericOrdering: false, alternate: "non-ignorable", maxVariable: "punct", normalization: false, backwards: false, version: "57.1" }';
  it.each([
    ['6.0 / 7.0 / 8.0', 'E11000 duplicate key error collection: calendar.events index: events_slug_unique dup key: { slug: "a" }', 'events_slug_unique'],
    [
      'a compound key',
      'E11000 duplicate key error collection: calendar.categories index: categories_parent_name_unique dup key: { parent: 0, nameKey: "music" }',
      'categories_parent_name_unique',
    ],
    [
      'an index with a collation (the key printed hex-encoded)',
      `E11000 duplicate key error collection: calendar.events index: events_slug_unique collation: ${collation} dup key: { slug: "0x2f2d2b" }`,
      'events_slug_unique',
    ],
    ['a found value after the key', 'E11000 duplicate key error collection: calendar.events index: _id_ dup key: { _id: 5 } found value: RecordId(5)', '_id_'],
    [
      'servers before 4.2 (no field names in the key)',
      'E11000 duplicate key error collection: calendar.events index: events_slug_unique dup key: { : "a" }',
      'events_slug_unique',
    ],
    ['2.x servers', 'E11000 duplicate key error index: calendar.events.$events_slug_unique  dup key: { : "a" }', 'events_slug_unique'],
    ['a 2.x mongos prefix', 'insertDocument :: caused by :: 11000 E11000 duplicate key error index: calendar.events.$_id_  dup key: { : 5 }', '_id_'],
    [
      'a namespace with dots and spaces',
      'E11000 duplicate key error collection: calendar_test.events archive.2024 v2 index: events_slug_unique dup key: { slug: "a" }',
      'events_slug_unique',
    ],
    [
      'a key value that reads like the message',
      'E11000 duplicate key error collection: calendar.events index: events_slug_unique dup key: { slug: "x dup key: y" }',
      'events_slug_unique',
    ],
  ])('reads the index name: %s', (_name, errmsg, expected) => {
    expect(duplicateKeyIndexName(serverError({ code: 11000, errmsg }), [...indexes.events, ...indexes.categories])).toBe(expected);
    // An undeclared name is read from the message alone.
    expect(duplicateKeyIndexName(serverError({ code: 11000, errmsg }))).toBe(expected);
  });

  it.each([
    ['spaces and dots', 'slug index v2.1'],
    ['the word dup', 'dup slug'],
    ['the words of the message', 'slug dup key: legacy'],
    ['a collation-like suffix', 'slug collation: { x }'],
  ])('names a declared index whose name holds %s', (_name, indexName) => {
    const declared: IndexDefinition[] = [{ name: indexName, key: { slug: 1 }, unique: true }, ...indexes.events];
    const plain = `E11000 duplicate key error collection: calendar.events index: ${indexName} dup key: { slug: "a" }`;
    expect(duplicateKeyIndexName(serverError({ code: 11000, errmsg: plain }), declared)).toBe(indexName);
    const withCollation = `E11000 duplicate key error collection: calendar.events index: ${indexName} collation: ${collation} dup key: { slug: "0x61" }`;
    expect(duplicateKeyIndexName(serverError({ code: 11000, errmsg: withCollation }), declared)).toBe(indexName);
    const legacy = `E11000 duplicate key error index: calendar.events.$${indexName}  dup key: { : "a" }`;
    expect(duplicateKeyIndexName(serverError({ code: 11000, errmsg: legacy }), declared)).toBe(indexName);
  });

  it('finds the index from keyPattern or keyValue when the message names none (a clustered collection’s key, a proxy)', () => {
    const noName = 'E11000 duplicate key error collection: calendar.categories dup key: { parent: 0, nameKey: "music" }';
    expect(duplicateKeyIndexName(serverError({ code: 11000, errmsg: noName, keyPattern: { parent: 1, nameKey: 1 } }), indexes.categories)).toBe(
      'categories_parent_name_unique',
    );
    expect(duplicateKeyIndexName(serverError({ code: 11000, errmsg: noName, keyValue: { parent: 0, nameKey: 'music' } }), indexes.categories)).toBe(
      'categories_parent_name_unique',
    );
    expect(duplicateKeyIndexName({ message: 'duplicate key', keyValue: { _id: 5 } }, indexes.categories)).toBe('_id_');
    expect(duplicateKeyIndexName({ message: 'duplicate key', errInfo: { keyPattern: { slug: 1 }, keyValue: { slug: 'a' } } }, indexes.events)).toBe(
      'events_slug_unique',
    );
    expect(duplicateKeyIndexName({ message: 'duplicate key', keyValue: { nowhere: 1 } }, indexes.events)).toBe('unknown');
  });

  it('names the index of a bulk write error, which carries the message only', async () => {
    const collationMessage = `E11000 duplicate key error collection: calendar.events index: events_slug_unique collation: ${collation} dup key: { slug: "0x61" }`;
    const error = await insertManyError([{ _id: 1 }, { _id: 2 }], {
      ok: 1,
      n: 1,
      writeErrors: [{ index: 1, code: 11000, errmsg: collationMessage, keyPattern: { slug: 1 }, keyValue: { slug: 'a' } }],
    });
    expect((error as MongoBulkWriteError).result.getWriteErrors()[0]?.err).not.toHaveProperty('keyPattern');
    expect(insertManyFailures(error, 2, indexes.events)?.map((f) => f.error.index)).toEqual(['events_slug_unique']);
  });
});

describe('insertManyFailures (errors built by the real driver)', () => {
  const docs = (count: number) => Array.from({ length: count }, (_, i) => ({ _id: i + 1, slug: `s${i}` }));
  const duplicate = (index: number, errmsg: string) => ({
    index,
    code: 11000,
    codeName: 'DuplicateKey',
    errmsg,
    keyPattern: { slug: 1 },
    keyValue: { slug: 'a' },
  });
  const slugClash = 'E11000 duplicate key error collection: calendar.events index: events_slug_unique dup key: { slug: "a" }';
  const idClash = 'E11000 duplicate key error collection: calendar.events index: _id_ dup key: { _id: 5 }';

  it('reports each duplicate key by position, naming its index', async () => {
    const error = await insertManyError(docs(5), { ok: 1, n: 3, writeErrors: [duplicate(1, slugClash), duplicate(4, idClash)] });
    const failures = insertManyFailures(error, 5, indexes.events);
    expect(failures?.map((f) => [f.index, f.error.index])).toEqual([
      [1, 'events_slug_unique'],
      [4, '_id_'],
    ]);
    expect(failures?.[0]?.error).toBeInstanceOf(DuplicateKeyError);
  });

  it('is null when any write failed for another reason', async () => {
    const error = await insertManyError(docs(3), {
      ok: 1,
      n: 1,
      writeErrors: [duplicate(0, slugClash), { index: 1, code: 121, codeName: 'DocumentValidationFailure', errmsg: 'Document failed validation' }],
    });
    expect(insertManyFailures(error, 3, indexes.events)).toBeNull();
    expect(insertManyFailures(serverError({ code: 11000, errmsg: slugClash }), 1)).toBeNull();
  });

  it('is null when the inserted and the failed documents do not add up to those sent', async () => {
    const error = await insertManyError(docs(3), { ok: 1, n: 1, writeErrors: [duplicate(1, slugClash)] });
    expect(insertManyFailures(error, 3, indexes.events)).toBeNull();
    expect(translateMongoError(error, 'events.insertMany', indexes.events)).not.toBeInstanceOf(DuplicateKeyError);
  });

  it.each([
    ['a network error', new MongoNetworkError('connection 3 to 127.0.0.1:27017 closed')],
    [
      'a server selection timeout',
      new MongoServerSelectionError('Server selection timed out after 5000 ms', { type: 'Unknown', servers: new Map(), error: null } as never),
    ],
    ['NotWritablePrimary', serverError({ ok: 0, code: 10107, codeName: 'NotWritablePrimary', errmsg: 'not primary' })],
    ['MaxTimeMSExpired', serverError({ ok: 0, code: 50, codeName: 'MaxTimeMSExpired', errmsg: 'operation exceeded time limit' })],
  ])('is null for a command that failed with %s (no write errors at all), which translates to StorageUnavailableError', async (_name, failure) => {
    const error = await insertManyError(docs(3), failure);
    expect(error).toBeInstanceOf(MongoBulkWriteError);
    expect((error as MongoBulkWriteError).writeErrors).toEqual([]);
    expect(insertManyFailures(error, 3, indexes.events)).toBeNull();
    const translated = translateMongoError(error, 'events.insertMany', indexes.events);
    expect(translated).toBeInstanceOf(StorageUnavailableError);
    expect(translated.cause).toBe(error);
  });

  it('is null for duplicates next to a write-concern error, which translates to StorageWriteUnconfirmedError', async () => {
    const error = await insertManyError(docs(3), () => {
      throw new MongoWriteConcernError({
        ok: 1,
        n: 2,
        writeErrors: [duplicate(1, slugClash)],
        writeConcernError: { code: 64, codeName: 'WriteConcernTimeout', errmsg: 'waiting for replication timed out', errInfo: { wtimeout: true } },
      });
    });
    // The duplicates are only in the result; the error's own writeErrors and writeConcernError are empty.
    const bulk = error as MongoBulkWriteError;
    expect([bulk.writeErrors, bulk.writeConcernError, bulk.result.getWriteErrors().length]).toEqual([[], undefined, 1]);
    expect(insertManyFailures(error, 3, indexes.events)).toBeNull();
    expect(translateMongoError(error, 'events.insertMany', indexes.events)).toBeInstanceOf(StorageWriteUnconfirmedError);
  });
});
