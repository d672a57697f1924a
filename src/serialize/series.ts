/**
 * A series' representation (GET /series/{id}, and the answer to creating one): the event
 * representation of its template with the series' own `rest_url`, then its rule (with the rule in
 * words), the number of its dates, its exceptions and its next occurrences.
 */
import { formatWallClock } from '../lib/dates/index.js';
import { type SeriesResponse } from '../schemas/series.js';
import { type EventDoc, type SeriesDoc } from '../storage/port.js';
import { type SerializeContext } from './context.js';
import { type EventRelations, serializeEvent } from './events.js';

/** What the representation shows, read by the service. */
export interface SeriesRepresented {
  doc: SeriesDoc;
  relations: EventRelations;
  occurrences: number;
  exceptions: readonly EventDoc[];
  next: readonly EventDoc[];
}

/** `describe`: the rule in words in the request's language. */
export function serializeSeries(view: SeriesRepresented, ctx: SerializeContext, describe: (series: SeriesDoc) => string): SeriesResponse {
  const { doc } = view;
  const eventUrl = (id: number) => `${ctx.apiBase}/events/${id}`;
  return {
    ...serializeEvent(doc, view.relations, ctx),
    rest_url: `${ctx.apiBase}/series/${doc._id}`,
    recurrence: { rrule: doc.recurrence.rrule, exdates: [...doc.recurrence.exdates], rdates: [...doc.recurrence.rdates], text: describe(doc) },
    occurrences: view.occurrences,
    exceptions: view.exceptions.map((e) => ({ id: e._id, occurrence_date: e.occurrenceDate ?? '', rest_url: eventUrl(e._id) })),
    next_occurrences: view.next.map((e) => ({
      id: e._id,
      start_date: formatWallClock(e.startUtc, e.timezone),
      end_date: formatWallClock(e.endUtc, e.timezone),
      rest_url: eventUrl(e._id),
    })),
  };
}
