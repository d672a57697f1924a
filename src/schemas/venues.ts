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

/** Schema.org JSON-LD object; its members vary, so it is passed through as built. */
export const JsonLdSchema = Type.Object({}, { additionalProperties: true });

/**
 * The venue object (reference §2.4): keys from `id` to `json_ld` are omitted when empty.
 * `geo_lat`/`geo_lng`/`geo_source` are our extension fields and come last (design §4).
 */
export const VenueResponseSchema = Type.Object(
  {
    id: Type.Integer(),
    author: Type.Optional(Type.String()),
    status: Type.Optional(Type.String()),
    date: Type.Optional(Type.String()),
    date_utc: Type.Optional(Type.String()),
    modified: Type.Optional(Type.String()),
    modified_utc: Type.Optional(Type.String()),
    url: Type.Optional(Type.String()),
    venue: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    excerpt: Type.Optional(Type.String()),
    slug: Type.Optional(Type.String()),
    image: Type.Optional(ImageSchema),
    address: Type.Optional(Type.String()),
    city: Type.Optional(Type.String()),
    country: Type.Optional(Type.String()),
    province: Type.Optional(Type.String()),
    state: Type.Optional(Type.String()),
    zip: Type.Optional(Type.String()),
    phone: Type.Optional(Type.String()),
    website: Type.Optional(Type.String()),
    stateprovince: Type.Optional(Type.String()),
    json_ld: Type.Optional(JsonLdSchema),
    // Always sent, but declared optional: fast-json-stringify writes required keys first, which
    // would move these ahead of `author`…`json_ld` and break the reference's key order.
    show_map: Type.Optional(Type.Boolean()),
    show_map_link: Type.Optional(Type.Boolean()),
    global_id: Type.Optional(Type.String()),
    global_id_lineage: Type.Optional(Type.Array(Type.String())),
    geo_lat: Type.Optional(Type.Number()),
    geo_lng: Type.Optional(Type.Number()),
    geo_source: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type VenueResponse = Static<typeof VenueResponseSchema>;

const text = (description: string) => Type.String({ maxLength: MAX_SHORT_TEXT_LENGTH, description: `${description} ("" clears it)` });

/** Coordinates: numbers or numeric strings; both or neither (design §6). `""` for both clears them. */
const GeoInput = (description: string) => Type.Union([Type.Number(), Type.String({ maxLength: 32 })], { description });

export const venueWriteFields = {
  venue: Type.String({ minLength: 1, maxLength: MAX_TITLE_LENGTH, description: 'Venue name' }),
  ...PostWriteFields,
  show_map: TruthyInput({ description: 'Events at this venue show a map (true, false, "yes", "0", …)' }),
  show_map_link: TruthyInput({ description: 'Events at this venue show a map link' }),
  address: text('Street address'),
  city: text('City'),
  country: text('Country'),
  province: text('Province'),
  state: text('State'),
  zip: text('Postal code'),
  phone: text('Phone number'),
  stateprovince: text('State or province'),
  website: Type.String({ maxLength: MAX_URL_LENGTH, description: 'Website URL ("" clears it)' }),
  image: ImageInput(),
  geo_lat: GeoInput('Latitude, -90 to 90 (with geo_lng)'),
  geo_lng: GeoInput('Longitude, -180 to 180 (with geo_lat)'),
};

const VenueFieldsObject = Type.Object(venueWriteFields);

export const VenueCreateSchema = Type.Composite([Type.Partial(Type.Omit(VenueFieldsObject, ['venue'])), Type.Pick(VenueFieldsObject, ['venue'])], {
  additionalProperties: false,
});
export type VenueCreate = Static<typeof VenueCreateSchema>;

export const VenuePatchSchema = Type.Partial(VenueFieldsObject, { additionalProperties: false });
export type VenuePatch = Static<typeof VenuePatchSchema>;

/** Representation fields a client may echo back; ignored on writes (reference §1.3). */
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
  search: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_SEARCH_LENGTH, description: 'Words that must all occur in the searchable fields' })),
  event: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'Only those linked to this event' })),
  has_events: Type.Optional(TruthyInput({ description: 'true: linked to an event that is not a draft or pending; false: linked to none' })),
  only_with_upcoming: Type.Optional(TruthyInput({ description: 'true: linked to an upcoming event the caller may see' })),
  status: Type.Optional(StatusListInput),
};

export const VenueListQuerySchema = Type.Object(LinkedPostListQueryProperties, { additionalProperties: true });
export type VenueListQuery = Static<typeof VenueListQuerySchema>;

export const VenueListResponseSchema = Type.Object({ venues: Type.Array(VenueResponseSchema), ...ListLinkProperties });
