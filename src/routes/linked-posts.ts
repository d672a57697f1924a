/**
 * The route table of a linked-post resource (venues, organizers): list, create, and read / update /
 * delete by id or slug. Handlers stay thin: validated input → service → serializer.
 */
import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type TObject, type TSchema } from '@sinclair/typebox';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { ErrorResponses, IdParamsSchema, SlugParamsSchema } from '../schemas/common.js';
import { LINKED_POST_GENERATED_FIELDS } from '../schemas/venues.js';
import { type SerializeContext } from '../serialize/context.js';
import { listHeaders, listLinks } from '../serialize/list.js';
import { type LinkedPostDoc, type LinkedPostListParams, type LinkedPostService } from '../services/linked-posts.js';
import { type ApiRouteOptions, serializeContext } from './context.js';
import { ignoreBodyFields } from './hooks.js';

export interface LinkedPostRoutesOptions<D extends LinkedPostDoc> extends ApiRouteOptions {
  /** Collection path and envelope key: `venues` or `organizers`. */
  path: 'venues' | 'organizers';
  service: LinkedPostService<D, never>;
  serialize: (doc: D, ctx: SerializeContext) => unknown;
  schemas: { create: TObject; patch: TObject; listQuery: TObject; response: TSchema; listResponse: TSchema };
}

const WRITE = ['POST', 'PUT', 'PATCH'];
const stripGenerated = ignoreBodyFields(LINKED_POST_GENERATED_FIELDS);

export function linkedPostRoutes<D extends LinkedPostDoc>(): FastifyPluginAsyncTypebox<LinkedPostRoutesOptions<D>> {
  return async (app, options) => {
    const { path, service, serialize, schemas } = options;
    const kind = service.definition.kind;
    const ID = `/${path}/:id(^\\d+$)`;
    const SLUG = `/${path}/by-slug/:slug`;
    const single = { 200: schemas.response, ...ErrorResponses };
    type Keyed = FastifyRequest<{ Params: { id?: number; slug?: string } }>;
    const keyOf = (request: Keyed) => (request.params.id !== undefined ? { id: request.params.id } : { slug: request.params.slug as string });
    const present = (request: FastifyRequest, doc: D, isSingle = false) => serialize(doc, serializeContext(request, options, isSingle));
    // The body was validated against the route's schema; the service re-checks values.
    const bodyOf = (request: FastifyRequest) => request.body as never;

    app.get(
      `/${path}`,
      { schema: { querystring: schemas.listQuery, response: { 200: schemas.listResponse, ...ErrorResponses } } },
      async (request, reply: FastifyReply) => {
        const query = request.query as LinkedPostListParams;
        const { items, total, paging, args } = await service.list(query, request.caller);
        if (paging.page > 1 && items.length === 0) {
          throw new ApiError(404, `${kind}-archive-page-not-found`, `errorMessage.${kind}-archive-page-not-found`);
        }
        const ctx = serializeContext(request, options, false);
        const meta = { page: paging.page, perPage: paging.perPage, total, args };
        const links = listLinks(`${ctx.apiBase}/${path}`, meta);
        void reply.headers(listHeaders(links, meta));
        return { [path]: items.map((doc) => serialize(doc, ctx)), ...links, total, total_pages: Math.ceil(total / paging.perPage) };
      },
    );

    app.post(
      `/${path}`,
      // `idempotency`: honours Idempotency-Key (src/plugins/idempotency.ts), creating under request.reservedId.
      {
        config: { access: 'write', idempotency: 'posts' },
        preValidation: stripGenerated,
        schema: { body: schemas.create, response: { 201: schemas.response, ...ErrorResponses } },
      },
      async (request, reply) => {
        const { doc } = await service.create(bodyOf(request), request.caller!, request.reservedId ?? undefined);
        return reply.code(201).send(present(request, doc));
      },
    );

    for (const [url, params] of [
      [ID, IdParamsSchema],
      [SLUG, SlugParamsSchema],
    ] as const) {
      app.get(url, { schema: { params, response: single } }, async (request) =>
        present(request, await service.get(keyOf(request as Keyed), request.caller), true),
      );
      app.route({
        method: WRITE,
        url,
        config: { access: 'write' },
        preValidation: stripGenerated,
        schema: { params, body: schemas.patch, response: single },
        handler: async (request) => present(request, await service.update(keyOf(request as Keyed), bodyOf(request))),
      });
      app.delete(url, { config: { access: 'write' }, schema: { params, response: single } }, async (request) =>
        present(request, await service.trash(keyOf(request as Keyed))),
      );
    }
  };
}
