/**
 * Error messages: every error carries its message's key and values, its English
 * `message` is the reference's wording, and the error handler renders the message in the language
 * asked for, leaving `code` and `data` as they are.
 */
import { describe, expect, it } from 'vitest';
import {
  AccessDeniedError,
  ApiError,
  ConflictError,
  ERROR_CODES,
  ForbiddenError,
  GoneError,
  IdempotencyInProgressError,
  IdempotencyKeyMismatchError,
  InvalidParamsError,
  MissingParamsError,
  NoRouteError,
  NotFoundError,
  StorageUnavailableError,
  StorageWriteUnconfirmedError,
  UnsupportedQueryError,
  invalidParam,
} from '../../src/errors.js';
import { LANGUAGES } from '../../src/i18n/index.js';
import { toErrorResponse } from '../../src/plugins/error-handler.js';

/** A Fastify error as its content-type parser raises it. */
const fastifyError = (code: string, statusCode: number) => Object.assign(new Error(code), { code, statusCode });

describe('English messages', () => {
  it.each([
    [new InvalidParamsError({ per_page: 'x', status: 'y' }), 'Invalid parameter(s): per_page, status'],
    [invalidParam('$where', '$where is not a valid parameter name.'), 'Invalid parameter(s): $where'],
    [new MissingParamsError(['geoloc_lat']), 'Missing parameter(s): geoloc_lat'],
    [new NotFoundError('event', 5), 'Event with ID 5 does not exist.'],
    [new NotFoundError('venue', 'main-hall', 'slug'), 'Venue with slug "main-hall" does not exist.'],
    [new NotFoundError('organizer', 7), 'Organizer with ID 7 does not exist.'],
    [new NotFoundError('category', 8), 'Category with ID 8 does not exist.'],
    [new NotFoundError('tag', 9), 'Tag with ID 9 does not exist.'],
    [new ForbiddenError(false), 'Sorry, you are not allowed to do that.'],
    [new AccessDeniedError('event-password-protected', 'errorMessage.event-password-protected'), 'The requested event is not accessible without a password'],
    [new GoneError('organizer'), 'The organizer is already trashed'],
    [
      new ConflictError('rest_slug_conflict', { key: 'errorMessage.rest_slug_conflict.eventId', values: { slug: 'party', id: 12 } }),
      'The slug "party" is already used by event 12.',
    ],
    [
      new ConflictError('duplicate_term_slug', { key: 'errorMessage.duplicate_term_slug', values: { slug: 'jazz' } }),
      'The slug “jazz” is already in use by another term.',
    ],
    [new StorageUnavailableError(), 'The storage is unavailable, please retry later.'],
    [
      new StorageUnavailableError({ key: 'errorMessage.storage-unavailable.notWritable', values: { detail: 'ENOSPC: no space left on device' } }),
      'The data directory cannot be written (ENOSPC: no space left on device); restart the service to recover.',
    ],
    [
      new StorageWriteUnconfirmedError(),
      'The write may have been applied but the storage could not confirm it; retrying with the same Idempotency-Key header is safe.',
    ],
    [
      new IdempotencyKeyMismatchError(),
      'This Idempotency-Key was already used for a different request (method, path or body) within the last 24 hours; send a new key for a new request.',
    ],
    [new IdempotencyInProgressError(3), 'A request with this Idempotency-Key is still being processed; retry after the time given in Retry-After.'],
    [new UnsupportedQueryError('$set: _id is immutable (document 1).'), '$set: _id is immutable (document 1).'],
    [new NoRouteError(), 'No route was found matching the URL and request method.'],
  ] as const)('%s', (error, message) => {
    expect(error.message).toBe(message);
    expect(error.messageIn('en')).toBe(message);
    expect(ERROR_CODES).toContain(error.code);
  });

  it.each([
    ['FST_ERR_CTP_INVALID_JSON_BODY', 400, 'rest_invalid_json', 'Invalid JSON body passed.'],
    ['FST_ERR_CTP_EMPTY_JSON_BODY', 400, 'rest_invalid_json', 'Invalid JSON body passed: the body is empty.'],
    ['FST_ERR_CTP_BODY_TOO_LARGE', 413, 'rest_request_too_large', 'The request body is too large.'],
    [
      'FST_ERR_CTP_INVALID_MEDIA_TYPE',
      415,
      'rest_unsupported_media_type',
      'Unsupported content type: send application/json or application/x-www-form-urlencoded.',
    ],
    ['FST_ERR_CTP_INVALID_CONTENT_LENGTH', 400, 'rest_invalid_request', 'The Content-Length header does not match the body.'],
    ['FST_ERR_CTP_INVALID_TYPE', 400, 'rest_invalid_request', 'The Content-Type header is invalid.'],
  ])("Fastify's %s", (fastifyCode, status, code, message) => {
    expect(toErrorResponse(fastifyError(fastifyCode, status)).body).toEqual({ code, message, data: { status } });
  });

  it("quotes Fastify's own text for other refusals, and says nothing of internal errors", () => {
    const badUrl = Object.assign(new Error("'/%E0%A4%A' is not a valid url component"), { code: 'FST_ERR_BAD_URL', statusCode: 400 });
    expect(toErrorResponse(badUrl).body).toEqual({ code: 'rest_bad_request', message: "'/%E0%A4%A' is not a valid url component", data: { status: 400 } });
    expect(toErrorResponse(new Error('secret detail')).body).toEqual({
      code: 'rest_internal_error',
      message: 'An internal error occurred. It has been logged.',
      data: { status: 500 },
    });
  });
});

describe('messages in other languages', () => {
  it('translate the message and leave code, data and headers as they are', () => {
    const error = new InvalidParamsError({ per_page: 'per_page is out of range.', status: 'status "x" is not a valid status.' });
    const english = toErrorResponse(error, 'en');
    expect(english.body.message).toBe('Invalid parameter(s): per_page, status');
    expect(toErrorResponse(error, 'de').body).toEqual({ ...english.body, message: 'Ungültige Parameter: per_page, status' });
    expect(toErrorResponse(error, 'fr').body).toEqual({ ...english.body, message: 'Paramètre(s) invalide(s) : per_page, status' });

    const busy = new IdempotencyInProgressError(4);
    expect(toErrorResponse(busy, 'de').headers).toEqual({ 'retry-after': '4' });
  });

  it.each([
    [new NotFoundError('event', 5), 'Es gibt keine Veranstaltung mit der ID 5.', "Il n'existe aucun événement avec l'ID 5."],
    [
      new NotFoundError('venue', 'main-hall', 'slug'),
      'Es gibt keinen Veranstaltungsort mit dem Slug „main-hall“.',
      "Il n'existe aucun lieu avec le slug « main-hall ».",
    ],
    [new ForbiddenError(true), 'Sie sind leider nicht berechtigt, das zu tun.', "Désolé, vous n'êtes pas autorisé à faire cela."],
    [new GoneError('event'), 'Die Veranstaltung ist bereits im Papierkorb', "L'événement est déjà dans la corbeille"],
    [fastifyError('FST_ERR_CTP_BODY_TOO_LARGE', 413), 'Der Anfragetext ist zu groß.', 'Le corps de la requête est trop volumineux.'],
  ] as const)('%s', (error, de, fr) => {
    expect(toErrorResponse(error, 'de').body.message).toBe(de);
    expect(toErrorResponse(error, 'fr').body.message).toBe(fr);
  });

  it('quote English details as they are', () => {
    const error = new UnsupportedQueryError('$where is not supported');
    expect(toErrorResponse(error, 'de').body.message).toBe('Die Speicher-Engine führt diese Abfrage nicht aus: $where is not supported');
  });

  it('exist for every error the classes build', () => {
    const errors: ApiError[] = [
      new InvalidParamsError({ a: 'b' }),
      new MissingParamsError(['a']),
      ...(['event', 'venue', 'organizer', 'category', 'tag'] as const).flatMap((kind) => [new NotFoundError(kind, 1), new NotFoundError(kind, 's', 'slug')]),
      ...(['event', 'venue', 'organizer'] as const).map((kind) => new GoneError(kind)),
      new StorageUnavailableError(),
      new StorageWriteUnconfirmedError(),
      new IdempotencyKeyMismatchError(),
      new IdempotencyInProgressError(1),
      new NoRouteError(),
    ];
    for (const error of errors) {
      const texts = LANGUAGES.map((language) => error.messageIn(language));
      expect(new Set(texts).size, error.message).toBe(LANGUAGES.length);
      for (const text of texts) expect(text, error.message).not.toMatch(/errorMessage\.|\{\w+\}/);
    }
  });
});
