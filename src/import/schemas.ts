/**
 * Seed records are the API's create bodies plus a `slug` identity, with references by slug instead
 * of id. Their schemas are built from the API's own (src/schemas): every field the API takes keeps
 * the API's definition; only the reference fields are replaced. Validation uses the API's Ajv settings
 * for bodies (src/plugins/validation.ts: no coercion, every error) and its error wording, except for
 * booleans, whose message says what is accepted and what the record holds (see booleanMessage).
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { type ApiError } from '../errors.js';
import { BODY_AJV_OPTIONS, validationToApiError } from '../schemas/validation.js';
import { MAX_LIST_ITEMS } from '../schemas/common.js';
import { EventCreateSchema } from '../schemas/events.js';
import { OrganizerCreateSchema } from '../schemas/organizers.js';
import { CategoryCreateSchema, TagCreateSchema } from '../schemas/terms.js';
import { VenueCreateSchema } from '../schemas/venues.js';

export const RESOURCES = ['categories', 'tags', 'venues', 'organizers', 'events'] as const;
export type Resource = (typeof RESOURCES)[number];

/**
 * A slug as stored: lower-case letters and digits in hyphen-separated runs, at most 190 characters
 * (what `slugFrom` makes, src/lib/slug.ts), so the services store it unchanged.
 */
const SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';
export const MAX_SEED_SLUG_LENGTH = 190;
export const SeedSlugSchema = Type.String({
  minLength: 1,
  maxLength: MAX_SEED_SLUG_LENGTH,
  pattern: SLUG_PATTERN,
  description: 'Slug (identity of the record)',
});
/** A reference by slug; `""` clears it (the seed's spelling of the API's `0`/`""`). */
const OptionalRef = (description: string) => Type.String({ maxLength: MAX_SEED_SLUG_LENGTH, pattern: `^(?:${SLUG_PATTERN.slice(1, -1)})?$`, description });
const RefList = (description: string) => Type.Array(SeedSlugSchema, { maxItems: MAX_LIST_ITEMS, description });

/**
 * An event record's `recurrence`: the API's rule, with exdates and rdates that may also be relative
 * dates like `start_date` (`next thursday +2 weeks`), counted from the same anchor and naming the
 * local date they fall on, so a seed file's series keeps its exceptions whenever it is loaded.
 */
export const SeedRecurrenceSchema = Type.Object(
  {
    rrule: Type.String({ minLength: 1, maxLength: 500, description: 'RFC 5545 RRULE, e.g. FREQ=WEEKLY;BYDAY=TU;COUNT=10' }),
    exdates: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 1000, description: 'Dates left out (YYYY-MM-DD or relative)' }),
    ),
    rdates: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 1000, description: 'Dates added (YYYY-MM-DD or relative)' })),
  },
  { additionalProperties: false, description: 'Makes the record a recurring series (docs/recurrence.md)' },
);
export type SeedRecurrence = Static<typeof SeedRecurrenceSchema>;

export const SeedEventSchema = Type.Object(
  {
    ...Type.Omit(EventCreateSchema, ['venue', 'organizer', 'categories', 'tags', 'post_parent', 'slug', 'recurrence']).properties,
    slug: Type.Optional(SeedSlugSchema),
    venue: Type.Optional(OptionalRef('Venue slug ("" unlinks)')),
    organizer: Type.Optional(RefList('Organizer slugs ([] unlinks all)')),
    categories: Type.Optional(RefList('Category slugs')),
    tags: Type.Optional(RefList('Tag slugs')),
    post_parent: Type.Optional(OptionalRef('Slug of the parent event, e.g. the first of a series ("" clears it)')),
    recurrence: Type.Optional(SeedRecurrenceSchema),
  },
  { additionalProperties: false },
);
export type SeedEvent = Static<typeof SeedEventSchema>;

export const SeedVenueSchema = Type.Object({ ...VenueCreateSchema.properties, slug: Type.Optional(SeedSlugSchema) }, { additionalProperties: false });
export type SeedVenue = Static<typeof SeedVenueSchema>;

export const SeedOrganizerSchema = Type.Object({ ...OrganizerCreateSchema.properties, slug: Type.Optional(SeedSlugSchema) }, { additionalProperties: false });
export type SeedOrganizer = Static<typeof SeedOrganizerSchema>;

export const SeedCategorySchema = Type.Object(
  {
    ...Type.Omit(CategoryCreateSchema, ['parent', 'slug']).properties,
    slug: Type.Optional(SeedSlugSchema),
    parent: Type.Optional(OptionalRef('Slug of the parent category ("" makes it a root category)')),
  },
  { additionalProperties: false },
);
export type SeedCategory = Static<typeof SeedCategorySchema>;

export const SeedTagSchema = Type.Object(
  { ...Type.Omit(TagCreateSchema, ['parent', 'slug']).properties, slug: Type.Optional(SeedSlugSchema) },
  { additionalProperties: false },
);
export type SeedTag = Static<typeof SeedTagSchema>;

export interface SeedRecordTypes {
  categories: SeedCategory;
  tags: SeedTag;
  venues: SeedVenue;
  organizers: SeedOrganizer;
  events: SeedEvent;
}

export const SEED_SCHEMAS: Record<Resource, TSchema> = {
  categories: SeedCategorySchema,
  tags: SeedTagSchema,
  venues: SeedVenueSchema,
  organizers: SeedOrganizerSchema,
  events: SeedEventSchema,
};

/** The API's request bodies, for checking what the import sends once slugs became ids. */
export const API_SCHEMAS: Record<Resource, TSchema> = {
  categories: CategoryCreateSchema,
  tags: TagCreateSchema,
  venues: VenueCreateSchema,
  organizers: OrganizerCreateSchema,
  events: EventCreateSchema,
};

/** Validates with the API's options for bodies. */
const ajv = new Ajv(BODY_AJV_OPTIONS);
/**
 * The same options, but string lengths counted in UTF-16 units (`.length`) instead of code points:
 * Ajv counts code points with a loop over every character of every string that has a length limit,
 * a generic `charCodeAt` call each (the strings of parsed records come in several kinds), ~2% of a
 * bulk load. A string's UTF-16 length is never below its code-point count, so a maximum it meets
 * is met for sure, and so is a minimum of 0 or 1 (`.length` and the code-point count are both zero
 * only for ""). A schema whose minimums are all 0 or 1 is therefore checked here first: a record it
 * accepts is valid; one it refuses is checked again by the exact validator, whose verdict and
 * messages are the API's. So only this check's verdict is used, never its errors: it stops at the
 * first one and keeps no details (less code to generate when a load starts, and to run).
 */
const utf16Ajv = new Ajv({
  ...BODY_AJV_OPTIONS,
  allErrors: false,
  verbose: false,
  unicode: false,
  // Ajv marks the option deprecated (and says so on every construction) but keeps it. Whatever else
  // it would report of a schema, the exact instance, with the default logger, reports too.
  logger: false,
});

/** Whether a value is a slug in the stored form (what SeedSlugSchema accepts). */
export const isSeedSlug = ajv.compile<string>(SeedSlugSchema);

export interface FieldError {
  field: string;
  message: string;
}

export type Validator = (record: unknown) => FieldError[];

/** The fields and messages of an API error (`rest_invalid_param`, `rest_missing_callback_param`, conflicts…). */
export function fieldErrors(error: ApiError): FieldError[] {
  const params = (error.data as { params?: unknown }).params;
  if (Array.isArray(params)) return params.map((field) => ({ field: String(field), message: `${String(field)} is required.` }));
  if (typeof params === 'object' && params !== null) {
    return Object.entries(params as Record<string, unknown>).map(([field, message]) => ({ field, message: String(message) }));
  }
  return [{ field: '(record)', message: error.message }];
}

/** Whether every `minLength` in a schema is 0 or 1 (see utf16Ajv). */
export function minimumLengthsAtMostOne(schema: unknown): boolean {
  if (schema === null || typeof schema !== 'object') return true;
  if (Array.isArray(schema)) return schema.every(minimumLengthsAtMostOne);
  const { minLength } = schema as { minLength?: unknown };
  if (minLength !== undefined && !(typeof minLength === 'number' && minLength <= 1)) return false;
  return Object.values(schema).every(minimumLengthsAtMostOne);
}

/**
 * The message of a boolean field (WpBoolean, src/schemas/common.ts) holding anything else. It lists
 * exactly what WpBoolean accepts (a CSV cell is text, so there the texts are the accepted forms),
 * and quotes the value as JSON, so a text reads `"yes"` and a number `2`.
 */
export function booleanMessage(field: string, value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  const got = json.length > 40 ? `${json.slice(0, 39)}…` : json;
  return `${field} must be true or false (got ${got}); also accepted: 1 and 0, and as text "true" and "false" (in any case), "1" and "0".`;
}

/** The top-level fields of a schema that are WpBooleans (their `title` names the type "boolean"). */
function booleanFields(schema: TSchema): Set<string> {
  const properties = (schema as { properties?: Record<string, { title?: unknown }> }).properties ?? {};
  return new Set(
    Object.entries(properties)
      .filter(([, property]) => property.title === 'boolean')
      .map(([name]) => name),
  );
}

function compile(schema: TSchema): Validator {
  // The exact validator is compiled when first needed: a load of valid records never needs it.
  let exact: ValidateFunction | null = null;
  const exactly = (): ValidateFunction => (exact ??= ajv.compile(schema));
  const first = minimumLengthsAtMostOne(schema) ? utf16Ajv.compile(schema) : exactly();
  const booleans = booleanFields(schema);
  return (record) => {
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      return [{ field: '(record)', message: 'A record must be a JSON object.' }];
    }
    if (first(record)) return [];
    const validate = exactly();
    if (validate !== first && validate(record)) return [];
    // A boolean field fails only by holding something else than the accepted forms.
    return fieldErrors(validationToApiError(validate.errors as ErrorObject[], 'body')).map((error) =>
      booleans.has(error.field) && Object.hasOwn(record, error.field)
        ? { field: error.field, message: booleanMessage(error.field, (record as Record<string, unknown>)[error.field]) }
        : error,
    );
  };
}

const seedValidators = new Map<Resource, Validator>();
const apiValidators = new Map<Resource, Validator>();

/** The validator of a resource's seed records (compiled once). */
export function seedValidator(resource: Resource): Validator {
  let validator = seedValidators.get(resource);
  if (!validator) seedValidators.set(resource, (validator = compile(SEED_SCHEMAS[resource])));
  return validator;
}

/** The validator of the API's create body of a resource (compiled once). */
export function apiValidator(resource: Resource): Validator {
  let validator = apiValidators.get(resource);
  if (!validator) apiValidators.set(resource, (validator = compile(API_SCHEMAS[resource])));
  return validator;
}
