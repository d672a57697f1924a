import { type Static, Type } from '@sinclair/typebox';
import {
  DateDetailsSchema,
  DateInput,
  EmptyArraySchema,
  ImageOrFalseSchema,
  ListInput,
  MAX_LIST_ITEMS,
  MAX_SHORT_TEXT_LENGTH,
  MAX_SLUG_LENGTH,
  MAX_TEXT_LENGTH,
  MAX_TITLE_LENGTH,
  MAX_URL_LENGTH,
  MAX_ID,
  MAX_SEARCH_LENGTH,
  ListLinkProperties,
  PageQueryProperties,
  StatusListInput,
  StatusSchema,
  WpBoolean,
  WpPositiveInteger,
} from './common.js';
import { i18n, type MessageKey } from '../i18n/index.js';
import { EVENT_ORDER_BY } from '../query/events.js';
import { DEFAULT_RADIUS, MAX_RADIUS } from '../query/geo.js';
import { OrganizerCreateSchema, OrganizerResponseSchema } from './organizers.js';
import { RecurrenceInputSchema } from './recurrence.js';
import { EventTermSchema } from './terms.js';
import { JsonLdSchema, VenueCreateSchema, VenueResponseSchema } from './venues.js';

/** A reference to an existing venue or organizer: `{ id }` (other keys are ignored). */
const LinkedIdObject = Type.Object({ id: WpPositiveInteger() }, { additionalProperties: true });

/**
 * `venue`: an id, `{ id }`, a new venue's fields (created, or de-duplicated, then linked), or an
 * empty value (`0`, `""`, `[]`) that unlinks.
 */
export const VenueLinkInput = Type.Union(
  [
    Type.Integer({ minimum: 0 }),
    Type.String({ maxLength: 32 }),
    LinkedIdObject,
    VenueCreateSchema,
    Type.Array(Type.Union([Type.Integer({ minimum: 0 }), Type.String({ maxLength: 32 }), LinkedIdObject, VenueCreateSchema]), { maxItems: 1 }),
  ],
  i18n('event.venue'),
);

const OrganizerItem = Type.Union([Type.Integer({ minimum: 0 }), Type.String({ maxLength: 32 }), LinkedIdObject, OrganizerCreateSchema]);

/** `organizer`: ids, `{ id }` or new organizers' fields, as a list (or one of them); `[]` unlinks all. */
export const OrganizerLinkInput = Type.Union(
  [
    Type.Integer({ minimum: 0 }),
    Type.String({ maxLength: MAX_SHORT_TEXT_LENGTH }),
    LinkedIdObject,
    OrganizerCreateSchema,
    Type.Array(OrganizerItem, { maxItems: MAX_LIST_ITEMS }),
  ],
  i18n('event.organizer'),
);

export const CostInput = Type.Union(
  [
    Type.String({ maxLength: MAX_SHORT_TEXT_LENGTH }),
    Type.Number(),
    Type.Array(Type.Union([Type.String({ maxLength: MAX_SHORT_TEXT_LENGTH }), Type.Number()]), { maxItems: 20 }),
  ],
  i18n('event.cost'),
);

const eventFields = {
  title: Type.String({ minLength: 1, maxLength: MAX_TITLE_LENGTH, ...i18n('event.title') }),
  start_date: DateInput(i18n('event.start_date')),
  end_date: DateInput(i18n('event.end_date')),
  author: WpPositiveInteger(i18n('post.author')),
  date: DateInput(i18n('event.date')),
  date_utc: DateInput(i18n('post.date_utc')),
  description: Type.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH, ...i18n('event.description') }),
  slug: Type.String({ minLength: 1, maxLength: MAX_SLUG_LENGTH, ...i18n('event.slug') }),
  excerpt: Type.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH, ...i18n('event.excerpt') }),
  status: StatusSchema,
  timezone: Type.String({ maxLength: 64, ...i18n('event.timezone') }),
  all_day: WpBoolean(i18n('event.all_day')),
  image: Type.Union([Type.String({ maxLength: MAX_URL_LENGTH }), Type.Integer()], i18n('common.image')),
  cost: CostInput,
  website: Type.String({ maxLength: MAX_URL_LENGTH, ...i18n('event.website') }),
  show_map: WpBoolean(i18n('event.show_map')),
  show_map_link: WpBoolean(i18n('event.show_map_link')),
  hide_from_listings: WpBoolean(i18n('event.hide_from_listings')),
  sticky: WpBoolean(i18n('event.sticky')),
  featured: WpBoolean(i18n('event.featured')),
  categories: ListInput(i18n('event.categories')),
  tags: ListInput(i18n('event.tags')),
  venue: VenueLinkInput,
  organizer: OrganizerLinkInput,
  ticketed: WpBoolean(i18n('event.ticketed')),
  post_parent: Type.Union([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Type.String({ pattern: '^[0-9]{0,16}$' })], {
    title: 'integer',
    ...i18n('event.post_parent'),
  }),
  recurrence: RecurrenceInputSchema,
};

type EventFields = typeof eventFields;
const EventFieldsObject = Type.Object(eventFields);
const optional = <K extends keyof EventFields>(keys: readonly K[]) => Type.Partial(Type.Pick(EventFieldsObject, [...keys])).properties;

const allKeys = Object.keys(eventFields) as Array<keyof EventFields>;
const requiredOnCreate = ['title', 'start_date', 'end_date'] as const;

export const EventCreateSchema = Type.Object(
  {
    ...optional(allKeys.filter((k) => !(requiredOnCreate as readonly string[]).includes(k))),
    title: eventFields.title,
    start_date: eventFields.start_date,
    end_date: eventFields.end_date,
  },
  { additionalProperties: false },
);
export type EventCreate = Static<typeof EventCreateSchema>;

/** Updates by slug: every field optional, no `password`. */
export const EventPatchSchema = Type.Object(optional(allKeys), { additionalProperties: false });
export type EventPatch = Static<typeof EventPatchSchema>;

/** Updates by id also take `password`: it sets the event password, `""` removes it. */
export const EventPatchByIdSchema = Type.Object(
  {
    ...optional(allKeys),
    password: Type.Optional(Type.String({ maxLength: 255, ...i18n('event.password') })),
  },
  { additionalProperties: false },
);
export type EventPatchById = Static<typeof EventPatchByIdSchema>;

/** Fields a client may send back from a representation; ignored on writes. */
export const EVENT_GENERATED_FIELDS = [
  'id',
  'global_id',
  'global_id_lineage',
  'modified',
  'modified_utc',
  'url',
  'rest_url',
  'start_date_details',
  'end_date_details',
  'utc_start_date',
  'utc_start_date_details',
  'utc_end_date',
  'utc_end_date_details',
  'timezone_abbr',
  'cost_details',
  'custom_fields',
  'json_ld',
  'distance',
  'is_recurring',
  'series_id',
  'occurrence_date',
  'is_exception',
  'occurrences',
  'exceptions',
  'next_occurrences',
] as const;

export const EventReadQuerySchema = Type.Object(
  {
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 255, ...i18n('eventRead.password') })),
    context: Type.Optional(Type.Union([Type.Literal('view'), Type.Literal('edit'), Type.Literal('embed')], i18n('eventRead.context'))),
  },
  { additionalProperties: true },
);
export type EventReadQuery = Static<typeof EventReadQuerySchema>;

/** `scope` of a write of an occurrence of a series (docs/recurrence.md); a single event takes only `this`. */
const ScopeSchema = Type.Union([Type.Literal('this'), Type.Literal('following'), Type.Literal('all')], { default: 'this', ...i18n('eventWrite.scope') });

/** PUT/PATCH/POST of one event. Unknown parameters are ignored. */
export const EventWriteQuerySchema = Type.Object({ scope: Type.Optional(ScopeSchema) }, { additionalProperties: true });

/** DELETE of one event: the read parameters and `scope`. */
export const EventDeleteQuerySchema = Type.Object({ ...EventReadQuerySchema.properties, scope: Type.Optional(ScopeSchema) }, { additionalProperties: true });

export const CostDetailsSchema = Type.Object(
  {
    currency_symbol: Type.String(i18n('field.currency_symbol')),
    currency_code: Type.String(i18n('field.currency_code')),
    currency_position: Type.String(i18n('field.currency_position')),
    values: Type.Array(Type.String(), i18n('field.values')),
  },
  i18n('schema.costDetails'),
);

/** The event object, keys in the reference's order, then our extension fields. */
export const EventResponseSchema = Type.Object(
  {
    id: Type.Integer(i18n('common.id')),
    global_id: Type.String(i18n('field.global_id')),
    global_id_lineage: Type.Array(Type.String(), i18n('field.global_id_lineage')),
    author: Type.String(i18n('field.author')),
    status: Type.String(i18n('common.status')),
    date: Type.String(i18n('field.date')),
    date_utc: Type.String(i18n('post.date_utc')),
    modified: Type.String(i18n('field.modified')),
    modified_utc: Type.String(i18n('field.modified_utc')),
    url: Type.String(i18n('field.url')),
    rest_url: Type.String(i18n('field.rest_url')),
    title: Type.String(i18n('event.title')),
    description: Type.String(i18n('field.description')),
    excerpt: Type.String(i18n('event.excerpt')),
    slug: Type.String(i18n('event.slug')),
    image: { ...ImageOrFalseSchema, ...i18n('field.image') },
    all_day: Type.Union([Type.Boolean(), Type.Null()], i18n('field.all_day')),
    start_date: Type.String(i18n('field.start_date')),
    start_date_details: DateDetailsSchema,
    end_date: Type.String(i18n('field.end_date')),
    end_date_details: DateDetailsSchema,
    utc_start_date: Type.String(i18n('field.utc_start_date')),
    utc_start_date_details: DateDetailsSchema,
    utc_end_date: Type.String(i18n('field.utc_end_date')),
    utc_end_date_details: DateDetailsSchema,
    timezone: Type.String(i18n('field.timezone')),
    timezone_abbr: Type.String(i18n('field.timezone_abbr')),
    cost: Type.String(i18n('field.cost')),
    cost_details: CostDetailsSchema,
    website: Type.String(i18n('field.website')),
    show_map: Type.Union([Type.Boolean(), Type.Null()], i18n('event.show_map')),
    show_map_link: Type.Union([Type.Boolean(), Type.Null()], i18n('event.show_map_link')),
    hide_from_listings: Type.Union([Type.Boolean(), Type.Null()], i18n('event.hide_from_listings')),
    sticky: Type.Union([Type.Boolean(), Type.Null()], i18n('event.sticky')),
    featured: Type.Union([Type.Boolean(), Type.Null()], i18n('event.featured')),
    categories: Type.Array(EventTermSchema, i18n('field.categories')),
    tags: Type.Array(EventTermSchema, i18n('field.tags')),
    venue: Type.Union([VenueResponseSchema, EmptyArraySchema], i18n('field.venue')),
    organizer: Type.Array(OrganizerResponseSchema, i18n('field.organizer')),
    custom_fields: { ...EmptyArraySchema, ...i18n('field.custom_fields') },
    json_ld: Type.Optional(JsonLdSchema),
    // Always sent, but optional: fast-json-stringify writes required keys first, which would put
    // these extension fields ahead of `json_ld` (the documented order puts them after it).
    ticketed: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], i18n('event.ticketed'))),
    post_parent: Type.Optional(Type.Integer(i18n('field.post_parent'))),
    // Occurrences of a series only (single events leave them out).
    is_recurring: Type.Optional(Type.Boolean(i18n('field.is_recurring'))),
    series_id: Type.Optional(Type.Integer(i18n('field.series_id'))),
    occurrence_date: Type.Optional(Type.String(i18n('field.occurrence_date'))),
    is_exception: Type.Optional(Type.Boolean(i18n('field.is_exception'))),
    distance: Type.Optional(Type.Number(i18n('event.distance'))),
  },
  { additionalProperties: false, ...i18n('schema.event') },
);
export type EventResponse = Static<typeof EventResponseSchema>;

/** A coordinate in a query string: a decimal number. */
const GeoQuery = (key: MessageKey) => Type.Number(i18n(key));

const DateQuery = (key: MessageKey) => Type.String({ minLength: 1, maxLength: 100, ...i18n(key) });

/** GET /events. Unknown parameters are ignored, as in the reference. */
export const EventListQuerySchema = Type.Object(
  {
    ...PageQueryProperties,
    start_date: Type.Optional(DateQuery('eventList.start_date')),
    end_date: Type.Optional(DateQuery('eventList.end_date')),
    starts_before: Type.Optional(DateQuery('eventList.starts_before')),
    starts_after: Type.Optional(DateQuery('eventList.starts_after')),
    ends_before: Type.Optional(DateQuery('eventList.ends_before')),
    ends_after: Type.Optional(DateQuery('eventList.ends_after')),
    modified_after: Type.Optional(DateQuery('eventList.modified_after')),
    modified_before: Type.Optional(DateQuery('eventList.modified_before')),
    strict_dates: Type.Optional(Type.String({ minLength: 1, maxLength: 10, ...i18n('eventList.strict_dates') })),
    search: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_SEARCH_LENGTH, ...i18n('eventList.search') })),
    categories: Type.Optional(ListInput(i18n('eventList.categories'))),
    tags: Type.Optional(ListInput(i18n('eventList.tags'))),
    venue: Type.Optional(ListInput(i18n('eventList.venue'))),
    organizer: Type.Optional(ListInput(i18n('eventList.organizer'))),
    featured: Type.Optional(WpBoolean(i18n('eventList.featured'))),
    status: Type.Optional(StatusListInput),
    include: Type.Optional(ListInput(i18n('eventList.include'))),
    post_parent: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, ...i18n('eventList.post_parent') })),
    ticketed: Type.Optional(WpBoolean(i18n('eventList.ticketed'))),
    geoloc: Type.Optional(WpBoolean(i18n('eventList.geoloc'))),
    geoloc_lat: Type.Optional(GeoQuery('eventList.geoloc_lat')),
    geoloc_lng: Type.Optional(GeoQuery('eventList.geoloc_lng')),
    geoloc_radius: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: MAX_RADIUS, default: DEFAULT_RADIUS, ...i18n('eventList.geoloc_radius') })),
    geoloc_unit: Type.Optional(Type.Union([Type.Literal('mi'), Type.Literal('km')], { default: 'mi', ...i18n('eventList.geoloc_unit') })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 255, ...i18n('eventList.password') })),
    context: Type.Optional(Type.Union([Type.Literal('view'), Type.Literal('edit'), Type.Literal('embed')], i18n('eventList.context'))),
    orderby: Type.Optional(Type.Union([...EVENT_ORDER_BY.map((o) => Type.Literal(o)), Type.Literal('distance')], i18n('eventList.orderby'))),
    order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc'), Type.Literal('ASC'), Type.Literal('DESC')], i18n('eventList.order'))),
  },
  { additionalProperties: true },
);
export type EventListQuery = Static<typeof EventListQuerySchema>;

/**
 * GET /events as documented with geolocation off (GEOLOC_ENABLED=false): without the geolocation
 * parameters and without orderby=distance, which the server then does not offer. Requests are still
 * validated with EventListQuerySchema, so the route is the same whatever the setting.
 */
export const EventListQueryWithoutGeolocationSchema = Type.Object(
  {
    ...Type.Omit(EventListQuerySchema, ['geoloc', 'geoloc_lat', 'geoloc_lng', 'geoloc_radius', 'geoloc_unit', 'orderby', 'order']).properties,
    orderby: Type.Optional(
      Type.Union(
        EVENT_ORDER_BY.map((o) => Type.Literal(o)),
        i18n('eventList.orderby_without_geolocation'),
      ),
    ),
    order: EventListQuerySchema.properties.order,
  },
  { additionalProperties: true },
);

export const EventListResponseSchema = Type.Object(
  { events: Type.Array(EventResponseSchema, i18n('list.items')), ...ListLinkProperties },
  i18n('schema.eventList'),
);

/** GET /events.ics: the list's parameters without paging (a feed holds every match, up to ICS_MAX_EVENTS). */
export const EventFeedQuerySchema = Type.Object(Type.Omit(EventListQuerySchema, ['page', 'per_page']).properties, { additionalProperties: true });
export type EventFeedQuery = Static<typeof EventFeedQuerySchema>;

/** GET /events.ics as documented with geolocation off (see EventListQueryWithoutGeolocationSchema). */
export const EventFeedQueryWithoutGeolocationSchema = Type.Object(Type.Omit(EventListQueryWithoutGeolocationSchema, ['page', 'per_page']).properties, {
  additionalProperties: true,
});

/**
 * The 200 of the iCalendar routes, in Fastify's per-media-type form: the body is the text the
 * serializer wrote (src/serialize/ics/calendar.ts), sent as is; the schema documents it. `headers`
 * is read by the OpenAPI document alone.
 */
const CalendarBody = { 'text/calendar': { schema: Type.String(i18n('feed.response')) } };
export const EventFeedResponse = { content: CalendarBody, headers: { 'X-TEC-Total': Type.Integer(i18n('header.feedTotal')) } };
export const EventCalendarResponse = { content: CalendarBody };
