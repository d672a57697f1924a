/**
 * The OpenAPI 3.1 document of one language root (`GET /{ns}/doc`), generated from the
 * route catalogue: every registered path and method, parameters and request bodies from the
 * validation schemas, responses from the serialisation schemas (so they describe what is really
 * sent, unlike the reference's), the error responses, and the bearer scheme on the
 * operations that need a token. Descriptions, summaries and tag names are in the root's language;
 * everything else is identical under every root.
 */
import { type TSchema } from '@sinclair/typebox';
import { type Language, translate } from '../i18n/index.js';
import { DateDetailsSchema, ErrorResponseSchema, ImageSchema } from '../schemas/common.js';
import { NamespaceIndexSchema } from '../schemas/discovery.js';
import {
  CostDetailsSchema,
  EventCreateSchema,
  EventListResponseSchema,
  EventPatchByIdSchema,
  EventPatchSchema,
  EventResponseSchema,
} from '../schemas/events.js';
import { OrganizerCreateSchema, OrganizerListResponseSchema, OrganizerPatchSchema, OrganizerResponseSchema } from '../schemas/organizers.js';
import {
  CategoryCreateSchema,
  CategoryListResponseSchema,
  CategoryPatchSchema,
  CategoryResponseSchema,
  EventTermSchema,
  TagCreateSchema,
  TagListResponseSchema,
  TagPatchSchema,
  TagResponseSchema,
  TermUrlsSchema,
} from '../schemas/terms.js';
import { RecurrenceInputSchema } from '../schemas/recurrence.js';
import { SeriesResponseSchema } from '../schemas/series.js';
import { DeletedListResponseSchema, TombstoneSchema } from '../schemas/sync.js';
import { VenueCreateSchema, VenueListResponseSchema, VenuePatchSchema, VenueResponseSchema } from '../schemas/venues.js';
import { type CatalogRoute } from './route-catalog.js';
import { type JsonObject, plainSchema } from './schema-text.js';

export const OPENAPI_VERSION = '3.1.0';
export const API_VERSION = '1.0.0';

/**
 * Schemas documented once under `components.schemas` and referenced wherever they occur (matched
 * by identity, or by content for copies such as `Type.Optional(ImageSchema)`). Naming only: a
 * schema missing here is inlined, never left out.
 */
const COMPONENT_SCHEMAS: ReadonlyArray<readonly [string, TSchema]> = [
  ['Error', ErrorResponseSchema],
  ['NamespaceIndex', NamespaceIndexSchema],
  ['Event', EventResponseSchema],
  ['EventList', EventListResponseSchema],
  ['EventCreate', EventCreateSchema],
  ['EventUpdate', EventPatchByIdSchema],
  ['EventUpdateBySlug', EventPatchSchema],
  ['EventTerm', EventTermSchema],
  ['DateDetails', DateDetailsSchema],
  ['CostDetails', CostDetailsSchema],
  ['Image', ImageSchema],
  ['Venue', VenueResponseSchema],
  ['VenueList', VenueListResponseSchema],
  ['VenueCreate', VenueCreateSchema],
  ['VenueUpdate', VenuePatchSchema],
  ['Organizer', OrganizerResponseSchema],
  ['OrganizerList', OrganizerListResponseSchema],
  ['OrganizerCreate', OrganizerCreateSchema],
  ['OrganizerUpdate', OrganizerPatchSchema],
  ['Category', CategoryResponseSchema],
  ['CategoryList', CategoryListResponseSchema],
  ['CategoryCreate', CategoryCreateSchema],
  ['CategoryUpdate', CategoryPatchSchema],
  ['Tag', TagResponseSchema],
  ['TagList', TagListResponseSchema],
  ['TagCreate', TagCreateSchema],
  ['TagUpdate', TagPatchSchema],
  ['TermUrls', TermUrlsSchema],
  ['Tombstone', TombstoneSchema],
  ['DeletedList', DeletedListResponseSchema],
  ['Series', SeriesResponseSchema],
  ['RecurrenceInput', RecurrenceInputSchema],
];

/** Reason-phrase names of the shared error responses (`components.responses`). */
const ERROR_RESPONSE_NAMES: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Gone',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  422: 'UnprocessableContent',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

/** Singular names for operation ids (`listEvents`, `getEvent`); others are derived. */
const SINGULAR: Readonly<Record<string, string>> = {
  events: 'Event',
  venues: 'Venue',
  organizers: 'Organizer',
  categories: 'Category',
  tags: 'Tag',
  series: 'Series',
};

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const REQUEST_CONTENT_TYPES = ['application/json', 'application/x-www-form-urlencoded'] as const;

export interface OpenApiOptions {
  language: Language;
  /** Requests per minute (0 = unlimited); a limited kind of operation may answer 429. */
  rateLimits: { reads: number; writes: number };
}

export interface OpenApiDocument extends JsonObject {
  openapi: string;
  info: JsonObject;
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, JsonObject>>;
  components: JsonObject;
}

/** Fastify's `/events/:id(^\d+$)` as an OpenAPI path: `/events/{id}`; the index is `/`. */
export function openApiPath(path: string): string {
  const converted = path.replace(/:(\w+)(?:\((?:\\.|[^()\\])*\))?/g, '{$1}');
  return converted === '' ? '/' : converted;
}

export interface OperationName {
  /** The group: the resource collection, or `discovery` for the index and `/doc`; its tag is its name in the document's language. */
  group: string;
  /** Message key of the summary. */
  summaryKey: string;
  operationId: string;
}

const FEED_EXTENSION = '.ics';

/** A feed is filed under its resource: `getEventsFeed`, `getEventFeed`, `getEventFeedBySlug`. */
function feedOperationName(segments: string[]): OperationName {
  const resource = (segments[0] as string).replace(FEED_EXTENSION, '');
  const all = resource.charAt(0).toUpperCase() + resource.slice(1);
  const one = SINGULAR[resource] ?? all.replace(/s$/, '');
  if (segments.length === 1) return { group: resource, summaryKey: `operation.${resource}.feed`, operationId: `get${all}Feed` };
  const bySlug = segments[1] === 'by-slug' ? 'BySlug' : '';
  return { group: resource, summaryKey: `operation.${resource}.feedOne${bySlug}`, operationId: `get${one}Feed${bySlug}` };
}

/** Names an operation from its path shape and method (a new shape gets a key the i18n test demands). */
export function operationName(path: string, method: string): OperationName {
  const segments = path.split('/').filter(Boolean);
  if (segments.length === 0) return { group: 'discovery', summaryKey: 'operation.index', operationId: 'getNamespaceIndex' };
  if (segments.length === 1 && segments[0] === 'doc') return { group: 'discovery', summaryKey: 'operation.doc', operationId: 'getOpenApiDocument' };
  // The iCalendar feeds: `/events.ics`, `/events/{id}.ics`, `/events/by-slug/{slug}.ics`.
  if (path.endsWith(FEED_EXTENSION)) return feedOperationName(segments);
  const resource = segments[0] as string;
  const one = SINGULAR[resource] ?? resource.charAt(0).toUpperCase() + resource.slice(1).replace(/s$/, '');
  const all = resource.charAt(0).toUpperCase() + resource.slice(1);
  const bySlug = segments[1] === 'by-slug' ? 'BySlug' : '';
  const single = segments.length > 1;
  let action: string;
  let verb: string;
  if (!single) {
    action = method === 'POST' ? 'create' : method === 'GET' ? 'list' : method.toLowerCase();
    verb = action;
  } else if (method === 'GET') {
    action = 'get';
    verb = 'get';
  } else if (method === 'DELETE') {
    action = 'delete';
    verb = 'delete';
  } else if (BODY_METHODS.has(method)) {
    action = 'update';
    // POST, PUT and PATCH share one handler; each still needs its own operation id.
    verb = method === 'POST' ? 'update' : method.toLowerCase();
  } else {
    action = method.toLowerCase();
    verb = action;
  }
  return {
    group: resource,
    summaryKey: `operation.${resource}.${action}${bySlug}`,
    operationId: `${verb}${action === 'list' ? all : one}${bySlug}`,
  };
}

/** Reads that answer 410: the deletions of an incremental sync, once `since` is past the retention. */
const GONE_READS = new Set(['/deleted']);

/** Which declared error codes an operation can really answer. */
function codeApplies(code: number, method: string, path: string): boolean {
  if (code === 409 || code === 413 || code === 415 || code === 422) return BODY_METHODS.has(method);
  if (code === 410) return method === 'DELETE' || GONE_READS.has(path);
  return true;
}

function text(language: Language, key: string): string {
  return translate(language, key) ?? key;
}

/**
 * The tag of a group: its name in the document's language (`groupName.<group>`; the group itself
 * when the catalogue has no name for it). Swagger UI groups operations by tag name and builds its
 * anchors from it (`#/Veranstaltungen/listEvents`), so operations and the `tags` list use this one name.
 */
export function tagName(language: Language, group: string): string {
  return translate(language, `groupName.${group}`) ?? group;
}

function componentMatcher(): (node: JsonObject) => string | undefined {
  const byIdentity = new Map<unknown, string>();
  const byContent = new Map<string, string>();
  for (const [name, schema] of COMPONENT_SCHEMAS) {
    byIdentity.set(schema, name);
    byContent.set(JSON.stringify(schema), name);
  }
  return (node) => {
    const name = byIdentity.get(node) ?? (node.type === 'object' ? byContent.get(JSON.stringify(node)) : undefined);
    return name === undefined ? undefined : `#/components/schemas/${name}`;
  };
}

interface Builder {
  language: Language;
  schema(node: unknown): unknown;
  errorCodes: Set<number>;
}

function parametersOf(route: CatalogRoute, b: Builder): JsonObject[] {
  const parameters: JsonObject[] = [];
  // Header parameters are documented as the schema spells them (`Idempotency-Key`); Fastify
  // validates them case-insensitively.
  for (const [location, part] of [
    ['path', route.schema.params],
    ['query', route.schema.querystring],
    ['header', route.schema.headers],
  ] as const) {
    const { properties = {}, required = [] } = (part ?? {}) as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, prop] of Object.entries(properties)) {
      const { description, ...schema } = b.schema(prop) as JsonObject;
      parameters.push({
        name,
        in: location,
        ...(typeof description === 'string' ? { description } : {}),
        required: location === 'path' || required.includes(name),
        schema,
      });
    }
  }
  return parameters;
}

function requestBodyOf(route: CatalogRoute, method: string, b: Builder): JsonObject | undefined {
  if (route.schema.body === undefined || !BODY_METHODS.has(method)) return undefined;
  const schema = b.schema(route.schema.body);
  // A collection POST creates (the body's required fields are required); an update may send nothing.
  const isCreate = !route.path.slice(1).includes('/');
  return { required: isCreate, content: Object.fromEntries(REQUEST_CONTENT_TYPES.map((type) => [type, { schema }])) };
}

function isListSchema(schema: unknown): boolean {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return properties !== undefined && 'rest_url' in properties && 'total_pages' in properties;
}

/**
 * A success response's headers and content. A JSON schema is the body's; Fastify's per-media-type
 * form (`{ content: { <type>: { schema } } }`, for bodies that are not JSON) names its types, and
 * may add the `headers` it sends.
 */
function successOf(method: string, schema: unknown, b: Builder): JsonObject {
  const { content, headers } = schema as { content?: Record<string, { schema: unknown }>; headers?: Record<string, unknown> };
  if (content !== undefined) {
    const documented = Object.entries(headers ?? {}).map(([name, header]) => {
      const { description, ...rest } = b.schema(header) as JsonObject;
      return [name, { description, schema: rest }];
    });
    return {
      ...(documented.length > 0 ? { headers: Object.fromEntries(documented) } : {}),
      content: Object.fromEntries(Object.entries(content).map(([type, media]) => [type, { schema: b.schema(media.schema) }])),
    };
  }
  const listHeaders =
    method === 'GET' && isListSchema(schema)
      ? {
          'X-TEC-Total': { description: text(b.language, 'header.total'), schema: { type: 'integer' } },
          'X-TEC-TotalPages': { description: text(b.language, 'header.totalPages'), schema: { type: 'integer' } },
          Link: { description: text(b.language, 'header.link'), schema: { type: 'string' } },
        }
      : undefined;
  return { ...(listHeaders ? { headers: listHeaders } : {}), content: { 'application/json': { schema: b.schema(schema) } } };
}

function responsesOf(route: CatalogRoute, method: string, b: Builder, rateLimited: boolean): JsonObject {
  const responses: JsonObject = {};
  const declared = Object.entries((route.schema.response ?? {}) as Record<string, unknown>)
    .map(([code, schema]) => [Number(code), schema] as const)
    .filter(([code]) => Number.isInteger(code))
    .sort(([a], [b2]) => a - b2);
  // A collection POST answers 201; every other operation 200 (declared maps may hold both).
  const success = method === 'POST' && !route.path.slice(1).includes('/') ? 201 : 200;
  for (const [code, schema] of declared) {
    if (code < 400) {
      if (code !== success && declared.some(([c]) => c === success)) continue;
      responses[String(code)] = { description: text(b.language, `response.${code}`), ...successOf(method, schema, b) };
    } else if (codeApplies(code, method, route.path)) {
      b.errorCodes.add(code);
      responses[String(code)] = { $ref: `#/components/responses/${ERROR_RESPONSE_NAMES[code] ?? `Error${code}`}` };
    }
  }
  if (rateLimited) {
    b.errorCodes.add(429);
    responses['429'] = { $ref: `#/components/responses/${ERROR_RESPONSE_NAMES[429]}` };
  }
  return responses;
}

/**
 * The document without `servers` (which depend on the request): build it once per language and
 * add the server with `withServer`.
 */
export function buildOpenApiDocument(catalog: readonly CatalogRoute[], options: OpenApiOptions): Omit<OpenApiDocument, 'servers'> {
  const { language, rateLimits } = options;
  const refOf = componentMatcher();
  const b: Builder = {
    language,
    schema: (node) => {
      const ref = node !== null && typeof node === 'object' ? refOf(node as JsonObject) : undefined;
      return ref === undefined ? plainSchema(node, { language, refOf }) : { $ref: ref };
    },
    errorCodes: new Set(),
  };

  const paths: Record<string, Record<string, JsonObject>> = {};
  const groups: string[] = [];
  for (const route of catalog) {
    const path = openApiPath(route.path);
    const item = (paths[path] ??= {});
    for (const method of route.methods) {
      const name = operationName(route.path, method);
      if (!groups.includes(name.group)) groups.push(name.group);
      const parameters = parametersOf(route, b);
      const requestBody = requestBodyOf(route, method, b);
      const rateLimited = BODY_METHODS.has(method) || method === 'DELETE' ? rateLimits.writes > 0 : rateLimits.reads > 0;
      item[method.toLowerCase()] = {
        tags: [tagName(language, name.group)],
        summary: text(language, name.summaryKey),
        operationId: name.operationId,
        ...(parameters.length > 0 ? { parameters } : {}),
        ...(requestBody ? { requestBody } : {}),
        responses: responsesOf(route, method, b, rateLimited),
        // Only writes need a token, so only they carry `security` (Swagger UI shows a lock on them
        // alone). Reads are public: the document declares no global `security`, so they need none.
        ...(route.access === 'write' ? { security: [{ bearer: [] }] } : {}),
      };
    }
  }

  const schemas = Object.fromEntries(COMPONENT_SCHEMAS.map(([name, schema]) => [name, plainSchema(schema, { language, refOf })]));
  const responses = Object.fromEntries(
    [...b.errorCodes]
      .sort((x, y) => x - y)
      .map((code) => [
        ERROR_RESPONSE_NAMES[code] ?? `Error${code}`,
        { description: text(language, `response.${code}`), content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      ]),
  );

  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: text(language, 'api.title'),
      version: API_VERSION,
      description: text(language, 'api.description'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    tags: groups.map((group) => ({ name: tagName(language, group), description: text(language, `group.${group}`) })),
    paths,
    components: {
      schemas,
      responses,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: text(language, 'security.bearer') } },
    },
  };
}

/** The document with `servers[0].url` = the namespace base the request came in on. */
export function withServer(document: Omit<OpenApiDocument, 'servers'>, apiBase: string): OpenApiDocument {
  const { openapi, info, ...rest } = document;
  return { openapi, info, servers: [{ url: apiBase }], ...rest } as OpenApiDocument;
}
