/**
 * Bearer-token authentication. Tokens come from API_TOKENS; they are compared in
 * constant time and never logged (src/logger.ts keeps credentials out of the logs). Write routes
 * declare `config: { access: 'write' }`; an anonymous or invalid caller is refused in `onRequest`,
 * before the body is even parsed.
 *
 * Failed attempts (a malformed header or an unknown token) are counted per address and minute:
 * past RATE_LIMIT_FAILED_AUTH, the address's further failed attempts that minute are answered 429
 * with Retry-After instead of 401, so guessing tokens is slow whatever the general limits. A valid
 * token is never slowed: only failures are counted and refused.
 */
import { LRUCache } from 'lru-cache';
import { type FastifyInstance, type FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { type ApiToken } from '../config.js';
import { ApiError, ForbiddenError } from '../errors.js';
import { formatDuration } from '../i18n/index.js';
import { type Caller } from '../services/access.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller, or null for anonymous requests. */
    caller: Caller | null;
  }
  interface FastifyContextConfig {
    /** 'write' routes need an editor token. */
    access?: 'read' | 'write';
  }
}

// Hashing first gives equal-length buffers, so the comparison time does not depend on the input.
const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** The token of a well-formed `Authorization: Bearer <token>` header; null otherwise. */
export function presentedToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  return /^Bearer[ ]+([\x21-\x7e]+)[ ]*$/i.exec(header)?.[1] ?? null;
}

export function authenticate(header: string | undefined, tokens: readonly ApiToken[]): Caller | null | 'invalid' {
  if (header === undefined) return null;
  const token = presentedToken(header);
  if (token === null) return 'invalid';
  const presented = digest(token);
  let found: ApiToken | undefined;
  for (const t of tokens) {
    // Every token is compared, whether or not an earlier one matched.
    if (timingSafeEqual(presented, digest(t.token))) found = t;
  }
  return found ? { role: found.role, authorId: found.authorId } : 'invalid';
}

export interface AuthOptions {
  /** Failed attempts an address may make a minute before they are answered 429; 0 = no limit. */
  failedPerMinute: number;
  /** The clock, in milliseconds. */
  nowMs?: () => number;
}

const FAILURE_WINDOW_MS = 60_000;
/** Addresses whose failures are counted at once; the least recent go first. */
const MAX_COUNTED_ADDRESSES = 10_000;

/** Counts failed attempts per address in fixed one-minute windows. */
function failureCounter({ failedPerMinute, nowMs = Date.now }: AuthOptions) {
  const counts = new LRUCache<string, { window: number; count: number }>({ max: MAX_COUNTED_ADDRESSES });
  return (address: string): ApiError | null => {
    if (failedPerMinute === 0) return null;
    const now = nowMs();
    const window = Math.floor(now / FAILURE_WINDOW_MS);
    const entry = counts.get(address);
    const count = entry?.window === window ? entry.count + 1 : 1;
    counts.set(address, { window, count });
    if (count <= failedPerMinute) return null;
    const seconds = Math.max(1, Math.ceil(((window + 1) * FAILURE_WINDOW_MS - now) / 1000));
    return new ApiError(
      429,
      'rest_too_many_requests',
      { key: 'errorMessage.rest_too_many_requests', values: { max: failedPerMinute, after: (language) => formatDuration(language, seconds) } },
      {},
      { 'retry-after': String(seconds) },
    );
  };
}

export function installAuth(app: FastifyInstance, tokens: readonly ApiToken[], options: AuthOptions = { failedPerMinute: 0 }): void {
  const failed = failureCounter(options);
  app.decorateRequest('caller', null);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const result = authenticate(request.headers.authorization, tokens);
    // A bad Authorization header is refused on every route: the caller meant to authenticate.
    if (result === 'invalid') throw failed(request.ip) ?? new ForbiddenError(false);
    request.caller = result;
    if (request.routeOptions.config.access === 'write') {
      if (result === null) throw new ForbiddenError(false);
      if (result.role !== 'editor') throw new ForbiddenError(true);
    }
  });
}
