import { type Static, Type } from '@sinclair/typebox';
import { ImageSchema } from './common.js';

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
