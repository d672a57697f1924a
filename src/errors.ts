/**
 * Domain errors. Every layer throws these; the one error handler (src/plugins/error-handler.ts)
 * turns them into the reference's wire shape `{ code, message, data: { status, ... } }`.
 * Codes and messages follow The Events Calendar REST API v1 wherever it has one.
 *
 * An error carries the catalogue key of its message and the values of its placeholders, never a
 * finished text: the error handler formats the message in the language of the request's root
 * (src/i18n/*.json, `errorMessage.<code>[.<variant>]`). `message` is the English text, for logs and
 * for callers outside HTTP (the seed command). `code` and `data` do not depend on the language.
 */
import { type Language, type MessageKey, type MessageValues, formatMessage } from './i18n/index.js';

/**
 * Every code an error response can carry. A code outside this list does not type-check, and the
 * i18n test demands a message for each of them in every language.
 */
export const ERROR_CODES = [
  // Requests refused before or by validation (src/plugins/validation.ts, src/plugins/error-handler.ts).
  'rest_invalid_param',
  'rest_missing_callback_param',
  'rest_invalid_json',
  'rest_invalid_request',
  'rest_bad_request',
  'rest_request_too_large',
  'rest_unsupported_media_type',
  'rest_no_route',
  'rest_invalid_namespace',
  // Refused on the raw socket, before any request exists (no root: always English).
  'rest_request_timeout',
  'rest_uri_too_long',
  'rest_headers_too_large',
  // Authentication and limits.
  'rest_forbidden',
  'rest_too_many_requests',
  'server-overloaded',
  // Resources.
  'rest-event-not-found',
  'rest-venue-not-found',
  'rest-organizer-not-found',
  'rest-category-not-found',
  'rest-tag-not-found',
  'rest-series-not-found',
  'event-archive-page-not-found',
  'venue-archive-page-not-found',
  'organizer-archive-page-not-found',
  'event-no-longer-available',
  'event-not-accessible',
  'event-password-protected',
  'venue-not-accessible',
  'organizer-not-accessible',
  'event-is-in-trash',
  'venue-is-in-trash',
  'organizer-is-in-trash',
  'rest_slug_conflict',
  'duplicate_term_slug',
  'term_exists',
  'rest_taxonomy_not_hierarchical',
  'rest_conflict',
  'rest_idempotency_key_mismatch',
  'rest_idempotency_in_progress',
  'rest_precondition_failed',
  'rest_sync_expired',
  // Failures of the service.
  'storage-unavailable',
  'storage-write-unconfirmed',
  'unsupported-query',
  'rest_internal_error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The message keys of errors: `errorMessage.<code>` or `errorMessage.<code>.<variant>`. */
export type ErrorMessageKey = Extract<MessageKey, `errorMessage.${string}`>;

/** A message: its key alone, or its key and the values of its placeholders. */
export type ErrorMessage = ErrorMessageKey | { readonly key: ErrorMessageKey; readonly values: MessageValues };

export type ErrorData = Record<string, unknown>;

export class ApiError extends Error {
  readonly statusCode: number;
  readonly code: ErrorCode;
  readonly data: ErrorData;
  /** Extra response headers (e.g. Retry-After). */
  readonly headers: Record<string, string>;
  readonly messageKey: ErrorMessageKey;
  readonly messageValues: MessageValues;

  constructor(statusCode: number, code: ErrorCode, message: ErrorMessage, data: ErrorData = {}, headers: Record<string, string> = {}) {
    const { key, values } = typeof message === 'string' ? { key: message, values: {} } : message;
    super(formatMessage('en', key, values));
    this.name = new.target.name;
    this.statusCode = statusCode;
    this.code = code;
    this.data = data;
    this.headers = headers;
    this.messageKey = key;
    this.messageValues = values;
  }

  /** The message in a language (`message` is the English one). */
  messageIn(language: Language): string {
    return language === 'en' ? this.message : formatMessage(language, this.messageKey, this.messageValues);
  }
}

/** A refusal of the request itself (4xx): what a bulk write reports per record and goes on past. */
export function isClientError(error: unknown): error is ApiError {
  return error instanceof ApiError && error.statusCode < 500;
}

/** 400 `rest_invalid_param`: `params` maps each bad parameter to a message. */
export class InvalidParamsError extends ApiError {
  constructor(params: Record<string, string>, details: Record<string, unknown> = {}) {
    // The parameter names are listed in the message in every language; their texts in `params` are English.
    super(
      400,
      'rest_invalid_param',
      { key: 'errorMessage.rest_invalid_param', values: { params: Object.keys(params).join(', ') } },
      {
        params,
        // The reference serialises an empty PHP array as `[]`.
        details: Object.keys(details).length > 0 ? details : [],
      },
    );
  }
}

export function invalidParam(name: string, message = 'Invalid parameter.'): InvalidParamsError {
  return new InvalidParamsError({ [name]: message });
}

/** 400 `rest_missing_callback_param`: required parameters absent. */
export class MissingParamsError extends ApiError {
  constructor(names: string[]) {
    super(
      400,
      'rest_missing_callback_param',
      { key: 'errorMessage.rest_missing_callback_param', values: { params: names.join(', ') } },
      {
        params: names,
      },
    );
  }
}

export type ResourceKind = 'event' | 'venue' | 'organizer' | 'category' | 'tag' | 'series';

/** 404 `rest-<kind>-not-found` (a missing resource is a 404 for every type). */
export class NotFoundError extends ApiError {
  constructor(kind: ResourceKind, key: number | string, by: 'id' | 'slug' = 'id') {
    super(
      404,
      `rest-${kind}-not-found`,
      by === 'id'
        ? { key: `errorMessage.rest-${kind}-not-found`, values: { id: String(key) } }
        : { key: `errorMessage.rest-${kind}-not-found.slug`, values: { slug: String(key) } },
    );
  }
}

/** 401 for anonymous callers, 403 for authenticated callers lacking the role. */
export class ForbiddenError extends ApiError {
  constructor(authenticated: boolean) {
    super(authenticated ? 403 : 401, 'rest_forbidden', 'errorMessage.rest_forbidden');
  }
}

/** 403 with a resource-specific code, e.g. `event-not-accessible`. */
export class AccessDeniedError extends ApiError {
  constructor(code: ErrorCode, message: ErrorMessage) {
    super(403, code, message);
  }
}

/** 410: deleting something already in the trash. */
export class GoneError extends ApiError {
  constructor(kind: 'event' | 'venue' | 'organizer') {
    super(410, `${kind}-is-in-trash`, `errorMessage.${kind}-is-in-trash`);
  }
}

/**
 * 410 `rest_sync_expired`: an incremental sync asked for the deletions since an instant older than
 * TOMBSTONE_DAYS, so some of them may be forgotten; the client must load everything again.
 */
export class SyncExpiredError extends ApiError {
  constructor(days: number) {
    super(410, 'rest_sync_expired', { key: 'errorMessage.rest_sync_expired', values: { days } }, { days });
  }
}

/** 409: a write collides with a unique key (e.g. an explicit slug another record owns). */
export class ConflictError extends ApiError {
  constructor(code: ErrorCode, message: ErrorMessage, data: ErrorData = {}) {
    super(409, code, message, data);
  }
}

/** 503: storage cannot be reached; the caller may retry. */
export class StorageUnavailableError extends ApiError {
  constructor(message: ErrorMessage = 'errorMessage.storage-unavailable') {
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
  constructor() {
    super(503, 'storage-write-unconfirmed', 'errorMessage.storage-write-unconfirmed', {}, { 'retry-after': '5' });
  }
}

/**
 * 422 `rest_idempotency_key_mismatch`: an Idempotency-Key already used for another request
 * (method, path or body) of the same caller within its 24 hours. A new request needs a new key.
 */
export class IdempotencyKeyMismatchError extends ApiError {
  constructor() {
    super(422, 'rest_idempotency_key_mismatch', 'errorMessage.rest_idempotency_key_mismatch');
  }
}

/** 409 `rest_idempotency_in_progress`: a request with this Idempotency-Key is still running; Retry-After says when it may be sent again. */
export class IdempotencyInProgressError extends ApiError {
  constructor(retryAfterSeconds: number) {
    super(
      409,
      'rest_idempotency_in_progress',
      'errorMessage.rest_idempotency_in_progress',
      {},
      {
        'retry-after': String(Math.max(1, retryAfterSeconds)),
      },
    );
  }
}

/**
 * Thrown by a storage engine for a query it does not execute the way MongoDB would.
 * It is a programming error (the compiler emitted something unsupported), hence a 500. The detail
 * names operators and fields for the developer: it stays English in every language.
 */
export class UnsupportedQueryError extends ApiError {
  constructor(detail: string) {
    super(500, 'unsupported-query', { key: 'errorMessage.unsupported-query', values: { detail } });
  }
}

/** 404 `rest_no_route`: no route matches the method and path. */
export class NoRouteError extends ApiError {
  constructor() {
    super(404, 'rest_no_route', 'errorMessage.rest_no_route');
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
