/**
 * The documentation of each language root, built from the route catalogue: the namespace index
 * (computed per request: its defaults follow the clock) and the OpenAPI document (built once per
 * root after start-up, then given the request's server URL).
 */
import { type FastifyRequest } from 'fastify';
import { languageOfRoot } from '../i18n/index.js';
import { type IndexContext, type NamespaceIndex, buildNamespaceIndex } from './namespace-index.js';
import { EventListQuerySchema, EventListQueryWithoutGeolocationSchema } from '../schemas/events.js';
import { type OpenApiDocument, buildOpenApiDocument, withServer } from './openapi.js';
import { type CatalogRoute, type RouteCatalog } from './route-catalog.js';

export interface ApiDocsOptions {
  catalog: RouteCatalog;
  namespace: string;
  siteTimezone: string;
  perPageMax: number;
  rateLimits: { reads: number; writes: number };
  /** GEOLOC_ENABLED: off, the documents leave out what only geolocation offers. */
  geolocation: boolean;
}

export interface ApiDocs {
  /** `<origin><root>/<namespace>`: the namespace base the request came in on (design §4). */
  apiBase(request: FastifyRequest, root: string): string;
  /** The reference UI of a root (src/docs/ui.ts). */
  uiUrl(request: FastifyRequest, root: string): string;
  openapi(request: FastifyRequest, root: string): OpenApiDocument;
  index(request: FastifyRequest, root: string, context: string): NamespaceIndex;
}

/** Where the reference UI of a root is mounted: `/docs`, `/en/docs`, `/de/docs`, `/fr/docs`. */
export const uiPrefix = (root: string): string => `${root}/docs`;

/**
 * The query schemas documented in place of a route's own when geolocation is off. The routes keep
 * validating with their own schemas (they do not depend on the setting); the documents only offer
 * what the server does with the setting it has.
 */
const WITHOUT_GEOLOCATION = new Map<unknown, unknown>([[EventListQuerySchema, EventListQueryWithoutGeolocationSchema]]);

function withoutGeolocation(route: CatalogRoute): CatalogRoute {
  const querystring = WITHOUT_GEOLOCATION.get(route.schema.querystring);
  return querystring === undefined ? route : { ...route, schema: { ...route.schema, querystring } };
}

export function createApiDocs(options: ApiDocsOptions): ApiDocs {
  const { catalog, namespace } = options;
  const routes = (root: string) => (options.geolocation ? catalog.routes(root) : catalog.routes(root).map(withoutGeolocation));
  const documents = new Map<string, ReturnType<typeof buildOpenApiDocument>>();
  const origin = (request: FastifyRequest) => `${request.protocol}://${request.host}`;
  const apiBase = (request: FastifyRequest, root: string) => `${origin(request)}${root}/${namespace}`;
  const uiUrl = (request: FastifyRequest, root: string) => `${origin(request)}${uiPrefix(root)}/`;

  return {
    apiBase,
    uiUrl,
    openapi(request, root) {
      let document = documents.get(root);
      if (document === undefined) {
        // Routes are all registered once the server answers requests, so the document is final.
        document = buildOpenApiDocument(routes(root), { language: languageOfRoot(root), rateLimits: options.rateLimits });
        documents.set(root, document);
      }
      return withServer(document, apiBase(request, root));
    },
    index(request, root, context) {
      const ctx: IndexContext = {
        namespace,
        apiBase: apiBase(request, root),
        uiUrl: uiUrl(request, root),
        language: languageOfRoot(root),
        context,
        now: new Date(),
        siteTimezone: options.siteTimezone,
        perPageMax: options.perPageMax,
      };
      return buildNamespaceIndex(routes(root), ctx);
    },
  };
}
