import { type Static, Type } from '@sinclair/typebox';
import { i18n } from '../i18n/index.js';
import { EventResponseSchema } from './events.js';

const {
  distance: _distance,
  is_recurring: _recurring,
  series_id: _series,
  occurrence_date: _date,
  is_exception: _exception,
  ...eventProperties
} = EventResponseSchema.properties;

/** A series' rule as its representation shows it. */
const RecurrenceSchema = Type.Object(
  {
    rrule: Type.String(i18n('recurrence.rrule')),
    exdates: Type.Array(Type.String(), i18n('recurrence.exdates')),
    rdates: Type.Array(Type.String(), i18n('recurrence.rdates')),
    text: Type.String(i18n('recurrence.text')),
  },
  i18n('series.recurrence'),
);

const ExceptionSchema = Type.Object(
  {
    id: Type.Integer(i18n('common.id')),
    occurrence_date: Type.String(i18n('field.occurrence_date')),
    rest_url: Type.String(i18n('field.rest_url')),
  },
  i18n('series.exception'),
);

const NextOccurrenceSchema = Type.Object(
  {
    id: Type.Integer(i18n('common.id')),
    start_date: Type.String(i18n('field.start_date')),
    end_date: Type.String(i18n('field.end_date')),
    rest_url: Type.String(i18n('field.rest_url')),
  },
  i18n('series.nextOccurrence'),
);

/**
 * A series: the event representation of its template (the first occurrence's dates, `rest_url` the
 * series route), then its rule and occurrences. The added members are optional only for their place
 * after the event's (see EventResponseSchema); they are always sent.
 */
export const SeriesResponseSchema = Type.Object(
  {
    ...eventProperties,
    recurrence: Type.Optional(RecurrenceSchema),
    occurrences: Type.Optional(Type.Integer(i18n('series.occurrences'))),
    exceptions: Type.Optional(Type.Array(ExceptionSchema, i18n('series.exceptions'))),
    next_occurrences: Type.Optional(Type.Array(NextOccurrenceSchema, i18n('series.next_occurrences'))),
  },
  { additionalProperties: false, ...i18n('schema.series') },
);
export type SeriesResponse = Static<typeof SeriesResponseSchema>;
