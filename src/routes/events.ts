import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ErrorResponses, IdParamsSchema, SlugParamsSchema } from '../schemas/common.js';
import {
  EVENT_GENERATED_FIELDS,
  EventCreateSchema,
  EventDeleteQuerySchema,
  EventListQuerySchema,
  EventListResponseSchema,
  EventPatchByIdSchema,
  EventPatchSchema,
  EventReadQuerySchema,
  EventResponseSchema,
  EventWriteQuerySchema,
} from '../schemas/events.js';
import { SeriesResponseSchema } from '../schemas/series.js';
import { ApiError } from '../errors.js';
import { totalPages } from '../query/paging.js';
import { redactProtected, serializeEvent, serializeEventJson } from '../serialize/events.js';
import { JSON_CONTENT_TYPE, type JsonItem, jsonEnvelope, listHeaders, listLinks, releaseWhenSent, withJsonMember } from '../serialize/list.js';
import { type EventsService } from '../services/events/index.js';
import { type EventInput } from '../services/events/fields.js';
import { type Scope } from '../services/recurrence/index.js';
import { type ApiRouteOptions, serializeContext } from './context.js';
import { eventFeedRoutes } from './event-feeds.js';
import { ignoreBodyFields } from './hooks.js';
import { listMayBeKept } from './list-cache.js';
import { serialized, withIfMatch } from './preconditions.js';
import { presentSeries } from './series.js';

export interface EventRoutesOptions extends ApiRouteOptions {
  events: EventsService;
}

const ID = '/events/:id(^\\d+$)';
const SLUG = '/events/by-slug/:slug';
const WRITE = ['POST', 'PUT', 'PATCH'] as const;
const single = { 200: EventResponseSchema, ...ErrorResponses };
const stripGenerated = ignoreBodyFields(EVENT_GENERATED_FIELDS);

export const eventRoutes: FastifyPluginAsyncTypebox<EventRoutesOptions> = async (app, options) => {
  const { events } = options;
  const present = (request: Parameters<typeof serializeContext>[0], result: Awaited<ReturnType<EventsService['get']>>, isSingle = false) =>
    serializeEvent(result.doc, result.relations, serializeContext(request, options, isSingle));

  app.get(
    '/events',
    { config: { responseCache: listMayBeKept }, schema: { querystring: EventListQuerySchema, response: { 200: EventListResponseSchema, ...ErrorResponses } } },
    async (request, reply) => {
      const { items, total, paging, args } = await events.list(request.query, request.caller);
      if (paging.page > 1 && items.length === 0) {
        throw new ApiError(404, 'event-archive-page-not-found', 'errorMessage.event-archive-page-not-found');
      }
      const ctx = serializeContext(request, options, false);
      const meta = { page: paging.page, perPage: paging.perPage, total, args };
      const links = listLinks(`${ctx.apiBase}/events`, meta);
      // Produced one at a time as jsonEnvelope copies them (remembered encodings are arena views).
      function* encoded(): Generator<JsonItem> {
        for (const r of items) {
          const json = r.locked
            ? Buffer.from(JSON.stringify(redactProtected(serializeEvent(r.doc, r.relations, ctx))))
            : serializeEventJson(r.doc, r.relations, ctx);
          yield 'distance' in r ? withJsonMember(json, 'distance', r.distance) : json;
        }
      }
      // Pre-encoded (jsonEnvelope): the response schema still documents it, and a test checks the
      // bytes against what the schema's serializer writes for the same list.
      const body = jsonEnvelope('events', encoded(), { ...links, total, total_pages: totalPages(total, paging.perPage) });
      releaseWhenSent(reply.raw, body);
      return reply
        .headers(listHeaders(links, meta))
        .type(JSON_CONTENT_TYPE)
        .send(body as never);
    },
  );

  app.post(
    '/events',
    // `idempotency`: honours Idempotency-Key (src/plugins/idempotency.ts), creating under request.reservedId.
    {
      config: { access: 'write', idempotency: 'posts' },
      preValidation: stripGenerated,
      // With `recurrence` the answer is the new series (GET /series/{id}).
      schema: { body: EventCreateSchema, response: { 201: Type.Union([EventResponseSchema, SeriesResponseSchema]), ...ErrorResponses } },
    },
    async (request, reply) => {
      const { body } = request;
      const reservedId = request.reservedId ?? undefined;
      if (body.recurrence !== undefined) {
        const view = await events.createSeries({ ...body, recurrence: body.recurrence }, request.caller!, reservedId);
        return reply.code(201).send(presentSeries(request, options, view, false));
      }
      return reply.code(201).send(present(request, await events.create(body, request.caller!, reservedId)));
    },
  );

  app.get(ID, { config: { responseCache: true }, schema: { params: IdParamsSchema, querystring: EventReadQuerySchema, response: single } }, async (request) =>
    present(request, await events.get({ id: request.params.id }, { caller: request.caller, ...request.query }), true),
  );
  app.get(
    SLUG,
    { config: { responseCache: true }, schema: { params: SlugParamsSchema, querystring: EventReadQuerySchema, response: single } },
    async (request) => present(request, await events.get({ slug: request.params.slug }, { caller: request.caller, ...request.query }), true),
  );

  // `If-Match` compares with the bytes a GET of the event answers this caller (src/routes/preconditions.ts).
  type Current = Awaited<ReturnType<EventsService['get']>>;
  const asRead = (request: FastifyRequest, reply: FastifyReply) => (current: Current) => serialized(reply, present(request, current, true));

  type Keyed = FastifyRequest<{ Params: { id?: number; slug?: string }; Querystring: { scope?: Scope } }>;
  const keyOf = (request: Keyed) => (request.params.id !== undefined ? { id: request.params.id } : { slug: request.params.slug as string });
  for (const [url, params, body] of [
    [ID, IdParamsSchema, EventPatchByIdSchema],
    [SLUG, SlugParamsSchema, EventPatchSchema],
  ] as const) {
    app.route({
      method: [...WRITE],
      url,
      config: { access: 'write' },
      preValidation: stripGenerated,
      schema: { params, querystring: EventWriteQuerySchema, body, response: single },
      handler: async (request, reply) =>
        present(
          request,
          await withIfMatch(request, asRead(request, reply), (check) =>
            events.update(keyOf(request as Keyed), request.body as EventInput, request.caller!, check, (request as Keyed).query.scope),
          ),
        ),
    });
    app.delete(url, { config: { access: 'write' }, schema: { params, querystring: EventDeleteQuerySchema, response: single } }, async (request, reply) =>
      present(
        request,
        await withIfMatch(request, asRead(request, reply), (check) => events.trash(keyOf(request as Keyed), request.caller!, check, request.query.scope)),
      ),
    );
  }

  // The iCalendar feeds, after the JSON routes (under this plugin's prefix already).
  await app.register(eventFeedRoutes, { ...options, prefix: '' });
};
