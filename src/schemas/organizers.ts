import { type Static, Type } from '@sinclair/typebox';
import { ImageInput, ListLinkProperties, MAX_SHORT_TEXT_LENGTH, MAX_TITLE_LENGTH, MAX_URL_LENGTH, PostWriteFields } from './common.js';
import { i18n, type MessageKey } from '../i18n/index.js';
import { JsonLdSchema, LinkedPostHeadAfter, LinkedPostHeadBefore, LinkedPostListQueryProperties } from './venues.js';

/** The organizer object: empty values are omitted; the global ids always stay. */
export const OrganizerResponseSchema = Type.Object(
  {
    ...LinkedPostHeadBefore,
    organizer: Type.Optional(Type.String(i18n('organizer.organizer'))),
    ...LinkedPostHeadAfter,
    phone: Type.Optional(Type.String(i18n('field.phone'))),
    website: Type.Optional(Type.String(i18n('field.website'))),
    email: Type.Optional(Type.String(i18n('field.email'))),
    json_ld: Type.Optional(JsonLdSchema),
    // Always sent, but optional so fast-json-stringify (required keys first) keeps them last.
    global_id: Type.Optional(Type.String(i18n('field.global_id'))),
    global_id_lineage: Type.Optional(Type.Array(Type.String(), i18n('field.global_id_lineage'))),
  },
  { additionalProperties: false, ...i18n('schema.organizer') },
);
export type OrganizerResponse = Static<typeof OrganizerResponseSchema>;

const text = (key: MessageKey) => Type.String({ maxLength: MAX_SHORT_TEXT_LENGTH, ...i18n(key) });

export const organizerWriteFields = {
  organizer: Type.String({ minLength: 1, maxLength: MAX_TITLE_LENGTH, ...i18n('organizer.organizer') }),
  ...PostWriteFields,
  phone: text('common.phone'),
  website: Type.String({ maxLength: MAX_URL_LENGTH, ...i18n('common.website') }),
  email: text('organizer.email'),
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

export const OrganizerListResponseSchema = Type.Object(
  { organizers: Type.Array(OrganizerResponseSchema, i18n('list.items')), ...ListLinkProperties },
  i18n('schema.organizerList'),
);
