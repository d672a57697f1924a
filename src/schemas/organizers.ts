import { type Static, Type } from '@sinclair/typebox';
import {
  ImageInput,
  ImageSchema,
  ListLinkProperties,
  MAX_SHORT_TEXT_LENGTH,
  MAX_TITLE_LENGTH,
  MAX_URL_LENGTH,
  PostWriteFields,
} from './common.js';
import { JsonLdSchema, LinkedPostListQueryProperties } from './venues.js';

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

const text = (description: string) => Type.String({ maxLength: MAX_SHORT_TEXT_LENGTH, description: `${description} ("" clears it)` });

export const organizerWriteFields = {
  organizer: Type.String({ minLength: 1, maxLength: MAX_TITLE_LENGTH, description: 'Organizer name' }),
  ...PostWriteFields,
  phone: text('Phone number'),
  website: Type.String({ maxLength: MAX_URL_LENGTH, description: 'Website URL ("" clears it)' }),
  email: text('E-mail address'),
  image: ImageInput(),
};

const OrganizerFieldsObject = Type.Object(organizerWriteFields);

export const OrganizerCreateSchema = Type.Composite(
  [Type.Partial(Type.Omit(OrganizerFieldsObject, ['organizer'])), Type.Pick(OrganizerFieldsObject, ['organizer'])],
  { additionalProperties: false },
);
export type OrganizerCreate = Static<typeof OrganizerCreateSchema>;

export const OrganizerPatchSchema = Type.Partial(OrganizerFieldsObject, { additionalProperties: false });
export type OrganizerPatch = Static<typeof OrganizerPatchSchema>;

export const OrganizerListQuerySchema = Type.Object(LinkedPostListQueryProperties, { additionalProperties: true });
export type OrganizerListQuery = Static<typeof OrganizerListQuerySchema>;

export const OrganizerListResponseSchema = Type.Object({ organizers: Type.Array(OrganizerResponseSchema), ...ListLinkProperties });
