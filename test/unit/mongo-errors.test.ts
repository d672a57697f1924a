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
import { ApiError, DuplicateKeyError, StorageUnavailableError, StorageWriteUnconfirmedError } from '../../src/errors.js';
import { toErrorResponse } from '../../src/plugins/error-handler.js';
import { insertManyFailures, translateMongoError } from '../../src/storage/mongodb/errors.js';
import { insertManyError } from '../helpers/driver-wire.js';

const serverError = (fields: Record<string, unknown>) => new MongoServerError(fields as never);

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
      errmsg:
        'E11000 duplicate key error collection: calendar.categories index: categories_parent_name_unique dup key: { parent: 0, nameKey: "music" }',
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
    ['a server selection timeout', new MongoServerSelectionError('Server selection timed out after 5000 ms', { type: 'Unknown', servers: new Map(), error: null } as never)],
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
    ['a write concern timeout named only by errInfo.wtimeout', new MongoWriteConcernError(wceReply({ errmsg: 'timed out', errInfo: { wtimeout: true } }) as never)],
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

describe('insertManyFailures (errors built by the real driver)', () => {
  const docs = (count: number) => Array.from({ length: count }, (_, i) => ({ _id: i + 1, slug: `s${i}` }));
  const duplicate = (index: number, errmsg: string) => ({ index, code: 11000, codeName: 'DuplicateKey', errmsg, keyPattern: { slug: 1 }, keyValue: { slug: 'a' } });
  const slugClash = 'E11000 duplicate key error collection: calendar.events index: events_slug_unique dup key: { slug: "a" }';
  const idClash = 'E11000 duplicate key error collection: calendar.events index: _id_ dup key: { _id: 5 }';

  it('reports each duplicate key by position, naming its index', async () => {
    const error = await insertManyError(docs(5), { ok: 1, n: 3, writeErrors: [duplicate(1, slugClash), duplicate(4, idClash)] });
    const failures = insertManyFailures(error, 5, indexes.events);
    expect(failures?.map((f) => [f.index, f.error.index])).toEqual([[1, 'events_slug_unique'], [4, '_id_']]);
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
    ['a server selection timeout', new MongoServerSelectionError('Server selection timed out after 5000 ms', { type: 'Unknown', servers: new Map(), error: null } as never)],
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
      } as never);
    });
    // The duplicates are only in the result; the error's own writeErrors and writeConcernError are empty.
    const bulk = error as MongoBulkWriteError;
    expect([bulk.writeErrors, bulk.writeConcernError, bulk.result.getWriteErrors().length]).toEqual([[], undefined, 1]);
    expect(insertManyFailures(error, 3, indexes.events)).toBeNull();
    expect(translateMongoError(error, 'events.insertMany', indexes.events)).toBeInstanceOf(StorageWriteUnconfirmedError);
  });
});
