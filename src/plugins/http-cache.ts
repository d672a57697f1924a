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
 *
 * Where the answer is looked up: a URL as sent that was answered before is looked up by the first
 * hook of the app (the cache lane, installCacheLane), before the host check, rate limiting,
 * authentication and load shedding, which it applies itself for the requests it may answer: only
 * an anonymous GET or HEAD (no `Authorization`, no `password`) of a route that allows it; the URL's
 * host is the one its entry was computed for, which passed the host check then; a request while
 * the server sheds load is left to the hooks (which shed it); the rate limiter counts it before it
 * is answered. With CORS on, whose hook must add its headers first, the lookup is a later hook,
 * after authentication. An entry holds the final headers of its 200 and of its 304, so a cached
 * answer skips the onSend work.
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
    /** The response cache's canonical key and the change version read before the answer was computed. */
    cacheFill: { key: string; version: number } | null;
    /** Answered from the response cache with its final headers: the onSend hook leaves it alone. */
    cacheAnswered: boolean;
  }
}

/** The cache lane's rules that other plugins own (src/app.ts passes them). */
export interface CacheLaneRules {
  /** Counts the request against its rate limit, throwing the 429 when over it (src/plugins/rate-limit.ts); absent: no limits. */
  countRequest?: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** Whether a request now may be shed (src/plugins/load-shedding.ts); absent: no shedding. */
  overloaded?: () => boolean;
}

/** The first hook of the app, connected to the response cache once it exists (installHttpCache). */
export interface CacheLane {
  answer: ((request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>) | null;
}

/**
 * Adds the app's first onRequest hook, which answers the URLs the response cache holds (see the
 * module comment); must be installed before every other request hook. Does nothing until
 * installHttpCache connects it.
 */
export function installCacheLane(app: FastifyInstance): CacheLane {
  const lane: CacheLane = { answer: null };
  app.addHook('onRequest', async (request, reply) => lane.answer?.(request, reply));
  return lane;
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
  /** The app's first hook and the rules it applies; absent (CORS on): the lookup runs after authentication. */
  lane?: { lane: CacheLane } & CacheLaneRules;
}

interface Entry {
  body: Buffer;
  etag: string;
  /** The route's headers of the 200 (validators, type, links, totals), for an answer whose onSend hook decides. */
  kept: Record<string, string>;
  /** The final headers of its 200, and of its 304 (no Content-Type). */
  ok: Record<string, string>;
  notModified: Record<string, string>;
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

/** The URL as sent: protocol, host as named (not yet checked) and the URL with its root or drop-in path; undefined without a host. */
function sentKeyOf(request: FastifyRequest): string | undefined {
  const host = request.host as string | undefined;
  return typeof host === 'string' ? `${request.protocol}://${host}\n${request.originalUrl}` : undefined;
}

/** The `Vary` of an anonymous answer of a route that keeps answers: a token would change it. */
const VARY = 'Authorization';

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
  app.decorateRequest('cacheAnswered', false);
  const publicPolicy = `public, max-age=${options.maxAge}, must-revalidate`;
  const store = options.cacheBytes > 0 ? responseStore(app, options, publicPolicy) : null;
  app.addHook('onSend', validators(publicPolicy, store));
}

/**
 * The response cache: entries by canonical key, and the canonical key (with the links' origin) of
 * each URL as sent that was answered from one. A repeated URL is served by the first hook (or,
 * with CORS, right after authentication), before its parameters are validated again (they were,
 * the first time, and the URL is the same); another spelling of the same request is served once
 * validated.
 */
function responseStore(app: FastifyInstance, options: HttpCacheOptions, publicPolicy: string) {
  const entries = new LRUCache<string, Entry>({ maxSize: options.cacheBytes, sizeCalculation: (entry, key) => entry.body.length + key.length + 512 });
  const sentKeys = new LRUCache<string, { key: string; linkOrigin: string }>({ max: MAX_SENT_KEYS });
  const current = (key: string | undefined): Entry | undefined => {
    const entry = key === undefined ? undefined : entries.get(key);
    if (entry === undefined || entry.version !== options.version()) return undefined;
    const at = options.now().getTime();
    return entry.since <= at && at < entry.until ? entry : undefined;
  };
  const remember = (request: FastifyRequest, key: string): void => {
    const sent = sentKeyOf(request);
    if (sent !== undefined) sentKeys.set(sent, { key, linkOrigin: request.linkOrigin });
  };

  /**
   * Answers from `entry` with its final headers: a 304 when `If-None-Match` names its tag, else its
   * bytes. `If-Modified-Since` alone is left to the onSend hook, as for an answer computed now.
   */
  const serve = (request: FastifyRequest, reply: FastifyReply, entry: Entry) => {
    const noneMatch = request.headers['if-none-match'];
    if (noneMatch === undefined && request.headers['if-modified-since'] !== undefined) return reply.headers(entry.kept).send(entry.body);
    const hit = noneMatch !== undefined && (noneMatch === entry.etag || noneMatchHits(noneMatch, entry.etag));
    // CORS's hook may have set `Vary: Origin` already.
    const vary = reply.getHeader('vary');
    request.cacheAnswered = true;
    void reply.headers(hit ? entry.notModified : entry.ok);
    if (vary !== undefined) void reply.header('vary', appendVary(vary, VARY));
    return hit ? reply.code(304).send() : reply.send(entry.body);
  };

  const cacheable = (request: FastifyRequest): boolean =>
    (request.method === 'GET' || request.method === 'HEAD') &&
    request.routeOptions.config?.responseCache !== undefined &&
    request.routeOptions.config.access !== 'write' &&
    !isPersonal(request);

  if (options.lane !== undefined) {
    const { lane, countRequest, overloaded } = options.lane;
    lane.answer = async (request, reply) => {
      if (!cacheable(request)) return;
      const sent = sentKeyOf(request);
      const found = sent === undefined ? undefined : sentKeys.get(sent);
      const entry = current(found?.key);
      if (entry === undefined || overloaded?.() === true) return;
      // What the host check would have set: the entry's URL, host included, passed it.
      request.linkOrigin = found!.linkOrigin;
      if (countRequest !== undefined) await countRequest(request, reply);
      return serve(request, reply, entry);
    };
  } else {
    // Installed after authentication: the caller is known.
    app.addHook('onRequest', async (request, reply) => {
      if (!cacheable(request)) return;
      const sent = sentKeyOf(request);
      const entry = current(sent === undefined ? undefined : sentKeys.get(sent)?.key);
      if (entry !== undefined) return serve(request, reply, entry);
    });
  }
  app.addHook('preHandler', async (request, reply) => {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || !mayKeep(request)) return;
    const key = cacheKeyOf(request);
    const entry = current(key);
    if (entry === undefined) {
      request.cacheFill = { key, version: options.version() };
      return;
    }
    remember(request, key);
    return serve(request, reply, entry);
  });

  /** Keeps a 200 computed for `request`, unless a write landed while it was computed. */
  async function keep(request: FastifyRequest, reply: FastifyReply, payload: string | Buffer, etag: string): Promise<void> {
    const fill = request.cacheFill;
    if (fill === null || fill.version !== options.version()) return;
    const since = options.now().getTime();
    const until = await options.validUntil();
    const kept: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) kept[name] = String(value);
    }
    const { 'content-type': _type, ...validators } = kept;
    const policy = { 'cache-control': publicPolicy, vary: VARY };
    // A copy: a list's body may be a view of memory reused once it is sent.
    const body = Buffer.from(payload);
    entries.set(fill.key, { body, etag, kept, ok: { ...kept, ...policy }, notModified: { ...validators, ...policy }, version: fill.version, since, until });
    remember(request, fill.key);
  }
  return { keep };
}

/** The onSend hook: validators, Cache-Control, Vary, keeping the answer, and the 304. */
function validators(publicPolicy: string, store: ReturnType<typeof responseStore> | null) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    if (request.cacheAnswered) return payload;
    if ((request.method !== 'GET' && request.method !== 'HEAD') || reply.statusCode !== 200) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    if (reply.hasHeader('cache-control')) return payload;
    const personal = isPersonal(request);
    void reply.header('cache-control', personal ? PRIVATE : publicPolicy);
    // The API's reads answer a token differently; other pages (home, docs) do not look at it.
    if (!personal && request.routeOptions.config.responseCache !== undefined) void reply.header('vary', appendVary(reply.getHeader('vary'), VARY));
    let etag = reply.getHeader('etag');
    if (typeof etag !== 'string') {
      etag = etagOf(payload);
      void reply.header('etag', etag);
    }
    await store?.keep(request, reply, payload, etag);
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
