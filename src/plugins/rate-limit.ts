/**
 * Per-client rate limits (issue 7): reads and writes are counted separately, per token when the
 * request carries one, else per IP address (`request.ip` honours TRUST_PROXY). Answers 429 in the
 * error shape with `Retry-After` and the draft standard `RateLimit-*` headers.
 */
import rateLimit from '@fastify/rate-limit';
import { type FastifyInstance, type FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { ApiError } from '../errors.js';
import { formatDuration } from '../i18n/index.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const WINDOW_MS = 60_000;

const isWrite = (request: FastifyRequest) => WRITE_METHODS.has(request.method);

/** A token is counted by its hash (never kept in clear), anonymous callers by address. */
function clientOf(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (header !== undefined && /^Bearer\s+\S+/i.test(header)) {
    return `token:${createHash('sha256').update(header.replace(/^Bearer\s+/i, '').trim()).digest('base64url').slice(0, 22)}`;
  }
  return `ip:${request.ip}`;
}

export function installRateLimit(app: FastifyInstance, limits: { reads: number; writes: number }): void {
  if (limits.reads === 0 && limits.writes === 0) return;
  // fastify-plugin inside: registered on the root instance, it covers every route.
  app.register(rateLimit, {
    global: true,
    enableDraftSpec: true,
    timeWindow: WINDOW_MS,
    // A kind whose limit is 0 is not limited; health checks never are.
    allowList: (request) => request.url.startsWith('/health/') || (isWrite(request) ? limits.writes === 0 : limits.reads === 0),
    max: (request) => (isWrite(request) ? limits.writes : limits.reads),
    keyGenerator: (request) => `${isWrite(request) ? 'write' : 'read'}:${clientOf(request)}`,
    // The plugin's `after` is English ("30 seconds"); the other languages count the same seconds.
    errorResponseBuilder: (_request, context) =>
      new ApiError(
        429,
        'rest_too_many_requests',
        {
          key: 'errorMessage.rest_too_many_requests',
          values: { max: context.max, after: (language) => (language === 'en' ? context.after : formatDuration(language, Math.ceil(context.ttl / 1000))) },
        },
        {},
        { 'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))) },
      ),
  });
}
