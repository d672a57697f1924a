/**
 * iCalendar feeds of events (RFC 5545), for calendar clients to subscribe to: `GET /events.ics`
 * takes every filter of `GET /events` and answers its first ICS_MAX_EVENTS events without paging;
 * `GET /events/{id}.ics` and `/events/by-slug/{slug}.ics` answer one event. The same callers see
 * the same events as in JSON; errors are the API's JSON errors. docs/api.md describes them.
 */
import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { languageOfRoot } from '../i18n/index.js';
import { ErrorResponses, IdParamsSchema, SlugParamsSchema } from '../schemas/common.js';
import { EventCalendarResponse, EventFeedQuerySchema, EventFeedResponse, EventReadQuerySchema } from '../schemas/events.js';
import { CALENDAR_CONTENT_TYPE, type FeedItem, feedName, serializeCalendar, siteHost } from '../serialize/ics/calendar.js';
import { type EventsService } from '../services/events/index.js';
import { type ApiRouteOptions, serializeContext } from './context.js';
import { listMayBeKept } from './list-cache.js';
import { rootOf } from './roots.js';

export interface EventFeedRoutesOptions extends ApiRouteOptions {
  events: EventsService;
}

/** `/events/12.ics`: the id, then the file extension (the JSON read's path is `/events/:id(^\d+$)`). */
const ID = '/events/:id(^\\d+).ics';
const SLUG = '/events/by-slug/:slug.ics';

export const eventFeedRoutes: FastifyPluginAsyncTypebox<EventFeedRoutesOptions> = async (app, options) => {
  const { events } = options;
  const send = (request: FastifyRequest, reply: FastifyReply, items: Iterable<FeedItem>, name: (site: string) => string) => {
    const ctx = serializeContext(request, options, false);
    return reply.type(CALENDAR_CONTENT_TYPE).send(serializeCalendar(items, ctx, name(siteHost(ctx))));
  };

  app.get(
    '/events.ics',
    { config: { responseCache: listMayBeKept }, schema: { querystring: EventFeedQuerySchema, response: { 200: EventFeedResponse, ...ErrorResponses } } },
    async (request, reply) => {
      const { items, total, names } = await events.feed(request.query, request.caller);
      void reply.header('x-tec-total', String(total));
      return send(request, reply, items, (site) => feedName(languageOfRoot(rootOf(request)), site, names));
    },
  );

  type Keyed = FastifyRequest<{ Params: { id?: number; slug?: string } }>;
  const keyOf = (request: Keyed) => (request.params.id !== undefined ? { id: request.params.id } : { slug: request.params.slug as string });
  for (const [url, params] of [
    [ID, IdParamsSchema],
    [SLUG, SlugParamsSchema],
  ] as const) {
    app.get(
      url,
      { config: { responseCache: true }, schema: { params, querystring: EventReadQuerySchema, response: { 200: EventCalendarResponse, ...ErrorResponses } } },
      async (request, reply) => {
        // A single read: the event in full, or the read's error (a protected event needs its password).
        const { doc, relations } = await events.get(keyOf(request as Keyed), { caller: request.caller, ...request.query });
        return send(request, reply, [{ doc, relations, locked: false }], () => doc.title);
      },
    );
  }
};
