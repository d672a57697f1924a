/**
 * `GET /series/{id}`: a recurring series (docs/recurrence.md), read like an event (status,
 * password, validators and the response cache); its rule in words in the language of the root.
 */
import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type FastifyRequest } from 'fastify';
import { languageOfRoot } from '../i18n/index.js';
import { describeRecurrence } from '../lib/recurrence/index.js';
import { ErrorResponses, IdParamsSchema } from '../schemas/common.js';
import { EventReadQuerySchema } from '../schemas/events.js';
import { SeriesResponseSchema } from '../schemas/series.js';
import { type SeriesRepresented, serializeSeries } from '../serialize/series.js';
import { type EventsService } from '../services/events/index.js';
import { seriesClock } from '../services/recurrence/schedule.js';
import { type ApiRouteOptions, serializeContext } from './context.js';
import { rootOf } from './roots.js';

export interface SeriesRoutesOptions extends ApiRouteOptions {
  events: Pick<EventsService, 'getSeries'>;
}

/** The series' representation for this request: its links and the language of its root. */
export function presentSeries(request: FastifyRequest, options: ApiRouteOptions, view: SeriesRepresented, single: boolean) {
  const language = languageOfRoot(rootOf(request));
  return serializeSeries(view, serializeContext(request, options, single), (series) =>
    describeRecurrence(series.recurrence, seriesClock(series).startDate, language),
  );
}

export const seriesRoutes: FastifyPluginAsyncTypebox<SeriesRoutesOptions> = async (app, options) => {
  app.get(
    '/series/:id(^\\d+$)',
    {
      config: { responseCache: true },
      schema: { params: IdParamsSchema, querystring: EventReadQuerySchema, response: { 200: SeriesResponseSchema, ...ErrorResponses } },
    },
    async (request) => presentSeries(request, options, await options.events.getSeries(request.params.id, { caller: request.caller, ...request.query }), true),
  );
};
