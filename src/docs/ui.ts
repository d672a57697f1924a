/**
 * The API reference for people: Swagger UI at `<root>/docs` for every root, served from
 * the installed packages (no CDN, works offline). It shows the root's own OpenAPI document, whose
 * server is the namespace base the page was loaded from, so "Try it out" calls this very server
 * under the same root.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { type FastifyInstance } from 'fastify';
import { languageOfRoot, translate } from '../i18n/index.js';
import { type ApiDocs, uiPrefix } from './api-docs.js';
import { API_VERSION, OPENAPI_VERSION } from './openapi.js';

/**
 * Only this origin: scripts and styles come from the package, "Try it out" calls this server.
 * Swagger UI sets inline styles; `upgrade-insecure-requests` (the plugin's default) is left out so
 * that a plain-http deployment can still try requests.
 */
const CSP = {
  'default-src': ["'self'"],
  'base-uri': ["'self'"],
  'connect-src': ["'self'"],
  'font-src': ["'self'", 'data:'],
  'frame-ancestors': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'object-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
};

export function installDocsUi(app: FastifyInstance, { roots, docs }: { roots: readonly string[]; docs: ApiDocs }): void {
  // @fastify/swagger-ui requires @fastify/swagger. Our document is generated per root and request
  // (src/docs/openapi.ts), so @fastify/swagger only holds a placeholder in static mode and the UI
  // receives the real document through `transformSpecification`.
  void app.register(swagger, {
    mode: 'static',
    specification: { document: { openapi: OPENAPI_VERSION, info: { title: 'calendar-service', version: API_VERSION }, paths: {} } },
  });
  // Mounted under each root, unlike the API's routes (src/routes/roots.ts): the plugin writes its
  // page at registration, with the mount point in its asset links and the root's title, and its
  // routes have no response schemas, so the copies cost little at start-up. Each in its own
  // scope: the plugin decorates its instance and must not clash.
  for (const root of roots) {
    void app.register(async (scope) => {
      // The plugin's `/json` and `/yaml` routes would write the document on every request: they
      // are answered here, before it, with the text written once (src/docs/api-docs.ts).
      const documentUrls = new Map<string, { format: 'json' | 'yaml'; type: string }>([
        [`${uiPrefix(root)}/json`, { format: 'json', type: 'application/json; charset=utf-8' }],
        [`${uiPrefix(root)}/yaml`, { format: 'yaml', type: 'application/x-yaml' }],
      ]);
      scope.addHook('onRequest', async (request, reply) => {
        const document = documentUrls.get(request.routeOptions.url ?? '');
        if (document !== undefined) return reply.type(document.type).send(docs.openapiText(request, document.format));
      });
      await scope.register(swaggerUi, {
        routePrefix: uiPrefix(root),
        staticCSP: CSP,
        transformSpecificationClone: false,
        transformSpecification: (_placeholder, request) => docs.openapi(request),
        theme: { title: translate(languageOfRoot(root), 'api.title') ?? 'Calendar REST API' },
        uiConfig: { deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0, displayRequestDuration: true },
      });
    });
  }
}
