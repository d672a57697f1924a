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
import { EVENT_ORDER_BY } from '../query/events.js';
import { DEFAULT_RADIUS, MAX_RADIUS } from '../query/geo.js';
import { OrganizerCreateSchema, OrganizerResponseSchema } from './organizers.js';
import { EventTermSchema } from './terms.js';
import { JsonLdSchema, VenueCreateSchema, VenueResponseSchema } from './venues.js';

/** A reference to an existing venue or organizer: `{ id }` (other keys are ignored, reference §6.3). */
const LinkedIdObject = Type.Object({ id: WpPositiveInteger() }, { additionalProperties: true });

/**
 * `venue`: an id, `{ id }`, a new venue's fields (created, or de-duplicated, then linked), or an
 * empty value (`0`, `""`, `[]`) that unlinks (design §5.4).
 */
export const VenueLinkInput = Type.Union(
  [
    Type.Integer({ minimum: 0 }),
    Type.String({ maxLength: 32 }),
    LinkedIdObject,
    VenueCreateSchema,
    Type.Array(Type.Union([Type.Integer({ minimum: 0 }), Type.String({ maxLength: 32 }), LinkedIdObject, VenueCreateSchema]), { maxItems: 1 }),
  ],
  { description: 'Venue id, {"id": …}, or a new venue object; 0, "" or [] unlinks the venue' },
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
  { description: 'Organizer ids, {"id": …} objects or new organizer objects; [] unlinks every organizer' },
);

export const CostInput = Type.Union(
  [
    Type.String({ maxLength: MAX_SHORT_TEXT_LENGTH }),
    Type.Number(),
    Type.Array(Type.Union([Type.String({ maxLength: MAX_SHORT_TEXT_LENGTH }), Type.Number()]), { maxItems: 20 }),
  ],
  { description: 'Cost: a string such as "20$" or a list of values forming a range' },
);

const eventFields = {
  title: Type.String({ minLength: 1, maxLength: MAX_TITLE_LENGTH, description: 'Event title' }),
  start_date: DateInput({ description: 'Start date and time' }),
  end_date: DateInput({ description: 'End date and time' }),
  author: WpPositiveInteger({ description: 'Author id' }),
  date: DateInput({ description: 'Publication date, in the event time zone' }),
  date_utc: DateInput({ description: 'Publication date in UTC' }),
  description: Type.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH, description: 'Event description (HTML)' }),
  slug: Type.String({ minLength: 1, maxLength: MAX_SLUG_LENGTH, description: 'Event slug' }),
  excerpt: Type.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH, description: 'Excerpt (HTML)' }),
  status: StatusSchema,
  timezone: Type.String({ maxLength: 64, description: 'Time zone of the event (IANA id, UTC or UTC±N)' }),
  all_day: WpBoolean({ description: 'The event lasts the whole day' }),
  image: Type.Union([Type.String({ maxLength: MAX_URL_LENGTH }), Type.Integer()], {
    description: 'Featured image: an http(s) URL ("" removes it)',
  }),
  cost: CostInput,
  website: Type.String({ maxLength: MAX_URL_LENGTH, description: 'Event website URL ("" clears it)' }),
  show_map: WpBoolean({ description: 'Show a map' }),
  show_map_link: WpBoolean({ description: 'Show a map link' }),
  hide_from_listings: WpBoolean({ description: 'Hide the event from listings' }),
  sticky: WpBoolean({ description: 'Sticky in the calendar view' }),
  featured: WpBoolean({ description: 'Featured event' }),
  categories: ListInput({ description: 'Category ids, slugs or names' }),
  tags: ListInput({ description: 'Tag ids, slugs or names' }),
  venue: VenueLinkInput,
  organizer: OrganizerLinkInput,
  ticketed: WpBoolean({ description: 'The event sells tickets (extension field)' }),
  post_parent: Type.Union([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Type.String({ pattern: '^[0-9]{0,16}$' })], {
    title: 'integer',
    description: 'Parent event id, e.g. the first occurrence of a series; 0 clears it (extension field)',
  }),
};

type EventFields = typeof eventFields;
const EventFieldsObject = Type.Object(eventFields);
const optional = <K extends keyof EventFields>(keys: readonly K[]) =>
  Type.Partial(Type.Pick(EventFieldsObject, [...keys])).properties;

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

/** Updates by slug: every field optional, no `password` (spec §4.2). */
export const EventPatchSchema = Type.Object(optional(allKeys), { additionalProperties: false });
export type EventPatch = Static<typeof EventPatchSchema>;

/** Updates by id also take `password`: it sets the event password, `""` removes it (design §9.1). */
export const EventPatchByIdSchema = Type.Object(
  {
    ...optional(allKeys),
    password: Type.Optional(Type.String({ maxLength: 255, description: 'Event password; "" removes it' })),
  },
  { additionalProperties: false },
);
export type EventPatchById = Static<typeof EventPatchByIdSchema>;

/** Fields a client may send back from a representation; ignored on writes (reference §1.3). */
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
] as const;

export const EventReadQuerySchema = Type.Object(
  {
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Password of a protected event' })),
    context: Type.Optional(Type.Union([Type.Literal('view'), Type.Literal('edit'), Type.Literal('embed')])),
  },
  { additionalProperties: true },
);
export type EventReadQuery = Static<typeof EventReadQuerySchema>;

export const CostDetailsSchema = Type.Object({
  currency_symbol: Type.String(),
  currency_code: Type.String(),
  currency_position: Type.String(),
  values: Type.Array(Type.String()),
});

/** The event object, keys in the reference's order (§2.1), then our extension fields (design §4). */
export const EventResponseSchema = Type.Object(
  {
    id: Type.Integer(),
    global_id: Type.String(),
    global_id_lineage: Type.Array(Type.String()),
    author: Type.String(),
    status: Type.String(),
    date: Type.String(),
    date_utc: Type.String(),
    modified: Type.String(),
    modified_utc: Type.String(),
    url: Type.String(),
    rest_url: Type.String(),
    title: Type.String(),
    description: Type.String(),
    excerpt: Type.String(),
    slug: Type.String(),
    image: ImageOrFalseSchema,
    all_day: Type.Union([Type.Boolean(), Type.Null()]),
    start_date: Type.String(),
    start_date_details: DateDetailsSchema,
    end_date: Type.String(),
    end_date_details: DateDetailsSchema,
    utc_start_date: Type.String(),
    utc_start_date_details: DateDetailsSchema,
    utc_end_date: Type.String(),
    utc_end_date_details: DateDetailsSchema,
    timezone: Type.String(),
    timezone_abbr: Type.String(),
    cost: Type.String(),
    cost_details: CostDetailsSchema,
    website: Type.String(),
    show_map: Type.Union([Type.Boolean(), Type.Null()]),
    show_map_link: Type.Union([Type.Boolean(), Type.Null()]),
    hide_from_listings: Type.Union([Type.Boolean(), Type.Null()]),
    sticky: Type.Union([Type.Boolean(), Type.Null()]),
    featured: Type.Union([Type.Boolean(), Type.Null()]),
    categories: Type.Array(EventTermSchema),
    tags: Type.Array(EventTermSchema),
    venue: Type.Union([VenueResponseSchema, EmptyArraySchema]),
    organizer: Type.Array(OrganizerResponseSchema),
    custom_fields: EmptyArraySchema,
    json_ld: Type.Optional(JsonLdSchema),
    // Always sent, but optional: fast-json-stringify writes required keys first, which would put
    // these extension fields ahead of `json_ld` (design §4 wants them after it).
    ticketed: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    post_parent: Type.Optional(Type.Integer()),
    distance: Type.Optional(Type.Number({ description: 'Distance of the venue from the geoloc point, in geoloc_unit (orderby=distance)' })),
  },
  { additionalProperties: false },
);
export type EventResponse = Static<typeof EventResponseSchema>;

/** A coordinate in a query string: a decimal number. */
const GeoQuery = (description: string) => Type.Number({ description });

const DateQuery = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });

/** GET /events (spec §4.2, reference §5.1). Unknown parameters are ignored, as in the reference. */
export const EventListQuerySchema = Type.Object(
  {
    ...PageQueryProperties,
    start_date: Type.Optional(DateQuery('Events that start on or after this date (default: 00:00 yesterday)')),
    end_date: Type.Optional(DateQuery('Events that end on or before this date (default: 24 months from now)')),
    starts_before: Type.Optional(DateQuery('Events that start before this date')),
    starts_after: Type.Optional(DateQuery('Events that start after this date')),
    ends_before: Type.Optional(DateQuery('Events that end before this date')),
    ends_after: Type.Optional(DateQuery('Events that end after this date')),
    strict_dates: Type.Optional(Type.String({ minLength: 1, maxLength: 10, description: 'true: exact instants; false (default): whole days' })),
    search: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_SEARCH_LENGTH, description: 'Words that must all occur in the title, description or excerpt' })),
    categories: Type.Optional(ListInput({ description: 'Category ids, slugs or names (any of them, and their subcategories)' })),
    tags: Type.Optional(ListInput({ description: 'Tag ids, slugs or names (any of them)' })),
    venue: Type.Optional(ListInput({ description: 'Venue ids (any of them)' })),
    organizer: Type.Optional(ListInput({ description: 'Organizer ids (any of them)' })),
    featured: Type.Optional(WpBoolean({ description: 'Only featured (true) or only not featured (false) events' })),
    status: Type.Optional(StatusListInput),
    include: Type.Optional(ListInput({ description: 'Only these event ids; date filters are ignored' })),
    post_parent: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'Events whose parent event is this one' })),
    ticketed: Type.Optional(WpBoolean({ description: 'Only events with (true) or without (false) tickets' })),
    geoloc: Type.Optional(WpBoolean({ description: 'true: only events whose venue has coordinates; false: only events whose venue has none' })),
    geoloc_lat: Type.Optional(GeoQuery('Latitude of the point to search around (with geoloc_lng)')),
    geoloc_lng: Type.Optional(GeoQuery('Longitude of the point to search around (with geoloc_lat)')),
    geoloc_radius: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: MAX_RADIUS, default: DEFAULT_RADIUS, description: 'Search radius around the point, in geoloc_unit (default 25, at most 500)' }),
    ),
    geoloc_unit: Type.Optional(Type.Union([Type.Literal('mi'), Type.Literal('km')], { default: 'mi', description: 'Unit of geoloc_radius and of distance: mi (default) or km' })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Shows the listed events protected by this password in full' })),
    context: Type.Optional(Type.Union([Type.Literal('view'), Type.Literal('edit'), Type.Literal('embed')], { description: 'edit: editors see protected events in full' })),
    orderby: Type.Optional(
      Type.Union([...EVENT_ORDER_BY.map((o) => Type.Literal(o)), Type.Literal('distance')], {
        description: 'start_date (default), end_date, date, modified, id, or distance (needs geoloc_lat and geoloc_lng)',
      }),
    ),
    order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc'), Type.Literal('ASC'), Type.Literal('DESC')], { description: 'asc (default) or desc' })),
  },
  { additionalProperties: true },
);
export type EventListQuery = Static<typeof EventListQuerySchema>;

export const EventListResponseSchema = Type.Object({ events: Type.Array(EventResponseSchema), ...ListLinkProperties });
