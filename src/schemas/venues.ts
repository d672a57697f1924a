import { type Static, Type } from '@sinclair/typebox';
import {
  ImageInput,
  ImageSchema,
  ListLinkProperties,
  MAX_ID,
  MAX_SEARCH_LENGTH,
  MAX_SHORT_TEXT_LENGTH,
  MAX_TITLE_LENGTH,
  MAX_URL_LENGTH,
  PageQueryProperties,
  PostWriteFields,
  StatusListInput,
  TruthyInput,
} from './common.js';
import { i18n, type MessageKey } from '../i18n/index.js';

/**
 * The leading keys venues and organizers share, around their name key
 * (`venue` / `organizer`), as serialize/linked-posts.ts `linkedPostHead` builds them.
 */
export const LinkedPostHeadBefore = {
  id: Type.Integer(i18n('common.id')),
  author: Type.Optional(Type.String(i18n('field.author'))),
  status: Type.Optional(Type.String(i18n('common.status'))),
  date: Type.Optional(Type.String(i18n('field.date'))),
  date_utc: Type.Optional(Type.String(i18n('post.date_utc'))),
  modified: Type.Optional(Type.String(i18n('field.modified'))),
  modified_utc: Type.Optional(Type.String(i18n('field.modified_utc'))),
  url: Type.Optional(Type.String(i18n('field.url'))),
};
export const LinkedPostHeadAfter = {
  description: Type.Optional(Type.String(i18n('field.description'))),
  excerpt: Type.Optional(Type.String(i18n('event.excerpt'))),
  slug: Type.Optional(Type.String(i18n('common.slug'))),
  image: Type.Optional(ImageSchema),
};

/** Schema.org JSON-LD object; its members vary, so it is passed through as built. */
export const JsonLdSchema = Type.Object({}, { additionalProperties: true, ...i18n('schema.jsonLd') });

/**
 * The venue object: keys from `id` to `json_ld` are omitted when empty.
 * `geo_lat`/`geo_lng`/`geo_source` are our extension fields and come last.
 */
export const VenueResponseSchema = Type.Object(
  {
    ...LinkedPostHeadBefore,
    venue: Type.Optional(Type.String(i18n('venue.venue'))),
    ...LinkedPostHeadAfter,
    address: Type.Optional(Type.String(i18n('field.address'))),
    city: Type.Optional(Type.String(i18n('field.city'))),
    country: Type.Optional(Type.String(i18n('field.country'))),
    province: Type.Optional(Type.String(i18n('field.province'))),
    state: Type.Optional(Type.String(i18n('field.state'))),
    zip: Type.Optional(Type.String(i18n('field.zip'))),
    phone: Type.Optional(Type.String(i18n('field.phone'))),
    website: Type.Optional(Type.String(i18n('field.website'))),
    stateprovince: Type.Optional(Type.String(i18n('field.stateprovince'))),
    json_ld: Type.Optional(JsonLdSchema),
    // Always sent, but declared optional: fast-json-stringify writes required keys first, which
    // would move these ahead of `author`…`json_ld` and break the reference's key order.
    show_map: Type.Optional(Type.Boolean(i18n('event.show_map'))),
    show_map_link: Type.Optional(Type.Boolean(i18n('event.show_map_link'))),
    global_id: Type.Optional(Type.String(i18n('field.global_id'))),
    global_id_lineage: Type.Optional(Type.Array(Type.String(), i18n('field.global_id_lineage'))),
    geo_lat: Type.Optional(Type.Number(i18n('field.geo_lat'))),
    geo_lng: Type.Optional(Type.Number(i18n('field.geo_lng'))),
    geo_source: Type.Optional(Type.String(i18n('field.geo_source'))),
  },
  { additionalProperties: false, ...i18n('schema.venue') },
);
export type VenueResponse = Static<typeof VenueResponseSchema>;

const text = (key: MessageKey) => Type.String({ maxLength: MAX_SHORT_TEXT_LENGTH, ...i18n(key) });

/** Coordinates: numbers or numeric strings; both or neither. `""` for both clears them. */
const GeoInput = (key: MessageKey) => Type.Union([Type.Number(), Type.String({ maxLength: 32 })], i18n(key));

export const venueWriteFields = {
  venue: Type.String({ minLength: 1, maxLength: MAX_TITLE_LENGTH, ...i18n('venue.venue') }),
  ...PostWriteFields,
  show_map: TruthyInput(i18n('venue.show_map')),
  show_map_link: TruthyInput(i18n('venue.show_map_link')),
  address: text('venue.address'),
  city: text('venue.city'),
  country: text('venue.country'),
  province: text('venue.province'),
  state: text('venue.state'),
  zip: text('venue.zip'),
  phone: text('common.phone'),
  stateprovince: text('venue.stateprovince'),
  website: Type.String({ maxLength: MAX_URL_LENGTH, ...i18n('common.website') }),
  image: ImageInput(),
  geo_lat: GeoInput('venue.geo_lat'),
  geo_lng: GeoInput('venue.geo_lng'),
};

const VenueFieldsObject = Type.Object(venueWriteFields);

export const VenueCreateSchema = Type.Composite([Type.Partial(Type.Omit(VenueFieldsObject, ['venue'])), Type.Pick(VenueFieldsObject, ['venue'])], {
  additionalProperties: false,
});
export type VenueCreate = Static<typeof VenueCreateSchema>;

export const VenuePatchSchema = Type.Partial(VenueFieldsObject, { additionalProperties: false });
export type VenuePatch = Static<typeof VenuePatchSchema>;

/** Representation fields a client may echo back; ignored on writes. */
export const LINKED_POST_GENERATED_FIELDS = [
  'id',
  'global_id',
  'global_id_lineage',
  'modified',
  'modified_utc',
  'url',
  'slug',
  'excerpt',
  'json_ld',
  'geo_source',
  // Not a venue or organizer field; the reference ignores it too (VenueInsertionCest L47).
  'timezone',
] as const;

export const LinkedPostListQueryProperties = {
  ...PageQueryProperties,
  search: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_SEARCH_LENGTH, ...i18n('linkedList.search') })),
  event: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, ...i18n('linkedList.event') })),
  has_events: Type.Optional(TruthyInput(i18n('linkedList.has_events'))),
  only_with_upcoming: Type.Optional(TruthyInput(i18n('linkedList.only_with_upcoming'))),
  status: Type.Optional(StatusListInput),
  modified_after: Type.Optional(Type.String({ minLength: 1, maxLength: 100, ...i18n('linkedList.modified_after') })),
  modified_before: Type.Optional(Type.String({ minLength: 1, maxLength: 100, ...i18n('linkedList.modified_before') })),
  orderby: Type.Optional(Type.Union([Type.Literal('name'), Type.Literal('modified')], i18n('linkedList.orderby'))),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc'), Type.Literal('ASC'), Type.Literal('DESC')], i18n('linkedList.order'))),
};

export const VenueListQuerySchema = Type.Object(LinkedPostListQueryProperties, { additionalProperties: true });
export type VenueListQuery = Static<typeof VenueListQuerySchema>;

export const VenueListResponseSchema = Type.Object(
  { venues: Type.Array(VenueResponseSchema, i18n('list.items')), ...ListLinkProperties },
  i18n('schema.venueList'),
);
