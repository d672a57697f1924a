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
import { ApiError, DuplicateKeyError, StorageUnavailableError, StorageWriteUnconfirmedError } from '../../errors.js';
import { type IndexDefinition, type InsertManyFailure } from '../port.js';

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

/**
 * The server names the violated index in its message (`… index: events_slug_unique dup key: …`);
 * `keyPattern` (4.4+) is the fallback when a proxy or an old server words it differently.
 */
export function duplicateKeyIndexName(error: MongoError, indexes: readonly IndexDefinition[] = []): string {
  const fromMessage = /\bindex: (.+?) dup key/.exec(error.message)?.[1];
  if (fromMessage) return fromMessage;
  const keyPattern: unknown = (error as { keyPattern?: unknown }).keyPattern;
  if (keyPattern !== null && typeof keyPattern === 'object') {
    const pattern = keyPattern as Record<string, unknown>;
    if (sameKey(pattern, { _id: 1 })) return '_id_';
    const declared = indexes.find((index) => sameKey(index.key, pattern));
    if (declared) return declared.name;
    return Object.entries(pattern)
      .map(([field, direction]) => `${field}_${String(direction)}`)
      .join('_');
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
export function translateMongoError(
  error: unknown,
  operation: string,
  indexes: readonly IndexDefinition[] = [],
): Error {
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
export async function guarded<R>(
  operation: string,
  run: () => Promise<R>,
  indexes: readonly IndexDefinition[] = [],
): Promise<R> {
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
export function insertManyFailures(
  error: unknown,
  documents: number,
  indexes: readonly IndexDefinition[] = [],
): InsertManyFailure[] | null {
  if (!(error instanceof MongoBulkWriteError) || writeConcernFailed(error)) return null;
  const writeErrors: WriteError[] = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
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
    const described = Object.assign(new MongoError(writeError.errmsg ?? ''), { keyPattern: (writeError.err as { keyPattern?: unknown } | undefined)?.keyPattern });
    const duplicate = new DuplicateKeyError(duplicateKeyIndexName(described, indexes));
    duplicate.cause = error;
    failures.push({ index: position, error: duplicate });
  }
  return failures;
}
