/**
 * The route table of a linked-post resource (venues, organizers): list, create, and read / update /
 * delete by id or slug. Handlers stay thin: validated input → service → serializer.
 */
import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type TObject, type TSchema } from '@sinclair/typebox';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { isAbsoluteDateInput } from '../lib/dates/index.js';
import { MODIFIED_PARAMS } from '../query/modified.js';
import { ErrorResponses, IdParamsSchema, SlugParamsSchema } from '../schemas/common.js';
import { LINKED_POST_GENERATED_FIELDS } from '../schemas/venues.js';
import { type SerializeContext } from '../serialize/context.js';
import { listHeaders, listLinks } from '../serialize/list.js';
import { lastModifiedOf } from '../serialize/linked-posts.js';
import { isTruthy } from '../services/input.js';
import { type LinkedPostDoc, type LinkedPostListParams, type LinkedPostService } from '../services/linked-posts.js';
import { type ApiRouteOptions, serializeContext } from './context.js';
import { ignoreBodyFields } from './hooks.js';
import { serialized, withIfMatch } from './preconditions.js';

export interface LinkedPostRoutesOptions<D extends LinkedPostDoc> extends ApiRouteOptions {
  /** Collection path and envelope key: `venues` or `organizers`. */
  path: 'venues' | 'organizers';
  service: LinkedPostService<D, never>;
  serialize: (doc: D, ctx: SerializeContext) => unknown;
  schemas: { create: TObject; patch: TObject; listQuery: TObject; response: TSchema; listResponse: TSchema };
}

const WRITE = ['POST', 'PUT', 'PATCH'];

function listMayBeKept(request: FastifyRequest): boolean {
  const query = request.query as LinkedPostListParams;
  return !isTruthy(query.only_with_upcoming ?? false) && MODIFIED_PARAMS.every((name) => query[name] === undefined || isAbsoluteDateInput(query[name]));
}
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
    // `If-Match` compares with the bytes a GET of the record answers (src/routes/preconditions.ts).
    const asRead = (request: FastifyRequest, reply: FastifyReply) => (current: D) => serialized(reply, present(request, current, true) as object);
    // The body was validated against the route's schema; the service re-checks values.
    const bodyOf = (request: FastifyRequest) => request.body as never;

    app.get(
      `/${path}`,
      {
        // `only_with_upcoming` moves with the clock at every event's start, a relative modification
        // bound (`-1 hour`) with every second: not kept.
        config: { responseCache: listMayBeKept },
        schema: { querystring: schemas.listQuery, response: { 200: schemas.listResponse, ...ErrorResponses } },
      },
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
      app.get(url, { config: { responseCache: true }, schema: { params, response: single } }, async (request, reply) => {
        const doc = await service.get(keyOf(request as Keyed), request.caller);
        void reply.header('last-modified', lastModifiedOf(doc, new Date()).toUTCString());
        return present(request, doc, true);
      });
      app.route({
        method: WRITE,
        url,
        config: { access: 'write' },
        preValidation: stripGenerated,
        schema: { params, body: schemas.patch, response: single },
        handler: async (request, reply) =>
          present(request, await withIfMatch(request, asRead(request, reply), (check) => service.update(keyOf(request as Keyed), bodyOf(request), check))),
      });
      app.delete(url, { config: { access: 'write' }, schema: { params, response: single } }, async (request, reply) =>
        present(request, await withIfMatch(request, asRead(request, reply), (check) => service.trash(keyOf(request as Keyed), check))),
      );
    }
  };
}
