/**
 * Driver errors are translated here, at the storage boundary: nothing above
 * src/storage/mongodb sees a MongoError. Duplicate keys become DuplicateKeyError (services turn
 * them into 409s), a write-concern failure StorageWriteUnconfirmedError (503: the write was applied
 * on the primary but not confirmed), anything that means "the database cannot answer right now"
 * StorageUnavailableError (503, retry), and everything else a plain Error whose message names
 * the operation and error class only, so no document values or server internals reach a response.
 * The original error stays available as `cause` for the logs.
 */
import {
  MongoBulkWriteError,
  MongoClientClosedError,
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
  type WriteError,
} from 'mongodb';
import { ApiError, DuplicateKeyError, ResultTooLargeError, StorageUnavailableError, StorageWriteUnconfirmedError } from '../../errors.js';
import { type IndexDefinition, type InsertManyFailure } from '../port.js';

/** `distinct` whose values do not fit in one 16 MB reply ("distinct too big, 16mb cap"). */
const DISTINCT_TOO_BIG = 17217;

/** 11000 DuplicateKey; 11001 and 12582 are its legacy forms (old servers, mongos). */
const DUPLICATE_KEY_CODES = new Set([11000, 11001, 12582]);

/**
 * Server codes meaning the node cannot serve the operation now: not primary / stepping down /
 * shutting down (the driver's SDAM lists), host or network failures, server-side time limits
 * (our maxTimeMS), unsatisfiable read preference, and failed authentication (a misconfigured or
 * rotated credential: from the caller's side the storage is unavailable). WriteConcernTimeout (64)
 * is not one of them: it comes after the write was applied (see writeConcernFailed).
 */
const UNAVAILABLE_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  18, // AuthenticationFailed
  50, // MaxTimeMSExpired
  89, // NetworkTimeout
  91, // ShutdownInProgress
  133, // FailedToSatisfyReadPreference
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10058, // LegacyNotPrimary
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** Labels the driver or server attaches to transient failures. */
const UNAVAILABLE_LABELS = ['RetryableWriteError', 'ResetPool', 'SystemOverloadedError', 'RetryableError'];

/** Driver-internal classes (not exported) recognised by name: pool cleared/closed, checkout timeout. */
const UNAVAILABLE_NAMES = new Set([
  'MongoPoolClearedError',
  'PoolClearedOnNetworkError',
  'MongoPoolClosedError',
  'MongoWaitQueueTimeoutError',
  'MongoStalePrimaryError',
]);

function isUnavailable(error: MongoError): boolean {
  if (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoOperationTimeoutError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoClientClosedError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoServerClosedError
  ) {
    return true;
  }
  if (UNAVAILABLE_NAMES.has(error.name)) return true;
  if (typeof error.code === 'number' && UNAVAILABLE_CODES.has(error.code)) return true;
  return UNAVAILABLE_LABELS.some((label) => error.hasErrorLabel(label));
}

/** WriteConcernTimeout (WriteConcernFailed before 8.1): waiting for a write's concern timed out. */
const WRITE_CONCERN_TIMEOUT = 64;

/**
 * Whether `error` reports a write-concern failure. The server only waits for a write concern after
 * applying the write on the primary, so such an error means "applied, not confirmed". The driver
 * reports it as a MongoWriteConcernError, as a `writeConcernError` field of a server error, with
 * code 64 or `errInfo.wtimeout`, or, for a bulk write, only inside the BulkWriteResult it carries
 * (its own `writeConcernError` is never set).
 */
function writeConcernFailed(error: MongoError): boolean {
  if (error instanceof MongoWriteConcernError) return true;
  const fields = error as { writeConcernError?: unknown; errInfo?: unknown };
  if (fields.writeConcernError !== undefined && fields.writeConcernError !== null) return true;
  if (error.code === WRITE_CONCERN_TIMEOUT) return true;
  const errInfo = fields.errInfo;
  if (errInfo !== null && typeof errInfo === 'object' && (errInfo as { wtimeout?: unknown }).wtimeout === true) return true;
  if (error instanceof MongoBulkWriteError) {
    const result = (error as { result?: { getWriteConcernError?: unknown } }).result;
    if (typeof result?.getWriteConcernError === 'function') {
      return (result.getWriteConcernError as () => unknown).call(result) !== undefined;
    }
  }
  return false;
}

/**
 * The error a MongoBulkWriteError wraps when the command itself failed. The driver builds it as
 * `new MongoBulkWriteError(cause, result)`: the cause's message, labels and own fields (a server
 * error's `code`) are copied onto it, and a cause that is not a server error (network, server
 * selection, timeouts) stays reachable only as `errorResponse`. `cause` is read too, in case a later
 * driver sets it.
 */
function bulkCause(error: MongoBulkWriteError): MongoError | undefined {
  const { errorResponse, cause } = error as { errorResponse?: unknown; cause?: unknown };
  if (errorResponse instanceof MongoError) return errorResponse;
  if (cause instanceof MongoError) return cause;
  return undefined;
}

function sameKey(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k] === b[k]);
}

function sameFields(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
}

function objectOrUndefined(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** What a duplicate-key report carries: a server error, or one write error of a bulk write. */
export interface DuplicateKeyReport {
  message: string;
  keyPattern?: unknown;
  keyValue?: unknown;
  errInfo?: unknown;
}

/**
 * The name in a current message: `E11000 duplicate key error collection: <db>.<collection>
 * index: <name>[ collation: <collation document>] dup key: <key>[ found value: …]` (the index part
 * is left out for a clustered collection's key; servers before 4.2 print the key without field
 * names, `{ : "a" }`). The collation document is flat, so it holds no nested braces.
 */
const CURRENT_WORDING = /duplicate key error collection: .*? index: (.+?)(?: collation: \{[^{}]*\})? dup key: /s;

/** Old servers (the 2.x series): `E11000 duplicate key error index: <db>.<collection>.$<name>  dup key: { : "a" }`. */
const LEGACY_WORDING = /duplicate key error index: [^$]*\.\$(.+?)\s+dup key: /s;

/** Whether `message` names the index `name` in either wording, delimited on both sides. */
function messageNames(message: string, name: string): boolean {
  if (message.includes(` index: ${name} dup key: `) || message.includes(` index: ${name} collation: {`)) return true;
  if (!message.includes('duplicate key error index: ')) return false;
  const at = message.indexOf(`.$${name}`);
  return at >= 0 && /^\s+dup key: /.test(message.slice(at + name.length + 2));
}

/**
 * The index a duplicate key violated. A bulk write's write errors carry the server's message only
 * (the driver keeps no `keyPattern`), so the message is read first. Collection and index names may
 * hold spaces, dots or the words of the message itself, so a declared index (or `_id_`) named in
 * the message, delimited as above, is preferred to what the patterns capture. Without a name in
 * the message, the index is found from the violated key: `keyPattern`, or the field names of
 * `keyValue` (the server builds it from the index's fields, in order), of the error or its `errInfo`.
 */
export function duplicateKeyIndexName(error: MongoError | DuplicateKeyReport, indexes: readonly IndexDefinition[] = []): string {
  const message = error.message;
  const declared = ['_id_', ...indexes.map((index) => index.name)].filter((name) => messageNames(message, name)).sort((a, b) => b.length - a.length)[0];
  if (declared !== undefined) return declared;
  const fromMessage = CURRENT_WORDING.exec(message)?.[1] ?? LEGACY_WORDING.exec(message)?.[1];
  if (fromMessage) return fromMessage;
  const fields = error as { keyPattern?: unknown; keyValue?: unknown; errInfo?: unknown };
  const errInfo = objectOrUndefined(fields.errInfo);
  const keyPattern = objectOrUndefined(fields.keyPattern) ?? objectOrUndefined(errInfo?.keyPattern);
  if (keyPattern !== undefined) {
    if (sameKey(keyPattern, { _id: 1 })) return '_id_';
    const byPattern = indexes.find((index) => sameKey(index.key, keyPattern));
    if (byPattern) return byPattern.name;
    return Object.entries(keyPattern)
      .map(([field, direction]) => `${field}_${String(direction)}`)
      .join('_');
  }
  const keyValue = objectOrUndefined(fields.keyValue) ?? objectOrUndefined(errInfo?.keyValue);
  if (keyValue !== undefined) {
    if (sameFields(keyValue, { _id: 1 })) return '_id_';
    const byFields = indexes.find((index) => index.unique === true && sameFields(index.key, keyValue));
    if (byFields) return byFields.name;
  }
  return 'unknown';
}

function describe(error: unknown): string {
  if (error instanceof MongoError) {
    const codeName = (error as { codeName?: unknown }).codeName;
    const parts = [error.name];
    if (error.code !== undefined) parts.push(`code ${String(error.code)}`);
    if (typeof codeName === 'string') parts.push(codeName);
    return parts.join(', ');
  }
  return error instanceof Error ? error.name : typeof error;
}

/**
 * The error to throw in place of `error`, raised by `operation` (e.g. `events.insertOne`).
 * `indexes` are the collection's declared indexes, used to name a duplicate key's index.
 */
export function translateMongoError(error: unknown, operation: string, indexes: readonly IndexDefinition[] = []): Error {
  // Already ours (e.g. thrown by a nested call): never wrap twice.
  if (error instanceof ApiError || error instanceof DuplicateKeyError) return error;
  if (error instanceof MongoError) {
    // A duplicate key as the command's own outcome means nothing was written, even when the reply
    // also carries a write-concern error (the server waits for the concern on failures too). A bulk
    // write's code is only its first write error's: insertManyFailures reads its duplicates.
    if (!(error instanceof MongoBulkWriteError) && typeof error.code === 'number' && DUPLICATE_KEY_CODES.has(error.code)) {
      const index = duplicateKeyIndexName(error, indexes);
      const duplicate = new DuplicateKeyError(index);
      duplicate.cause = error;
      return duplicate;
    }
    if (error.code === DISTINCT_TOO_BIG) {
      const tooLarge = new ResultTooLargeError();
      tooLarge.cause = error;
      return tooLarge;
    }
    const wrapped = error instanceof MongoBulkWriteError ? bulkCause(error) : undefined;
    if (writeConcernFailed(error) || (wrapped !== undefined && writeConcernFailed(wrapped))) {
      const unconfirmed = new StorageWriteUnconfirmedError();
      unconfirmed.cause = error;
      return unconfirmed;
    }
    if (isUnavailable(error) || (wrapped !== undefined && isUnavailable(wrapped))) {
      const unavailable = new StorageUnavailableError();
      unavailable.cause = error;
      return unavailable;
    }
  }
  return new Error(`MongoDB ${operation} failed (${describe(error)})`, { cause: error });
}

/** Runs a driver call and translates whatever it throws. */
export async function guarded<R>(operation: string, run: () => Promise<R>, indexes: readonly IndexDefinition[] = []): Promise<R> {
  try {
    return await run();
  } catch (error) {
    throw translateMongoError(error, operation, indexes);
  }
}

/**
 * The documents an unordered insertMany did not store because of a duplicate key, by position;
 * null when anything else went wrong or the outcome is not fully accounted for (the caller then
 * throws the translated error). The driver reports a failed command (network error, server
 * selection, NotWritablePrimary, maxTimeMS…) as a MongoBulkWriteError too, with no write errors at
 * all, and stops at the first batch whose write concern fails; so per-record duplicates are read
 * only when every write error is a duplicate key, no write concern failed, and the inserted
 * documents plus the failed ones are exactly the `documents` sent.
 */
export function insertManyFailures(error: unknown, documents: number, indexes: readonly IndexDefinition[] = []): InsertManyFailure[] | null {
  if (!(error instanceof MongoBulkWriteError) || writeConcernFailed(error)) return null;
  const writeErrors: readonly WriteError[] = Array.isArray(error.writeErrors)
    ? (error.writeErrors as readonly WriteError[])
    : [error.writeErrors as WriteError];
  if (writeErrors.length === 0) return null;
  const inserted = (error as { result?: { insertedCount?: unknown } }).result?.insertedCount;
  if (typeof inserted !== 'number' || inserted + writeErrors.length !== documents) return null;
  const positions = new Set<number>();
  const failures: InsertManyFailure[] = [];
  for (const writeError of writeErrors) {
    if (!DUPLICATE_KEY_CODES.has(writeError.code)) return null;
    const position = writeError.index;
    if (!Number.isInteger(position) || position < 0 || position >= documents || positions.has(position)) return null;
    positions.add(position);
    const raw = writeError.err as { keyPattern?: unknown; keyValue?: unknown } | undefined;
    const report = { message: writeError.errmsg ?? '', keyPattern: raw?.keyPattern, keyValue: raw?.keyValue, errInfo: writeError.errInfo };
    const duplicate = new DuplicateKeyError(duplicateKeyIndexName(report, indexes));
    duplicate.cause = error;
    failures.push({ index: position, error: duplicate });
  }
  return failures;
}
