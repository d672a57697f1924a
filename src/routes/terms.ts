/**
 * The route table of a taxonomy (categories, tags): list, create, and read / update / delete by id.
 * Terms have no by-slug routes.
 */
import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type TObject, type TSchema } from '@sinclair/typebox';
import { type FastifyReply } from 'fastify';
import { ErrorResponses, IdParamsSchema } from '../schemas/common.js';
import { listHeaders, listLinks } from '../serialize/list.js';
import { serializeTerm } from '../serialize/terms.js';
import { type TermInput, type TermsService } from '../services/terms.js';
import { type ApiRouteOptions, serializeContext } from './context.js';
import { ignoreBodyFields } from './hooks.js';
import { serialized, withIfMatch } from './preconditions.js';

export interface TermRoutesOptions extends ApiRouteOptions {
  service: TermsService;
  schemas: { create: TObject; patch: TObject; listQuery: TObject; response: TSchema; listResponse: TSchema };
}

/** Representation fields a client may echo back; ignored on writes. */
const TERM_GENERATED_FIELDS = ['id', 'count', 'taxonomy', 'meta', 'url', 'urls', 'link', '_links'];

export const termRoutes: FastifyPluginAsyncTypebox<TermRoutesOptions> = async (app, options) => {
  const { service, schemas } = options;
  const path = service.taxonomy;
  const ID = `/${path}/:id(^\\d+$)`;
  const single = { 200: schemas.response, ...ErrorResponses };
  const stripGenerated = ignoreBodyFields(TERM_GENERATED_FIELDS);
  const present = (request: Parameters<typeof serializeContext>[0], result: { doc: Parameters<typeof serializeTerm>[0]; count: number }) =>
    serializeTerm(result.doc, path, result.count, serializeContext(request, options, false));

  const list = { config: { responseCache: true }, schema: { querystring: schemas.listQuery, response: { 200: schemas.listResponse, ...ErrorResponses } } };
  // `If-Match` compares with the bytes a GET of the term answers (src/routes/preconditions.ts).
  const asRead = (request: Parameters<typeof serializeContext>[0], reply: FastifyReply) => (current: Parameters<typeof present>[1]) =>
    serialized(reply, present(request, current));
  app.get(`/${path}`, list, async (request, reply) => {
    const { items, total, paging, args } = await service.list(request.query, request.caller);
    const ctx = serializeContext(request, options, false);
    const meta = { page: paging.page, perPage: paging.perPage, total, args };
    // Past the last page a term list is an empty 200, not a 404.
    const links = listLinks(`${ctx.apiBase}/${path}`, meta, true);
    void reply.headers(listHeaders(links, meta));
    return {
      rest_url: links.rest_url,
      total,
      total_pages: Math.ceil(total / paging.perPage),
      [path]: items.map((t) => serializeTerm(t.doc, path, t.count, ctx)),
      ...(links.next_rest_url ? { next_rest_url: links.next_rest_url } : {}),
      ...(links.previous_rest_url ? { previous_rest_url: links.previous_rest_url } : {}),
    };
  });

  app.post(
    `/${path}`,
    // `idempotency`: honours Idempotency-Key (src/plugins/idempotency.ts), creating under request.reservedId.
    {
      config: { access: 'write', idempotency: 'terms' },
      preValidation: stripGenerated,
      schema: { body: schemas.create, response: { 201: schemas.response, ...ErrorResponses } },
    },
    async (request, reply) =>
      reply.code(201).send(present(request, await service.create(request.body as unknown as TermInput & { name: string }, request.reservedId ?? undefined))),
  );
  app.get(ID, { config: { responseCache: true }, schema: { params: IdParamsSchema, response: single } }, async (request) =>
    present(request, await service.get(request.params.id, request.caller)),
  );
  app.route({
    method: ['POST', 'PUT', 'PATCH'],
    url: ID,
    config: { access: 'write' },
    preValidation: stripGenerated,
    schema: { params: IdParamsSchema, body: schemas.patch, response: single },
    handler: async (request, reply) =>
      present(request, await withIfMatch(request, asRead(request, reply), (check) => service.update(request.params.id, request.body as TermInput, check))),
  });
  app.delete(ID, { config: { access: 'write' }, schema: { params: IdParamsSchema, response: single } }, async (request, reply) =>
    present(request, await withIfMatch(request, asRead(request, reply), (check) => service.remove(request.params.id, check))),
  );
};
