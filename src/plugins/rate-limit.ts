/**
 * Per-caller rate limits: reads and writes are counted separately, per minute.
 *
 * - A request carrying a valid API token is counted against that token, with the token limits
 *   (RATE_LIMIT_TOKEN_READS / RATE_LIMIT_TOKEN_WRITES), wherever it comes from: an editor's sync
 *   script writes as fast as it needs to, and two tokens behind one address have a budget each.
 * - Any other request (no token, or one that is not in API_TOKENS) is anonymous and counted per
 *   address (`request.ip`, which honours TRUST_PROXY), with RATE_LIMIT_READS / RATE_LIMIT_WRITES.
 *
 * Counting runs before authentication (the hook is installed before src/plugins/auth.ts's), so a
 * request refused for its credentials (401, 403) is counted too: guessing tokens meets the
 * anonymous limit of the guesser's address. A token is counted by its SHA-256 digest, never kept
 * in clear. Answers 429 in the error shape with `Retry-After` and the draft standard `RateLimit-*`
 * headers, the same for both kinds of caller.
 */
import rateLimit from '@fastify/rate-limit';
import { type FastifyInstance, type FastifyReply, type FastifyRequest, type onRequestAsyncHookHandler } from 'fastify';
import { createHash } from 'node:crypto';
import { type ApiToken, type Config } from '../config.js';
import { ApiError } from '../errors.js';
import { formatDuration } from '../i18n/index.js';
import { isWarmUpRequest } from '../warm-up.js';
import { presentedToken } from './auth.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const WINDOW_MS = 60_000;

/** Requests per minute; 0 = not limited. Anonymous callers are counted per address, token holders per token. */
export interface RateLimits {
  reads: number;
  writes: number;
  tokenReads: number;
  tokenWrites: number;
}

/** The limits as configured; without API_TOKENS no caller can hold a token, so none has token limits. */
export function rateLimitsOf(config: Config): RateLimits {
  const tokens = config.apiTokens.length > 0;
  return {
    reads: config.rateLimitReads,
    writes: config.rateLimitWrites,
    tokenReads: tokens ? config.rateLimitTokenReads : 0,
    tokenWrites: tokens ? config.rateLimitTokenWrites : 0,
  };
}

const isWrite = (request: FastifyRequest) => WRITE_METHODS.has(request.method);

const digestOf = (token: string): string => createHash('sha256').update(token).digest('base64url');

/**
 * Installs the limits; returns the counting of one request (throwing the 429 when it is over its
 * limit), which the response cache's first hook calls for the requests it answers before this
 * hook runs (src/plugins/http-cache.ts), or undefined when nothing is limited. A request is
 * counted once, whichever calls it first.
 */
export function installRateLimit(
  app: FastifyInstance,
  limits: RateLimits,
  tokens: readonly ApiToken[],
): ((request: FastifyRequest, reply: FastifyReply) => Promise<void>) | undefined {
  if (limits.reads === 0 && limits.writes === 0 && limits.tokenReads === 0 && limits.tokenWrites === 0) return undefined;
  // Membership is decided on digests: a lookup's timing depends on the digest of what was sent,
  // which tells a caller nothing about the configured tokens. src/plugins/auth.ts still decides
  // whether the request may proceed.
  const known = new Set(tokens.map((t) => digestOf(t.token)));
  const limitOf: Record<string, number> = {
    'read:ip': limits.reads,
    'write:ip': limits.writes,
    'read:token': limits.tokenReads,
    'write:token': limits.tokenWrites,
  };
  /** `<kind>:token:<digest>` for a configured token, else `<kind>:ip:<address>`. */
  const keyOf = (request: FastifyRequest): string => {
    const kind = isWrite(request) ? 'write' : 'read';
    const token = presentedToken(request.headers.authorization);
    if (token !== null) {
      const digest = digestOf(token);
      if (known.has(digest)) return `${kind}:token:${digest}`;
    }
    return `${kind}:ip:${request.ip}`;
  };
  const limitOfKey = (key: string): number => limitOf[key.slice(0, key.indexOf(':', key.indexOf(':') + 1))] ?? 0;

  // fastify-plugin inside: registered on the root instance. `global: false`: its per-route hook
  // would run after the root's onRequest hooks, authentication included; the hook below runs first.
  app.register(rateLimit, {
    global: false,
    enableDraftSpec: true,
    timeWindow: WINDOW_MS,
    // A kind of caller whose limit is 0 is not limited; health probes and the start-up warm-up
    // (src/warm-up.ts, before the server listens) never are.
    allowList: (request, key) => request.url.startsWith('/health/') || isWarmUpRequest(request) || limitOfKey(key) === 0,
    max: (_request, key) => limitOfKey(key),
    keyGenerator: keyOf,
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
  // Added now, in the order of src/app.ts's calls (Fastify adds request hooks in registration
  // order); the limiter itself exists once the plugin above has loaded, before any request.
  let limiter: onRequestAsyncHookHandler | undefined;
  const count = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    limiter ??= app.rateLimit();
    await limiter.call(app, request, reply);
  };
  app.addHook('onRequest', count);
  return count;
}
