/**
 * Domain errors. Every layer throws these; the one error handler (src/plugins/error-handler.ts)
 * turns them into the reference's wire shape `{ code, message, data: { status, ... } }`.
 * Codes and messages follow The Events Calendar REST API v1 (reference §4.2) wherever it has one.
 */

export type ErrorData = Record<string, unknown>;

export class ApiError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly data: ErrorData;
  /** Extra response headers (e.g. Retry-After). */
  readonly headers: Record<string, string>;

  constructor(
    statusCode: number,
    code: string,
    message: string,
    data: ErrorData = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
    this.statusCode = statusCode;
    this.code = code;
    this.data = data;
    this.headers = headers;
  }
}

/** A refusal of the request itself (4xx): what a bulk write reports per record and goes on past. */
export function isClientError(error: unknown): error is ApiError {
  return error instanceof ApiError && error.statusCode < 500;
}

/** 400 `rest_invalid_param`: `params` maps each bad parameter to a message. */
export class InvalidParamsError extends ApiError {
  constructor(params: Record<string, string>, details: Record<string, unknown> = {}) {
    super(400, 'rest_invalid_param', `Invalid parameter(s): ${Object.keys(params).join(', ')}`, {
      params,
      // The reference serialises an empty PHP array as `[]`.
      details: Object.keys(details).length > 0 ? details : [],
    });
  }
}

export function invalidParam(name: string, message = 'Invalid parameter.'): InvalidParamsError {
  return new InvalidParamsError({ [name]: message });
}

/** 400 `rest_missing_callback_param`: required parameters absent. */
export class MissingParamsError extends ApiError {
  constructor(names: string[]) {
    super(400, 'rest_missing_callback_param', `Missing parameter(s): ${names.join(', ')}`, {
      params: names,
    });
  }
}

export type ResourceKind = 'event' | 'venue' | 'organizer' | 'category' | 'tag';

const kindLabel: Record<ResourceKind, string> = {
  event: 'Event',
  venue: 'Venue',
  organizer: 'Organizer',
  category: 'Category',
  tag: 'Tag',
};

/** 404 `rest-<kind>-not-found` (design §5.2: a missing resource is a 404 for every type). */
export class NotFoundError extends ApiError {
  constructor(kind: ResourceKind, key: number | string, by: 'id' | 'slug' = 'id') {
    const what = by === 'id' ? `ID ${key}` : `slug "${String(key)}"`;
    super(404, `rest-${kind}-not-found`, `${kindLabel[kind]} with ${what} does not exist.`);
  }
}

/** 401 for anonymous callers, 403 for authenticated callers lacking the role. */
export class ForbiddenError extends ApiError {
  constructor(authenticated: boolean) {
    super(authenticated ? 403 : 401, 'rest_forbidden', 'Sorry, you are not allowed to do that.');
  }
}

/** 403 with a resource-specific code, e.g. `event-not-accessible`. */
export class AccessDeniedError extends ApiError {
  constructor(code: string, message: string) {
    super(403, code, message);
  }
}

/** 410: deleting something already in the trash. */
export class GoneError extends ApiError {
  constructor(kind: 'event' | 'venue' | 'organizer') {
    super(410, `${kind}-is-in-trash`, `The ${kind} is already trashed`);
  }
}

/** 409: a write collides with a unique key (e.g. an explicit slug another record owns). */
export class ConflictError extends ApiError {
  constructor(code: string, message: string, data: ErrorData = {}) {
    super(409, code, message, data);
  }
}

/** 503: storage cannot be reached; the caller may retry. */
export class StorageUnavailableError extends ApiError {
  constructor(message = 'The storage is unavailable, please retry later.') {
    super(503, 'storage-unavailable', message, {}, { 'retry-after': '5' });
  }
}

/**
 * 503: the storage applied a write but could not confirm it with the requested durability (a
 * write-concern error or timeout), so the write may or may not survive. Not a StorageUnavailableError:
 * the caller must not assume nothing happened, and a retry is only safe when it can be recognised as
 * the same request (the Idempotency-Key header).
 */
export class StorageWriteUnconfirmedError extends ApiError {
  constructor(
    message = 'The write may have been applied but the storage could not confirm it; retrying with the same Idempotency-Key header is safe.',
  ) {
    super(503, 'storage-write-unconfirmed', message, {}, { 'retry-after': '5' });
  }
}

/**
 * 422 `rest_idempotency_key_mismatch`: an Idempotency-Key already used for another request
 * (method, path or body) of the same caller within its 24 hours. A new request needs a new key.
 */
export class IdempotencyKeyMismatchError extends ApiError {
  constructor() {
    super(
      422,
      'rest_idempotency_key_mismatch',
      'This Idempotency-Key was already used for a different request (method, path or body) within the last 24 hours; send a new key for a new request.',
    );
  }
}

/** 409 `rest_idempotency_in_progress`: a request with this Idempotency-Key is still running; Retry-After says when it may be sent again. */
export class IdempotencyInProgressError extends ApiError {
  constructor(retryAfterSeconds: number) {
    super(409, 'rest_idempotency_in_progress', 'A request with this Idempotency-Key is still being processed; retry after the time given in Retry-After.', {}, {
      'retry-after': String(Math.max(1, retryAfterSeconds)),
    });
  }
}

/**
 * Thrown by a storage engine for a query it does not execute the way MongoDB would.
 * It is a programming error (the compiler emitted something unsupported), hence a 500.
 */
export class UnsupportedQueryError extends ApiError {
  constructor(message: string) {
    super(500, 'unsupported-query', message);
  }
}

/** Storage-level unique-key violation, translated by services into a user-facing error. */
export class DuplicateKeyError extends Error {
  readonly index: string;
  constructor(index: string, message = `Duplicate key for index ${index}`) {
    super(message);
    this.name = 'DuplicateKeyError';
    this.index = index;
  }
}

/**
 * A storage engine could not return a result in one answer (MongoDB: a `distinct` past its 16 MB
 * reply). Services turn it into a refusal naming the parameter that asked for it.
 */
export class ResultTooLargeError extends Error {
  constructor(message = 'The result is too large to return in one answer') {
    super(message);
    this.name = 'ResultTooLargeError';
  }
}
