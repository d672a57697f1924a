/**
 * The namespace index (`GET /{ns}`) and the OpenAPI document (`GET /{ns}/doc`),
 * both in the language of the root the request came in on.
 */
import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type ApiDocs } from '../docs/api-docs.js';
import { ApiError } from '../errors.js';
import { ErrorResponses } from '../schemas/common.js';
import { IndexQuerySchema, NamespaceIndexSchema, OpenApiDocumentSchema } from '../schemas/discovery.js';
import { type ApiRouteOptions } from './context.js';
import { NAMESPACE, namespaceOf } from './roots.js';

export interface DiscoveryRoutesOptions extends ApiRouteOptions {
  docs: ApiDocs;
}

export const discoveryRoutes: FastifyPluginAsyncTypebox<DiscoveryRoutesOptions> = async (app, options) => {
  const { docs } = options;

  // `''`: the namespace base itself (with or without a trailing slash).
  app.get(
    '',
    { config: { responseCache: true }, schema: { querystring: IndexQuerySchema, response: { 200: NamespaceIndexSchema, ...ErrorResponses } } },
    async (request) => {
      // WordPress answers a namespace it does not serve the same way (WP_REST_Server::get_namespace_index).
      // On the drop-in path both names are this namespace (the parameter's default is ours).
      if (request.query.namespace !== undefined && request.query.namespace !== NAMESPACE && request.query.namespace !== namespaceOf(request)) {
        throw new ApiError(404, 'rest_invalid_namespace', 'errorMessage.rest_invalid_namespace');
      }
      return docs.index(request, request.query.context ?? 'view');
    },
  );

  // The document's text is written once per language and server URL (src/docs/api-docs.ts); the
  // response schema still documents it.
  app.get('/doc', { config: { responseCache: true }, schema: { response: { 200: OpenApiDocumentSchema, ...ErrorResponses } } }, async (request, reply) =>
    reply.type('application/json; charset=utf-8').send(docs.openapiText(request, 'json') as never),
  );
};
