import { type Static, Type } from '@sinclair/typebox';
import { ImageSchema } from './common.js';
import { JsonLdSchema } from './venues.js';

/** The organizer object (reference §2.5): empty values are omitted; the global ids always stay. */
export const OrganizerResponseSchema = Type.Object(
  {
    id: Type.Integer(),
    author: Type.Optional(Type.String()),
    status: Type.Optional(Type.String()),
    date: Type.Optional(Type.String()),
    date_utc: Type.Optional(Type.String()),
    modified: Type.Optional(Type.String()),
    modified_utc: Type.Optional(Type.String()),
    url: Type.Optional(Type.String()),
    organizer: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    excerpt: Type.Optional(Type.String()),
    slug: Type.Optional(Type.String()),
    image: Type.Optional(ImageSchema),
    phone: Type.Optional(Type.String()),
    website: Type.Optional(Type.String()),
    email: Type.Optional(Type.String()),
    json_ld: Type.Optional(JsonLdSchema),
    // Always sent, but optional so fast-json-stringify (required keys first) keeps them last.
    global_id: Type.Optional(Type.String()),
    global_id_lineage: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false },
);
export type OrganizerResponse = Static<typeof OrganizerResponseSchema>;
