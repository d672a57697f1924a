import { type Static, Type } from '@sinclair/typebox';
import { EmptyArraySchema, ListInput, MAX_ID, MAX_SEARCH_LENGTH, MAX_SLUG_LENGTH, MAX_TEXT_LENGTH, PageQueryProperties, WpBoolean } from './common.js';
import { i18n } from '../i18n/index.js';

export const TermUrlsSchema = Type.Object(
  {
    self: Type.String(i18n('field.urls.self')),
    collection: Type.String(i18n('field.urls.collection')),
    up: Type.Optional(Type.String(i18n('field.urls.up'))),
  },
  i18n('schema.termUrls'),
);

/**
 * A category or tag as embedded in an event (embedded shape): the raw term record with
 * `term_id` renamed to `id` and moved to the end, plus `urls`; no `url`, no `meta`.
 */
export const EventTermSchema = Type.Object(
  {
    name: Type.String(i18n('term.name')),
    slug: Type.String(i18n('term.slug')),
    term_group: Type.Integer(i18n('field.term_group')),
    term_taxonomy_id: Type.Integer(i18n('field.term_taxonomy_id')),
    taxonomy: Type.String(i18n('field.taxonomy')),
    description: Type.String(i18n('term.description')),
    parent: Type.Integer(i18n('field.parent')),
    count: Type.Integer(i18n('field.count')),
    filter: Type.String(i18n('field.filter')),
    id: Type.Integer(i18n('common.id')),
    urls: TermUrlsSchema,
  },
  { additionalProperties: false, ...i18n('schema.eventTerm') },
);
export type EventTerm = Static<typeof EventTermSchema>;

const termHead = {
  id: Type.Integer(i18n('common.id')),
  count: Type.Integer(i18n('field.count')),
  description: Type.String(i18n('term.description')),
  name: Type.String(i18n('term.name')),
  slug: Type.String(i18n('term.slug')),
  taxonomy: Type.String(i18n('field.taxonomy')),
};
const termTail = { meta: { ...EmptyArraySchema, ...i18n('field.meta') }, url: Type.String(i18n('field.term_url')), urls: TermUrlsSchema };

/**
 * The standalone term object (standalone shape): `parent` only for categories, `meta` always `[]`,
 * `url` the public archive link. (The reference's WordPress `_links` are not produced.)
 */
export const CategoryResponseSchema = Type.Object(
  { ...termHead, parent: Type.Integer(i18n('field.parent')), ...termTail },
  { additionalProperties: false, ...i18n('schema.category') },
);
export const TagResponseSchema = Type.Object({ ...termHead, ...termTail }, { additionalProperties: false, ...i18n('schema.tag') });
export type TermResponse = Static<typeof TagResponseSchema> & { parent?: number };

const termFields = {
  name: Type.String({ minLength: 1, maxLength: 200, ...i18n('term.name') }),
  description: Type.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH, ...i18n('term.description') }),
  slug: Type.String({ minLength: 1, maxLength: MAX_SLUG_LENGTH, ...i18n('term.slug') }),
};

/** A parent category: its id, slug or name; 0 makes the category a root one. */
const ParentInput = Type.Union([Type.Integer({ minimum: 0, maximum: MAX_ID }), Type.String({ minLength: 1, maxLength: 200 })], i18n('category.parent'));

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
  {
    ...termFields,
    description: Type.Optional(termFields.description),
    slug: Type.Optional(termFields.slug),
    parent: Type.Optional(Type.Unknown(i18n('tag.parent'))),
  },
  { additionalProperties: false },
);
export type TagCreate = Static<typeof TagCreateSchema>;
export const TagPatchSchema = Type.Partial(TagCreateSchema, { additionalProperties: false });
export type TagPatch = Static<typeof TagPatchSchema>;

const termListProperties = {
  ...PageQueryProperties,
  search: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_SEARCH_LENGTH, ...i18n('termList.search') })),
  exclude: Type.Optional(ListInput(i18n('termList.exclude'))),
  include: Type.Optional(ListInput(i18n('termList.include'))),
  order: Type.Optional(Type.String({ minLength: 1, maxLength: 20, ...i18n('termList.order') })),
  orderby: Type.Optional(Type.String({ minLength: 1, maxLength: 40, ...i18n('termList.orderby') })),
  hide_empty: Type.Optional(WpBoolean(i18n('termList.hide_empty'))),
  post: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, ...i18n('termList.post') })),
  event: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, ...i18n('termList.event') })),
  slug: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_SLUG_LENGTH, ...i18n('termList.slug') })),
};

export const CategoryListQuerySchema = Type.Object({ ...termListProperties, parent: Type.Optional(ParentInput) }, { additionalProperties: true });
export type CategoryListQuery = Static<typeof CategoryListQuerySchema>;
export const TagListQuerySchema = Type.Object(termListProperties, { additionalProperties: true });
export type TagListQuery = Static<typeof TagListQuerySchema>;

/** Term lists put the links first and the items after the totals. */
const termEnvelope = {
  rest_url: Type.String(i18n('list.rest_url')),
  total: Type.Optional(Type.Integer(i18n('list.total'))),
  total_pages: Type.Optional(Type.Integer(i18n('list.total_pages'))),
};
export const CategoryListResponseSchema = Type.Object(
  {
    ...termEnvelope,
    categories: Type.Optional(Type.Array(CategoryResponseSchema, i18n('list.items'))),
    next_rest_url: Type.Optional(Type.String(i18n('list.next_rest_url'))),
    previous_rest_url: Type.Optional(Type.String(i18n('list.previous_rest_url'))),
  },
  i18n('schema.categoryList'),
);
export const TagListResponseSchema = Type.Object(
  {
    ...termEnvelope,
    tags: Type.Optional(Type.Array(TagResponseSchema, i18n('list.items'))),
    next_rest_url: Type.Optional(Type.String(i18n('list.next_rest_url'))),
    previous_rest_url: Type.Optional(Type.String(i18n('list.previous_rest_url'))),
  },
  i18n('schema.tagList'),
);
