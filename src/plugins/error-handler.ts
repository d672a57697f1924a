/**
 * The one error handler: every error, ours or Fastify's, leaves as
 * `{ code, message, data: { status, … } }`. Never a stack trace; 5xx messages are
 * generic and the details go to the log with the request id.
 *
 * The message is in the language of the request's root, known from the URL before any route is
 * found (`/de/…` German, `/fr/…` French, anything else English), so errors raised outside routes
 * (no route, body parsing, authentication, rate limits, load shedding) are translated too. `code`
 * and `data` are the same in every language.
 */
import { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, errorCodes } from 'fastify';
import { type Socket } from 'node:net';
import { ApiError, DuplicateKeyError, type ErrorCode, type ErrorMessageKey, NoRouteError } from '../errors.js';
import { type Language, formatMessage, languageOfUrl } from '../i18n/index.js';
import { rootOf } from '../routes/roots.js';
import { validationToApiError } from '../schemas/validation.js';

export interface ErrorBody {
  code: string;
  message: string;
  data: { status: number } & Record<string, unknown>;
}

const fastifyCodes: Record<string, { status: number; code: ErrorCode; message: ErrorMessageKey }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'rest_invalid_json', message: 'errorMessage.rest_invalid_json' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'rest_invalid_json', message: 'errorMessage.rest_invalid_json.empty' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'rest_request_too_large', message: 'errorMessage.rest_request_too_large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'rest_unsupported_media_type', message: 'errorMessage.rest_unsupported_media_type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'rest_invalid_request', message: 'errorMessage.rest_invalid_request.contentLength' },
  FST_ERR_CTP_INVALID_TYPE: { status: 400, code: 'rest_invalid_request', message: 'errorMessage.rest_invalid_request.contentType' },
};

/** Any error as one of ours: the code, the message key and values, the status and the data to send. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const fe = err as Partial<FastifyError> & { validation?: unknown[]; validationContext?: string };
  if (Array.isArray(fe.validation)) return validationToApiError(fe.validation as never[], fe.validationContext ?? 'request');
  const known = fe.code ? fastifyCodes[fe.code] : undefined;
  if (known) return new ApiError(known.status, known.code, known.message);
  // JSON syntax errors and prototype-poisoning attempts reach us as 400 SyntaxErrors.
  if (err instanceof SyntaxError && fe.statusCode === 400) return new ApiError(400, 'rest_invalid_json', 'errorMessage.rest_invalid_json');
  if (err instanceof DuplicateKeyError) return new ApiError(409, 'rest_conflict', 'errorMessage.rest_conflict');
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) {
    // Fastify's own text (e.g. a malformed percent-encoding) is quoted as it is, in English.
    return new ApiError(
      status,
      'rest_bad_request',
      fe.message === undefined ? 'errorMessage.rest_bad_request' : { key: 'errorMessage.rest_bad_request.detail', values: { detail: fe.message } },
    );
  }
  return new ApiError(500, 'rest_internal_error', 'errorMessage.rest_internal_error');
}

/** The response for an error, its message in `language`. */
export function toErrorResponse(err: unknown, language: Language = 'en'): { body: ErrorBody; headers: Record<string, string> } {
  const error = toApiError(err);
  return { body: { code: error.code, message: error.messageIn(language), data: { status: error.statusCode, ...error.data } }, headers: error.headers };
}

/**
 * Answers a request with an error, in the language of its root, and logs it. The root is read
 * from the URL as sent: the router saw it without its root (src/routes/roots.ts).
 */
export function replyWithError(err: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const { body: payload, headers } = toErrorResponse(err, languageOfUrl(request.originalUrl));
  if (payload.data.status >= 500) request.log.error({ err }, 'request failed');
  else request.log.info({ code: payload.code, status: payload.data.status }, 'request rejected');
  void reply.code(payload.data.status).headers(headers).type('application/json; charset=utf-8').send(payload);
}

/**
 * Answers an error of the router itself (a malformed percent-encoding, an over-long parameter;
 * Fastify's `frameworkErrors`). Its message quotes what the router was given, which lacks the
 * language root when rewriteUrl took it off the front (src/routes/roots.ts); the message quotes
 * what the client sent instead: the URL as sent for a malformed one, and for an over-long
 * parameter the decoded path (as the router quotes it) with its root in front.
 */
export function replyWithRouterError(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const rewritten = request.url !== request.originalUrl;
  if (rewritten && err.code === 'FST_ERR_BAD_URL') {
    err = new errorCodes.FST_ERR_BAD_URL(request.originalUrl);
  } else if (rewritten && err.code === 'FST_ERR_MAX_PARAM_LENGTH' && err.message.startsWith("'/")) {
    err.message = `'${rootOf(request)}${err.message.slice(1)}`;
  }
  replyWithError(err, request, reply);
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => replyWithError(err, request, reply));
  app.setNotFoundHandler((request, reply) => replyWithError(new NoRouteError(), request, reply));
}

/**
 * Errors before routing (header too large, URI too long, malformed request line) are answered on the
 * raw socket, still in the error shape. No request exists yet, hence no root: the
 * message is English.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException & { statusCode?: number }, socket: Socket): void {
  if (!socket.writable) return;
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'HPE_URI_TOO_LONG' ? 414 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const reason = { 400: 'Bad Request', 408: 'Request Timeout', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' }[status];
  const { code, message } = (
    {
      400: { code: 'rest_bad_request', message: 'errorMessage.rest_bad_request.unparsable' },
      408: { code: 'rest_request_timeout', message: 'errorMessage.rest_request_timeout' },
      414: { code: 'rest_uri_too_long', message: 'errorMessage.rest_uri_too_long' },
      431: { code: 'rest_headers_too_large', message: 'errorMessage.rest_headers_too_large' },
    } as const
  )[status];
  const payload = JSON.stringify({ code, message: formatMessage('en', message), data: { status } } satisfies ErrorBody);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`,
  );
}
