/**
 * The one error handler: every error, ours or Fastify's, leaves as
 * `{ code, message, data: { status, … } }` (design §4). Never a stack trace; 5xx messages are
 * generic and the details go to the log with the request id.
 */
import { type FastifyError, type FastifyInstance } from 'fastify';
import { type Socket } from 'node:net';
import { ApiError, DuplicateKeyError } from '../errors.js';
import { validationToApiError } from './validation.js';

export interface ErrorBody {
  code: string;
  message: string;
  data: { status: number } & Record<string, unknown>;
}

export const NO_ROUTE: ErrorBody = {
  code: 'rest_no_route',
  message: 'No route was found matching the URL and request method.',
  data: { status: 404 },
};

const fastifyCodes: Record<string, { status: number; code: string; message: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'rest_invalid_json', message: 'Invalid JSON body passed.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'rest_invalid_json', message: 'Invalid JSON body passed: the body is empty.' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'rest_request_too_large', message: 'The request body is too large.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'rest_unsupported_media_type', message: 'Unsupported content type: send application/json or application/x-www-form-urlencoded.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'rest_invalid_request', message: 'The Content-Length header does not match the body.' },
  FST_ERR_CTP_INVALID_TYPE: { status: 400, code: 'rest_invalid_request', message: 'The Content-Type header is invalid.' },
};

function body(status: number, code: string, message: string, data: Record<string, unknown> = {}): ErrorBody {
  return { code, message, data: { status, ...data } };
}

export function toErrorResponse(err: unknown): { body: ErrorBody; headers: Record<string, string> } {
  if (err instanceof ApiError) {
    return { body: body(err.statusCode, err.code, err.message, err.data), headers: err.headers };
  }
  const fe = err as Partial<FastifyError> & { validation?: unknown[]; validationContext?: string };
  if (Array.isArray(fe.validation)) {
    const apiError = validationToApiError(fe.validation as never[], fe.validationContext ?? 'request');
    return { body: body(apiError.statusCode, apiError.code, apiError.message, apiError.data), headers: {} };
  }
  const known = fe.code ? fastifyCodes[fe.code] : undefined;
  if (known) return { body: body(known.status, known.code, known.message), headers: {} };
  // JSON syntax errors and prototype-poisoning attempts reach us as 400 SyntaxErrors.
  if (err instanceof SyntaxError && fe.statusCode === 400) {
    return { body: body(400, 'rest_invalid_json', 'Invalid JSON body passed.'), headers: {} };
  }
  if (err instanceof DuplicateKeyError) {
    return { body: body(409, 'rest_conflict', 'The request conflicts with an existing record.'), headers: {} };
  }
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) {
    return { body: body(status, 'rest_bad_request', fe.message ?? 'Bad request.'), headers: {} };
  }
  return { body: body(500, 'rest_internal_error', 'An internal error occurred. It has been logged.'), headers: {} };
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => {
    const { body: payload, headers } = toErrorResponse(err);
    if (payload.data.status >= 500) request.log.error({ err }, 'request failed');
    else request.log.info({ code: payload.code, status: payload.data.status }, 'request rejected');
    void reply.code(payload.data.status).headers(headers).type('application/json; charset=utf-8').send(payload);
  });
  app.setNotFoundHandler((_request, reply) => {
    void reply.code(404).type('application/json; charset=utf-8').send(NO_ROUTE);
  });
}

/**
 * Errors before routing (header too large, URI too long, malformed request line) are answered on the
 * raw socket, still in the error shape (design §9.16).
 */
export function clientErrorHandler(err: NodeJS.ErrnoException & { statusCode?: number }, socket: Socket): void {
  if (!socket.writable) return;
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'HPE_URI_TOO_LONG' ? 414 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const reason = { 400: 'Bad Request', 408: 'Request Timeout', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' }[status];
  const code = { 400: 'rest_bad_request', 408: 'rest_request_timeout', 414: 'rest_uri_too_long', 431: 'rest_headers_too_large' }[status];
  const payload = JSON.stringify(body(status, code ?? 'rest_bad_request', `${reason ?? 'Bad Request'}.`));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`,
  );
}
