import { type Static, Type } from '@sinclair/typebox';
import {
  EmptyArraySchema,
  ListInput,
  MAX_ID,
  MAX_SEARCH_LENGTH,
  MAX_SLUG_LENGTH,
  MAX_TEXT_LENGTH,
  PageQueryProperties,
  WpBoolean,
} from './common.js';

export const TermUrlsSchema = Type.Object({
  self: Type.String(),
  collection: Type.String(),
  up: Type.Optional(Type.String()),
});

/**
 * A category or tag as embedded in an event (reference §2.6 b): the raw term record with
 * `term_id` renamed to `id` and moved to the end, plus `urls`; no `url`, no `meta`.
 */
export const EventTermSchema = Type.Object(
  {
    name: Type.String(),
    slug: Type.String(),
    term_group: Type.Integer(),
    term_taxonomy_id: Type.Integer(),
    taxonomy: Type.String(),
    description: Type.String(),
    parent: Type.Integer(),
    count: Type.Integer(),
    filter: Type.String(),
    id: Type.Integer(),
    urls: TermUrlsSchema,
  },
  { additionalProperties: false },
);
export type EventTerm = Static<typeof EventTermSchema>;

const termHead = {
  id: Type.Integer(),
  count: Type.Integer(),
  description: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  taxonomy: Type.String(),
};
const termTail = { meta: EmptyArraySchema, url: Type.String(), urls: TermUrlsSchema };

/**
 * The standalone term object (reference §2.6 a): `parent` only for categories, `meta` always `[]`,
 * `url` the public archive link. (The reference's WordPress `_links` are not produced.)
 */
export const CategoryResponseSchema = Type.Object({ ...termHead, parent: Type.Integer(), ...termTail }, { additionalProperties: false });
export const TagResponseSchema = Type.Object({ ...termHead, ...termTail }, { additionalProperties: false });
export type TermResponse = Static<typeof TagResponseSchema> & { parent?: number };

const termFields = {
  name: Type.String({ minLength: 1, maxLength: 200, description: 'Term name' }),
  description: Type.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH, description: 'Term description' }),
  slug: Type.String({ minLength: 1, maxLength: MAX_SLUG_LENGTH, description: 'Term slug' }),
};

/** A parent category: its id, slug or name; 0 makes the category a root one. */
const ParentInput = Type.Union([Type.Integer({ minimum: 0, maximum: MAX_ID }), Type.String({ minLength: 1, maxLength: 200 })], {
  description: 'Parent category id, slug or name (0: no parent)',
});

export const CategoryCreateSchema = Type.Object(
  { ...termFields, description: Type.Optional(termFields.description), slug: Type.Optional(termFields.slug), parent: Type.Optional(ParentInput) },
  { additionalProperties: false },
);
export type CategoryCreate = Static<typeof CategoryCreateSchema>;
export const CategoryPatchSchema = Type.Partial(CategoryCreateSchema, { additionalProperties: false });
export type CategoryPatch = Static<typeof CategoryPatchSchema>;

/**
 * Tags are flat. `parent` is accepted by the schema only so the service can answer with the
 * reference's own error (`rest_taxonomy_not_hierarchical`).
 */
export const TagCreateSchema = Type.Object(
  { ...termFields, description: Type.Optional(termFields.description), slug: Type.Optional(termFields.slug), parent: Type.Optional(Type.Unknown()) },
  { additionalProperties: false },
);
export type TagCreate = Static<typeof TagCreateSchema>;
export const TagPatchSchema = Type.Partial(TagCreateSchema, { additionalProperties: false });
export type TagPatch = Static<typeof TagPatchSchema>;

const termListProperties = {
  ...PageQueryProperties,
  search: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_SEARCH_LENGTH, description: 'Text contained in the name or slug (case-insensitive)' })),
  exclude: Type.Optional(ListInput({ description: 'Terms to leave out (ids, slugs or names)' })),
  include: Type.Optional(ListInput({ description: 'Only these terms (ids, slugs or names)' })),
  order: Type.Optional(Type.String({ minLength: 1, maxLength: 20, description: 'asc (default) or desc' })),
  orderby: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'name (default), id, term_id, slug, description, count, parent, term_group or include' })),
  hide_empty: Type.Optional(WpBoolean({ description: 'Hide terms no published event uses (default true)' })),
  post: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'Terms of this event' })),
  event: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'Terms of this event (alias of post; wins over it)' })),
  slug: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_SLUG_LENGTH, description: 'Exact slug' })),
};

export const CategoryListQuerySchema = Type.Object(
  { ...termListProperties, parent: Type.Optional(ParentInput) },
  { additionalProperties: true },
);
export type CategoryListQuery = Static<typeof CategoryListQuerySchema>;
export const TagListQuerySchema = Type.Object(termListProperties, { additionalProperties: true });
export type TagListQuery = Static<typeof TagListQuerySchema>;

/** Term lists put the links first and the items after the totals (reference §3.1). */
const termEnvelope = {
  rest_url: Type.String(),
  total: Type.Optional(Type.Integer()),
  total_pages: Type.Optional(Type.Integer()),
};
export const CategoryListResponseSchema = Type.Object({
  ...termEnvelope,
  categories: Type.Optional(Type.Array(CategoryResponseSchema)),
  next_rest_url: Type.Optional(Type.String()),
  previous_rest_url: Type.Optional(Type.String()),
});
export const TagListResponseSchema = Type.Object({
  ...termEnvelope,
  tags: Type.Optional(Type.Array(TagResponseSchema)),
  next_rest_url: Type.Optional(Type.String()),
  previous_rest_url: Type.Optional(Type.String()),
});
