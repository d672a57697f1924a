/**
 * Shared TypeBox pieces. They validate requests (src/plugins/validation.ts) and serialise
 * responses (fast-json-stringify), and are never re-declared inline.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { i18n } from '../i18n/index.js';
import { POST_STATUSES } from '../storage/port.js';
import { MAX_LIST_ITEMS } from '../query/list-input.js';

export { MAX_LIST_ITEMS };

/** Ids are positive integers below 2^53 (JSON numbers stay exact). */
export const MAX_ID = Number.MAX_SAFE_INTEGER;
export const MAX_SLUG_LENGTH = 200;
export const MAX_TITLE_LENGTH = 1000;
export const MAX_TEXT_LENGTH = 200_000;
export const MAX_SHORT_TEXT_LENGTH = 1000;
export const MAX_URL_LENGTH = 2048;
export const MAX_SEARCH_LENGTH = 200;

export const ErrorResponseSchema = Type.Object(
  {
    code: Type.String(i18n('error.code')),
    message: Type.String(i18n('error.message')),
    data: Type.Object({ status: Type.Integer() }, { additionalProperties: true, ...i18n('error.data') }),
  },
  { $id: 'ErrorResponse', ...i18n('error.response') },
);
export type ErrorResponse = Static<typeof ErrorResponseSchema>;

export const IdParamsSchema = Type.Object({
  id: Type.Integer({ minimum: 0, maximum: MAX_ID, ...i18n('common.id') }),
});
export type IdParams = Static<typeof IdParamsSchema>;

export const SlugParamsSchema = Type.Object({
  slug: Type.String({ minLength: 1, maxLength: MAX_SLUG_LENGTH, ...i18n('common.slug') }),
});
export type SlugParams = Static<typeof SlugParamsSchema>;

/**
 * WordPress boolean: JSON true/false, 1/0, or the strings true/false/1/0 in any
 * case. The `title` names the type in validation messages ("featured is not of type boolean.").
 */
export const WpBoolean = (options: { description?: string } = {}) =>
  Type.Union([Type.Boolean(), Type.Literal(0), Type.Literal(1), Type.String({ pattern: '^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|[01])$' })], {
    title: 'boolean',
    ...options,
  });
export type WpBooleanValue = Static<ReturnType<typeof WpBoolean>>;

/** A positive integer, also as a numeric string (form-encoded bodies carry only strings). */
export const WpPositiveInteger = (options: { description?: string } = {}) =>
  Type.Union([Type.Integer({ minimum: 1, maximum: MAX_ID }), Type.String({ pattern: '^0*[1-9][0-9]{0,15}$' })], {
    title: 'integer',
    ...options,
  });

/** A date-time input: a string (strtotime-compatible) or a Unix timestamp. */
export const DateInput = (options: { description?: string } = {}) =>
  Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Integer({ minimum: 0, maximum: 253402300799 })], {
    title: 'date',
    ...options,
  });

/** A list of ids, slugs or names: an array, a comma-separated string, or a single id. */
export const ListInput = (options: { description?: string } = {}) =>
  Type.Union(
    [
      Type.String({ maxLength: MAX_SHORT_TEXT_LENGTH * 10 }),
      Type.Integer({ minimum: 0, maximum: MAX_ID }),
      Type.Array(Type.Union([Type.String({ maxLength: MAX_SHORT_TEXT_LENGTH }), Type.Integer({ minimum: 0, maximum: MAX_ID })]), {
        maxItems: MAX_LIST_ITEMS,
      }),
    ],
    { title: 'list', ...options },
  );
export type ListInputValue = Static<ReturnType<typeof ListInput>>;

/** `YYYY-MM-DD HH:MM:SS` parts as zero-padded strings. */
export const DateDetailsSchema = Type.Object(
  {
    year: Type.String(),
    month: Type.String(),
    day: Type.String(),
    hour: Type.String(),
    minutes: Type.String(),
    seconds: Type.String(),
  },
  i18n('schema.dateDetails'),
);

/** The reference's image object; we keep what an http(s) URL gives us. */
export const ImageSchema = Type.Object(
  {
    url: Type.String(i18n('field.image.url')),
    id: Type.Optional(Type.Integer(i18n('field.image.id'))),
    extension: Type.Optional(Type.String(i18n('field.image.extension'))),
  },
  i18n('schema.image'),
);

/** `image` on events: the image object or `false`. */
export const ImageOrFalseSchema = Type.Union([ImageSchema, Type.Literal(false)]);

/** An always-empty JSON array (PHP's empty array), e.g. `custom_fields`, `meta`. */
export const EmptyArraySchema = Type.Array(Type.Unknown(), { maxItems: 0 });

/**
 * The Idempotency-Key request header of the create routes (src/plugins/idempotency.ts checks it
 * first, so a bad key is answered naming the header).
 */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
export const IdempotencyHeadersSchema = Type.Object({
  'Idempotency-Key': Type.Optional(
    Type.String({ minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: '^[\\x21-\\x7E]+$', ...i18n('header.idempotencyKey') }),
  ),
});

export const ErrorResponses = {
  400: ErrorResponseSchema,
  401: ErrorResponseSchema,
  403: ErrorResponseSchema,
  404: ErrorResponseSchema,
  409: ErrorResponseSchema,
  410: ErrorResponseSchema,
  412: ErrorResponseSchema,
  413: ErrorResponseSchema,
  415: ErrorResponseSchema,
  500: ErrorResponseSchema,
  503: ErrorResponseSchema,
} satisfies Record<number, TSchema>;

export const StatusSchema = Type.Union(
  POST_STATUSES.map((s) => Type.Literal(s)),
  i18n('common.status'),
);

/** An http(s) image URL; `""` removes the image. Numeric attachment ids are refused (no media library). */
export const ImageInput = (options: { description?: string } = {}) =>
  Type.Union([Type.String({ maxLength: MAX_URL_LENGTH }), Type.Integer()], {
    ...i18n('common.image'),
    ...options,
  });

/** The reference's loose truthiness: booleans, numbers, or strings such as "yes", "on", "false". */
export const TruthyInput = (options: { description?: string } = {}) => Type.Union([Type.Boolean(), Type.Number(), Type.String({ maxLength: 20 })], options);

/** `status` on lists: one status, a comma-separated list, or an array (`any` = every status but trash). */
export const StatusListInput = Type.Union(
  [Type.String({ maxLength: 200 }), Type.Array(Type.String({ maxLength: 20 }), { maxItems: 10 })],
  i18n('common.statusList'),
);

/** `page` and `per_page`: positive integers; per_page above the maximum is clamped. */
export const PageQueryProperties = {
  // No maximum: any page past the last is the archive's 404, however far (as in the reference).
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1, ...i18n('common.page') })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, default: 10, ...i18n('common.per_page') })),
};

/**
 * The collection envelope's link members. fast-json-stringify writes required keys
 * before optional ones, so `total`/`total_pages` are declared optional to keep the reference's order
 * (`…, next_rest_url, previous_rest_url, total, total_pages`); the handlers always set them.
 */
export const ListLinkProperties = {
  rest_url: Type.String(i18n('list.rest_url')),
  next_rest_url: Type.Optional(Type.String(i18n('list.next_rest_url'))),
  previous_rest_url: Type.Optional(Type.String(i18n('list.previous_rest_url'))),
  total: Type.Optional(Type.Integer(i18n('list.total'))),
  total_pages: Type.Optional(Type.Integer(i18n('list.total_pages'))),
};

/** Fields every post type (venue, organizer) takes on writes, besides its name and own fields. */
export const PostWriteFields = {
  author: WpPositiveInteger(i18n('post.author')),
  date: DateInput(i18n('post.date')),
  date_utc: DateInput(i18n('post.date_utc')),
  description: Type.String({ maxLength: MAX_TEXT_LENGTH, ...i18n('post.description') }),
  status: StatusSchema,
};
