/**
 * The documentation of each language root, built from the route catalogue: the namespace index
 * (computed per request: its defaults follow the clock) and the OpenAPI document (built once per
 * language after start-up, then given the request's server URL). Both are for the root the
 * request came in on (its language, and its links).
 *
 * The OpenAPI document is also kept as text, JSON and YAML, per language and server URL: writing
 * it takes tens of milliseconds of blocking work (YAML most), which anonymous clients could
 * otherwise make the server do on every request. Server URLs are bounded by ALLOWED_HOSTS (hosts,
 * though any port), and the texts by a small LRU.
 */
import { type FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { stringify as toYaml } from 'yaml';
import { type Language, languageOfRoot } from '../i18n/index.js';
import { apiPathOf, namespaceOf, rootOf } from '../routes/roots.js';
import { type IndexContext, type NamespaceIndex, buildNamespaceIndex } from './namespace-index.js';
import {
  EventFeedQuerySchema,
  EventFeedQueryWithoutGeolocationSchema,
  EventListQuerySchema,
  EventListQueryWithoutGeolocationSchema,
} from '../schemas/events.js';
import { type OpenApiDocument, buildOpenApiDocument, withServer } from './openapi.js';
import { type CatalogRoute, type RouteCatalog } from './route-catalog.js';

export interface ApiDocsOptions {
  catalog: RouteCatalog;
  siteTimezone: string;
  perPageMax: number;
  rateLimits: { reads: number; writes: number };
  /** GEOLOC_ENABLED: off, the documents leave out what only geolocation offers. */
  geolocation: boolean;
}

export interface ApiDocs {
  /** `<origin><root>/<namespace>` (or the drop-in path): the namespace base the request came in on. */
  apiBase(request: FastifyRequest): string;
  /** The reference UI of the request's root (src/docs/ui.ts). */
  uiUrl(request: FastifyRequest): string;
  openapi(request: FastifyRequest): OpenApiDocument;
  /** The request's OpenAPI document as UTF-8 text, written once per language and server URL. */
  openapiText(request: FastifyRequest, format: 'json' | 'yaml'): Buffer;
  index(request: FastifyRequest, context: string): NamespaceIndex;
}

/** Texts of the OpenAPI document kept at once: 4 roots × a few hosts and ports. */
const MAX_DOCUMENT_TEXTS = 32;

/** Where the reference UI of a root is mounted: `/docs`, `/en/docs`, `/de/docs`, `/fr/docs`. */
export const uiPrefix = (root: string): string => `${root}/docs`;

/**
 * The query schemas documented in place of a route's own when geolocation is off. The routes keep
 * validating with their own schemas (they do not depend on the setting); the documents only offer
 * what the server does with the setting it has.
 */
const WITHOUT_GEOLOCATION = new Map<unknown, unknown>([
  [EventListQuerySchema, EventListQueryWithoutGeolocationSchema],
  [EventFeedQuerySchema, EventFeedQueryWithoutGeolocationSchema],
]);

function withoutGeolocation(route: CatalogRoute): CatalogRoute {
  const querystring = WITHOUT_GEOLOCATION.get(route.schema.querystring);
  return querystring === undefined ? route : { ...route, schema: { ...route.schema, querystring } };
}

export function createApiDocs(options: ApiDocsOptions): ApiDocs {
  const { catalog } = options;
  const routes = () => (options.geolocation ? catalog.routes() : catalog.routes().map(withoutGeolocation));
  const documents = new Map<Language, ReturnType<typeof buildOpenApiDocument>>();
  const origin = (request: FastifyRequest) => request.linkOrigin;
  const apiBase = (request: FastifyRequest) => `${origin(request)}${apiPathOf(request)}`;
  const uiUrl = (request: FastifyRequest) => `${origin(request)}${uiPrefix(rootOf(request))}/`;
  const texts = new LRUCache<string, { json?: Buffer; yaml?: Buffer }>({ max: MAX_DOCUMENT_TEXTS });

  const openapi = (request: FastifyRequest): OpenApiDocument => {
    const language = languageOfRoot(rootOf(request));
    let document = documents.get(language);
    if (document === undefined) {
      // Routes are all registered once the server answers requests, so the document is final.
      document = buildOpenApiDocument(routes(), { language, rateLimits: options.rateLimits });
      documents.set(language, document);
    }
    return withServer(document, apiBase(request));
  };

  return {
    apiBase,
    uiUrl,
    openapi,
    openapiText(request, format) {
      const key = `${languageOfRoot(rootOf(request))}\n${apiBase(request)}`;
      let entry = texts.get(key);
      if (entry === undefined) texts.set(key, (entry = {}));
      if (format === 'json') return (entry.json ??= Buffer.from(JSON.stringify(openapi(request))));
      return (entry.yaml ??= Buffer.from(toYaml(openapi(request))));
    },
    index(request, context) {
      const ctx: IndexContext = {
        namespace: namespaceOf(request),
        apiBase: apiBase(request),
        uiUrl: uiUrl(request),
        language: languageOfRoot(rootOf(request)),
        context,
        now: new Date(),
        siteTimezone: options.siteTimezone,
        perPageMax: options.perPageMax,
      };
      return buildNamespaceIndex(routes(), ctx);
    },
  };
}
