import { type Static, Type } from '@sinclair/typebox';
import { i18n } from '../i18n/index.js';
import { TOMBSTONE_TYPES } from '../storage/port.js';
import { ListLinkProperties, MAX_LIST_ITEMS, PageQueryProperties } from './common.js';

/** A date parameter of the sync, read like the event list's dates (absolute, or relative to now). */
const SyncDate = (key: 'deleted.since' | 'deleted.until') => Type.String({ minLength: 1, maxLength: 100, ...i18n(key) });

/** GET /deleted. Unknown parameters are ignored, as on the other lists. */
export const DeletedListQuerySchema = Type.Object(
  {
    ...PageQueryProperties,
    since: SyncDate('deleted.since'),
    until: Type.Optional(SyncDate('deleted.until')),
    type: Type.Optional(
      Type.Union([Type.String({ maxLength: 200 }), Type.Array(Type.String({ maxLength: 20 }), { maxItems: MAX_LIST_ITEMS })], {
        title: 'list',
        ...i18n('deleted.type'),
      }),
    ),
  },
  { additionalProperties: true },
);
export type DeletedListQuery = Static<typeof DeletedListQuerySchema>;

export const TombstoneSchema = Type.Object(
  {
    type: Type.Union(
      TOMBSTONE_TYPES.map((type) => Type.Literal(type)),
      i18n('tombstone.type'),
    ),
    id: Type.Integer(i18n('tombstone.id')),
    deleted_at: Type.String(i18n('tombstone.deleted_at')),
  },
  { additionalProperties: false, ...i18n('schema.tombstone') },
);
export type TombstoneResponse = Static<typeof TombstoneSchema>;

export const DeletedListResponseSchema = Type.Object(
  { deleted: Type.Array(TombstoneSchema, i18n('list.items')), ...ListLinkProperties },
  i18n('schema.deletedList'),
);
