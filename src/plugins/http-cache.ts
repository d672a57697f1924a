/**
 * HTTP caching (RFC 9110 §13, RFC 9111) for every GET and HEAD:
 *
 * - validators: a strong `ETag` on every 200 (from the bytes sent), and `If-None-Match` (else
 *   `If-Modified-Since`, where the route sent `Last-Modified`) answered 304 with no body and the
 *   same validators, `Cache-Control` and `Vary`;
 * - `Cache-Control`: anonymous answers are `public, max-age=CACHE_MAX_AGE, must-revalidate` and vary
 *   on `Authorization`; anything answered to a token or a `password` is `private, no-store`;
 * - a response cache for anonymous reads of the routes that allow it: the bytes and headers of a
 *   200, keyed by the links' origin, the root (or drop-in path), the route and its validated parameters (so parameter
 *   order and defaults do not matter), served again while the storage's change version stands and
 *   the clock has not reached the answer's `validUntil` (src/services/freshness.ts). An entry is
 *   stamped with the version read before its answer was computed, so a write that lands meanwhile
 *   makes it stale at once.
 *
 * A route sets `config.responseCache` to `true`, or to a function saying whether a request's answer
 * depends on the clock only at the instants freshness knows; without it nothing is kept. A route
 * that sets its own `Cache-Control` (health) is left alone.
 */
import { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { etagOf, modifiedSince, noneMatchHits } from '../lib/etag.js';
import { apiPathOf } from '../routes/roots.js';

export type ResponseCacheRule = boolean | ((request: FastifyRequest) => boolean);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Whether anonymous answers of this route may be kept (see src/plugins/http-cache.ts). */
    responseCache?: ResponseCacheRule;
  }
  interface FastifyRequest {
    /** The response cache's keys (the URL as sent, the canonical form) and the change version read before the answer was computed. */
    cacheFill: { sent: string; key: string; version: number } | null;
  }
}

export interface HttpCacheOptions {
  /** CACHE_MAX_AGE, seconds. */
  maxAge: number;
  /** RESPONSE_CACHE_BYTES; 0: nothing is kept. */
  cacheBytes: number;
  /** The storage's change version. */
  version: () => number;
  /** Until when (ms) an answer computed now stays true if nothing is written. */
  validUntil: () => Promise<number>;
  now: () => Date;
}

interface Entry {
  body: Buffer;
  headers: Record<string, string>;
  version: number;
  /** The clock's reading (ms) when it was stored, and until when it stays true: valid in between. */
  since: number;
  until: number;
}

/** The headers of a 200 a cached copy repeats; the others are made per response (rate limits, CORS, Date). */
const KEPT_HEADERS = ['content-type', 'etag', 'last-modified', 'link', 'x-tec-total', 'x-tec-totalpages'] as const;
const PRIVATE = 'private, no-store';
/** URLs as sent remembered with their canonical key (a few hundred bytes each). */
const MAX_SENT_KEYS = 100_000;

/** Whether the answer depends on who asks: a token, or an event's password. */
function isPersonal(request: FastifyRequest): boolean {
  return request.caller !== null || request.headers.authorization !== undefined || Object.hasOwn(request.query as object, 'password');
}

/** Validated parameters in a fixed order: the same request in any parameter order has one key. */
function canonical(values: unknown): string {
  if (values === null || typeof values !== 'object') return '';
  const record = values as Record<string, unknown>;
  return JSON.stringify(
    Object.keys(record)
      .sort()
      .map((name) => [name, record[name]]),
  );
}

/** The URL as sent (with its root or drop-in path) and the host of its links. */
const sentKeyOf = (request: FastifyRequest): string => `${request.linkOrigin}\n${request.originalUrl}`;

const cacheKeyOf = (request: FastifyRequest): string =>
  `${request.linkOrigin}\n${apiPathOf(request)}\n${request.routeOptions.url ?? ''}\n${canonical(request.params)}\n${canonical(request.query)}`;

function mayKeep(request: FastifyRequest): boolean {
  const rule = request.routeOptions.config.responseCache;
  if (rule === undefined || rule === false || isPersonal(request)) return false;
  return rule === true || rule(request);
}

/** 304 when the client's copy is current: If-None-Match, else If-Modified-Since (RFC 9110 §13.2.2). */
function notModified(request: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  const noneMatch = request.headers['if-none-match'];
  if (noneMatch !== undefined) return noneMatchHits(noneMatch, etag);
  const since = request.headers['if-modified-since'];
  const lastModified = reply.getHeader('last-modified');
  return since !== undefined && typeof lastModified === 'string' && !modifiedSince(since, new Date(lastModified));
}

export function installHttpCache(app: FastifyInstance, options: HttpCacheOptions): void {
  app.decorateRequest('cacheFill', null);
  const publicPolicy = `public, max-age=${options.maxAge}, must-revalidate`;
  const store = options.cacheBytes > 0 ? responseStore(app, options, publicPolicy) : null;
  app.addHook('onSend', validators(publicPolicy, store));
}

/**
 * The response cache: entries by canonical key, and the canonical key of each URL as sent that was
 * answered from one. A repeated URL is served right after authentication, before its parameters
 * are validated again (they were, the first time, and the URL is the same); another spelling of
 * the same request is served once validated.
 */
function responseStore(app: FastifyInstance, options: HttpCacheOptions, publicPolicy: string) {
  const entries = new LRUCache<string, Entry>({ maxSize: options.cacheBytes, sizeCalculation: (entry, key) => entry.body.length + key.length + 256 });
  const sentKeys = new LRUCache<string, string>({ max: MAX_SENT_KEYS });
  const current = (key: string | undefined): Entry | undefined => {
    const entry = key === undefined ? undefined : entries.get(key);
    const at = options.now().getTime();
    return entry !== undefined && entry.version === options.version() && entry.since <= at && at < entry.until ? entry : undefined;
  };

  /**
   * Answers from `entry`: a 304 at once when `If-None-Match` names its tag (the headers a 200 of it
   * would carry, no body); otherwise its bytes, whose validators the onSend hook adds as for an
   * answer computed now.
   */
  const serve = (request: FastifyRequest, reply: FastifyReply, entry: Entry) => {
    const noneMatch = request.headers['if-none-match'];
    if (noneMatch === undefined || !noneMatchHits(noneMatch, entry.headers.etag ?? '')) return reply.headers(entry.headers).send(entry.body);
    const { 'content-type': _type, ...validators } = entry.headers;
    return reply
      .code(304)
      .headers(validators)
      .header('cache-control', publicPolicy)
      .header('vary', appendVary(reply.getHeader('vary'), 'Authorization'))
      .send();
  };

  // Installed after authentication: the caller is known.
  app.addHook('onRequest', async (request, reply) => {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || request.routeOptions.config?.responseCache === undefined || isPersonal(request)) return;
    const entry = current(sentKeys.get(sentKeyOf(request)));
    if (entry !== undefined) return serve(request, reply, entry);
  });
  app.addHook('preHandler', async (request, reply) => {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || !mayKeep(request)) return;
    const key = cacheKeyOf(request);
    const entry = current(key);
    if (entry === undefined) {
      request.cacheFill = { sent: sentKeyOf(request), key, version: options.version() };
      return;
    }
    sentKeys.set(sentKeyOf(request), key);
    return serve(request, reply, entry);
  });

  /** Keeps a 200 computed for `request`, unless a write landed while it was computed. */
  async function keep(request: FastifyRequest, reply: FastifyReply, payload: string | Buffer): Promise<void> {
    const fill = request.cacheFill;
    if (fill === null || fill.version !== options.version()) return;
    const since = options.now().getTime();
    const until = await options.validUntil();
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    // A copy: a list's body may be a view of memory reused once it is sent.
    entries.set(fill.key, { body: Buffer.from(payload), headers, version: fill.version, since, until });
    sentKeys.set(fill.sent, fill.key);
  }
  return { keep };
}

/** The onSend hook: validators, Cache-Control, Vary, keeping the answer, and the 304. */
function validators(publicPolicy: string, store: ReturnType<typeof responseStore> | null) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || reply.statusCode !== 200) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    if (reply.hasHeader('cache-control')) return payload;
    const personal = isPersonal(request);
    void reply.header('cache-control', personal ? PRIVATE : publicPolicy);
    // The API's reads answer a token differently; other pages (home, docs) do not look at it.
    if (!personal && request.routeOptions.config.responseCache !== undefined) void reply.header('vary', appendVary(reply.getHeader('vary'), 'Authorization'));
    let etag = reply.getHeader('etag');
    if (typeof etag !== 'string') {
      etag = etagOf(payload);
      void reply.header('etag', etag);
    }
    await store?.keep(request, reply, payload);
    if (!notModified(request, reply, etag)) return payload;
    void reply.code(304);
    reply.removeHeader('content-type');
    // A HEAD keeps its body for Fastify's HEAD handler, which drops it and sends the length a 200
    // would have (the only Content-Length a 304 may carry); a GET's 304 has none.
    if (request.method === 'HEAD') return payload;
    reply.removeHeader('content-length');
    return null;
  };
}

/** `Vary` with `name` added once. */
function appendVary(current: unknown, name: string): string {
  const value = Array.isArray(current) ? current.join(', ') : typeof current === 'string' ? current : '';
  if (value.split(',').some((member) => member.trim().toLowerCase() === name.toLowerCase())) return value;
  return value === '' ? name : `${value}, ${name}`;
}
