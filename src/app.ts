/**
 * buildApp: plugins and routes, no I/O. Used by src/server.ts and by the tests (through inject).
 */
import cors from '@fastify/cors';
import formbody from '@fastify/formbody';
import { type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyHttpOptions, type FastifyInstance, type FastifyServerOptions, type RawServerDefault } from 'fastify';
import { type Config } from './config.js';
import { appLogging } from './logger.js';
import { NoRouteError, invalidParam } from './errors.js';
import { parseQueryString } from './lib/querystring.js';
import { installAuth } from './plugins/auth.js';
import { installHostCheck } from './plugins/hosts.js';
import { installCacheLane, installHttpCache } from './plugins/http-cache.js';
import { installLoadShedding } from './plugins/load-shedding.js';
import { installIdempotency } from './plugins/idempotency.js';
import { installRateLimit, rateLimitsOf } from './plugins/rate-limit.js';
import { clientErrorHandler, installErrorHandling, replyWithRouterError } from './plugins/error-handler.js';
import { installSeriesExtension } from './plugins/series-extension.js';
import { installValidation } from './plugins/validation.js';
import { type ApiRouteOptions } from './routes/context.js';
import { NAMESPACE, ROOTS, routedUrl } from './routes/roots.js';
import { createSerializeCaches, serializeCacheSizes } from './serialize/caches.js';
// Discovery and documentation.
import { createApiDocs } from './docs/api-docs.js';
import { installRouteCatalog } from './docs/route-catalog.js';
import { installDocsUi } from './docs/ui.js';
import { discoveryRoutes } from './routes/discovery.js';
import { eventRoutes } from './routes/events.js';
import { ProbeQuietLogController, healthRoutes } from './routes/health.js';
import { homeRoutes } from './routes/home.js';
import { categoryRouteOptions, categoryRoutes } from './routes/categories.js';
import { organizerRouteOptions, organizerRoutes } from './routes/organizers.js';
import { seriesRoutes } from './routes/series.js';
import { syncRoutes } from './routes/sync.js';
import { tagRouteOptions, tagRoutes } from './routes/tags.js';
import { venueRouteOptions, venueRoutes } from './routes/venues.js';
import { createIdempotencyService } from './services/idempotency.js';
import { createFreshness } from './services/freshness.js';
import { createServices, type Services } from './services/index.js';
import { type Storage } from './storage/port.js';
import { withStorageDeadline } from './storage/deadline.js';

export interface AppOptions {
  config: Config;
  storage: Storage;
  /** A pino logger or Fastify logger options; false silences the app (tests). */
  logger?: FastifyBaseLogger | FastifyServerOptions['logger'];
  /**
   * The clock of the services (publication dates, the Idempotency-Key window); the system clock
   * when absent. Tests pass one to move time on without waiting.
   */
  now?: () => Date;
}

/** First `$`-prefixed key in a query or body, as a parameter name (operator injection is refused). */
export function findOperatorKey(value: unknown, path: string[] = [], depth = 0): string | null {
  if (depth > 32 || value === null || typeof value !== 'object') return null;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    if (key.startsWith('$')) return [...path, key][0] as string;
    const found = findOperatorKey(child, [...path, key], depth + 1);
    if (found !== null) return found;
  }
  return null;
}

/**
 * Where the links of a request naming a host that is not allowed point: PUBLIC_URL's origin, else
 * the first allowed host on the listening port.
 */
function fallbackOrigin(config: Config): string {
  if (config.publicUrl !== null) return new URL(config.publicUrl).origin;
  const first = config.allowedHosts === '*' ? 'localhost' : (config.allowedHosts[0] ?? 'localhost');
  return `http://${first}:${config.port}`;
}

export function buildApp({ config, storage: rawStorage, logger, now }: AppOptions): FastifyInstance {
  // Reliability: every storage call has a deadline (STORAGE_TIMEOUT_MS) → 503, never a hang.
  const storage = withStorageDeadline(rawStorage, config.storageTimeoutMs);
  // This app's own serialization caches, sized by SERIALIZATION_ARENA_MB / _MEMO_ENTRIES and off
  // on the mongodb engine, whose reads never return the same document object twice.
  const caches = createSerializeCaches(serializeCacheSizes(config, storage.engine));

  const app = Fastify(serverOptions(config, logger)).withTypeProvider<TypeBoxTypeProvider>();

  installValidation(app);
  installErrorHandling(app);
  // First of the hooks: an anonymous read the cache holds, answered under the rules of the hooks
  // below (src/plugins/http-cache.ts); with CORS, whose headers come first, after authentication.
  const cacheLane = config.responseCacheBytes > 0 && config.corsOrigins.length === 0 ? installCacheLane(app) : undefined;
  // Then: a malformed host is refused before anything is counted or looked up.
  installHostCheck(app, { allowedHosts: config.allowedHosts, fallbackOrigin: fallbackOrigin(config) });
  // Rate limiting before authentication: a request refused for its credentials is counted too.
  const rateLimits = rateLimitsOf(config);
  const countRequest = installRateLimit(app, rateLimits, config.apiTokens);
  installAuth(app, config.apiTokens, { failedPerMinute: config.rateLimitFailedAuth, nowMs: now && (() => now().getTime()) });
  // Load shedding when the event loop lags (liveness stays exempt).
  const overloaded = config.maxEventLoopDelayMs > 0 ? installLoadShedding(app, config.maxEventLoopDelayMs) : undefined;
  installBodyParsing(app);
  if (config.corsOrigins.length > 0) installCors(app, config.corsOrigins);

  // Operator injection: `$`-prefixed keys are refused wherever they appear.
  app.addHook('preValidation', async (request) => {
    const key = findOperatorKey(request.query) ?? findOperatorKey(request.body);
    if (key !== null) throw invalidParam(key, `${key} is not a valid parameter name.`);
  });

  const services = createServices({ storage, config, now, onPruneError: (error) => app.log.warn({ err: error }, 'sync: pruning old tombstones failed') });
  // Idempotency-Key on the create routes: installed before any route is registered (an onRoute
  // hook). An attempt holds its key for at most the request timeout.
  const idempotency = createIdempotencyService({
    storage,
    lockMs: config.requestTimeoutMs,
    now,
    onSweepError: (error) => app.log.warn({ err: error }, 'idempotency: sweeping expired records failed'),
  });
  installIdempotency(app, idempotency);
  installSeriesExtension(app, services.events.extendSeries);
  // Validators, Cache-Control and the response cache of anonymous reads, on every route below.
  const clock = now ?? (() => new Date());
  const freshness = createFreshness({ storage, siteTimezone: config.siteTimezone, now: clock });
  installHttpCache(app, {
    maxAge: config.cacheMaxAge,
    cacheBytes: config.responseCacheBytes,
    version: () => storage.changeVersion(),
    validUntil: () => freshness.validUntil(),
    now: clock,
    ...(cacheLane === undefined ? {} : { lane: { lane: cacheLane, countRequest, overloaded } }),
  });
  app.register(healthRoutes, { storage, details: config.healthDetails });
  // Discovery and documentation: the index, /doc and the UI are built from the routes
  // as registered, collected before any of them is registered.
  const catalog = installRouteCatalog(app, { namespace: NAMESPACE });
  const docs = createApiDocs({
    catalog,
    siteTimezone: config.siteTimezone,
    perPageMax: config.perPageMax,
    // A kind of request is documented as answering 429 when any caller has a limit for it.
    rateLimits: { reads: Math.max(rateLimits.reads, rateLimits.tokenReads), writes: Math.max(rateLimits.writes, rateLimits.tokenWrites) },
    geolocation: config.geolocEnabled,
  });
  // Once, under the namespace without a root: each route serves every root (rewriteUrl above) and
  // reads the request's root for its links, documents and messages.
  const base = { prefix: `/${NAMESPACE}`, siteTimezone: config.siteTimezone, publicUrl: config.publicUrl, caches };
  app.register(discoveryRoutes, { ...base, docs });
  registerResourceRoutes(app, base, services);
  installDocsUi(app, { roots: ROOTS, docs });
  // `/`, `/en`, `/de`, `/fr`: links to the above for a visitor (outside the namespace, not catalogued).
  app.register(homeRoutes, { docs });
  return app;
}

/** Fastify's own options: limits and timeouts, logging, the language roots and the router's errors. */
function serverOptions(config: Config, logger: AppOptions['logger']): FastifyHttpOptions<RawServerDefault, FastifyBaseLogger> {
  return {
    // Logging, and the rule that keeps credentials out of it: src/logger.ts.
    ...appLogging(logger, config.logLevel),
    bodyLimit: config.bodyLimit,
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.requestTimeoutMs,
    keepAliveTimeout: 72_000,
    trustProxy: config.trustProxy,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    // Health probes' request lines at debug, everything else as Fastify logs it.
    logController: new ProbeQuietLogController(),
    clientErrorHandler,
    // Reliability: router errors (bad percent-encoding, over-long parameters) in the error shape too.
    frameworkErrors: (error, request, reply) => replyWithRouterError(error, request, reply),
    // The language roots: the router sees the namespace's and the home page's URLs without their
    // root, so their routes are registered once for every root (src/routes/roots.ts); the
    // namespace's also under the drop-in path `/wp-json/tribe/events/v1` (TEC_COMPAT_PATH).
    rewriteUrl: (request) => routedUrl(request.url ?? '/', config.tecCompatPath),
    routerOptions: {
      // `rest_url` links end in a slash (`…/events/`), as the reference's do.
      ignoreTrailingSlash: true,
      maxParamLength: 500,
      querystringParser: parseQueryString,
    },
  };
}

/** The routes of the resources and of incremental sync, in the reference's order (ours last). */
function registerResourceRoutes(app: FastifyInstance, base: ApiRouteOptions & { prefix: string }, services: Services): void {
  const { events, venues, organizers, categories, tags, tombstones } = services;
  app.register(eventRoutes, { ...base, events });
  app.register(venueRoutes, venueRouteOptions(base, venues));
  app.register(organizerRoutes, organizerRouteOptions(base, organizers));
  app.register(categoryRoutes, categoryRouteOptions(base, categories));
  app.register(tagRoutes, tagRouteOptions(base, tags));
  app.register(syncRoutes, { ...base, tombstones });
  app.register(seriesRoutes, { ...base, events });
}

/** The body parsers: JSON (an empty body is no body) and form bodies. */
function installBodyParsing(app: FastifyInstance): void {
  // The API speaks JSON and form bodies only; anything else (text/plain included) is a 415.
  app.removeContentTypeParser('text/plain');
  // An empty JSON body is no body, on every method: many clients send `Content-Type:
  // application/json` on every request, a DELETE included, so the route answers as if nothing was
  // sent. Only zero bytes count as empty: whitespace alone is not JSON and stays a 400
  // rest_invalid_json. Anything else goes to Fastify's own parser, with the poisoning actions
  // of the app's options and the same body limit.
  const { onProtoPoisoning = 'error', onConstructorPoisoning = 'error' } = app.initialConfig;
  const parseJson = app.getDefaultJsonParser(onProtoPoisoning, onConstructorPoisoning);
  app.addContentTypeParser<string>('application/json', { parseAs: 'string' }, (request, text, done) => {
    if (text.length === 0) return done(null, undefined);
    return parseJson(request, text, done);
  });
  app.register(formbody, { parser: (body: string) => parseQueryString(body) });
}

/** CORS for the configured origins, an OPTIONS that is not a preflight answered as without it. */
function installCors(app: FastifyInstance, origins: readonly string[]): void {
  // @fastify/cors answers an OPTIONS that is not a preflight with a text/plain 400; the API
  // answers it with the error shape's 404 rest_no_route, as without CORS.
  app.addHook('onRequest', async (request) => {
    if (request.method === 'OPTIONS' && (request.headers.origin === undefined || request.headers['access-control-request-method'] === undefined)) {
      throw new NoRouteError();
    }
  });
  app.register(cors, {
    origin: origins.includes('*') ? '*' : [...origins],
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    // A browser client may send Idempotency-Key and read whether a create was a replay.
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
    exposedHeaders: ['X-TEC-Total', 'X-TEC-TotalPages', 'Link', 'Idempotent-Replayed'],
    maxAge: 600,
  });
}
