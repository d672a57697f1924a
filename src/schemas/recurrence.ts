import { type Static, Type } from '@sinclair/typebox';
import { i18n } from '../i18n/index.js';

/** The most dates an `exdates` or `rdates` list may hold. */
export const MAX_RECURRENCE_DATES = 1000;

const LocalDates = (key: 'recurrence.exdates' | 'recurrence.rdates') =>
  Type.Array(Type.String({ maxLength: 10 }), { maxItems: MAX_RECURRENCE_DATES, ...i18n(key) });

/**
 * `recurrence` of an event write: an RFC 5545 rule and the dates it leaves out or adds (local dates
 * of the event's zone). `text`, as a series' representation carries it, is accepted and ignored, so
 * a representation can be sent back.
 */
export const RecurrenceInputSchema = Type.Object(
  {
    rrule: Type.String({ minLength: 1, maxLength: 500, ...i18n('recurrence.rrule') }),
    exdates: Type.Optional(LocalDates('recurrence.exdates')),
    rdates: Type.Optional(LocalDates('recurrence.rdates')),
    text: Type.Optional(Type.String({ maxLength: 1000, ...i18n('recurrence.text') })),
  },
  { additionalProperties: false, ...i18n('event.recurrence') },
);
export type RecurrenceInputBody = Static<typeof RecurrenceInputSchema>;
