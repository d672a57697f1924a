/**
 * The namespace index and the OpenAPI document route (`/doc`).
 */
import { type Static, Type } from '@sinclair/typebox';
import { i18n } from '../i18n/index.js';
import { NAMESPACE } from '../routes/roots.js';
import { EmptyArraySchema } from './common.js';

export const IndexQuerySchema = Type.Object(
  {
    namespace: Type.Optional(Type.String({ minLength: 1, maxLength: 200, default: NAMESPACE, ...i18n('index.namespace') })),
    context: Type.Optional(
      Type.Union([Type.Literal('view'), Type.Literal('embed'), Type.Literal('edit'), Type.Literal('help')], { default: 'view', ...i18n('index.context') }),
    ),
  },
  { additionalProperties: true },
);
export type IndexQuery = Static<typeof IndexQuerySchema>;

const LinksSchema = Type.Array(Type.Object({ href: Type.String() }));

/**
 * One argument as WordPress describes it: only JSON-schema keywords, then `required` (declared last
 * and optional so that fast-json-stringify, which writes required keys first, keeps it last).
 */
const IndexArgSchema = Type.Object(
  {
    default: Type.Optional(Type.Unknown()),
    description: Type.Optional(Type.String()),
    type: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
    format: Type.Optional(Type.String()),
    enum: Type.Optional(Type.Array(Type.Unknown())),
    items: Type.Optional(Type.Object({}, { additionalProperties: true })),
    minimum: Type.Optional(Type.Number()),
    maximum: Type.Optional(Type.Number()),
    exclusiveMinimum: Type.Optional(Type.Number()),
    exclusiveMaximum: Type.Optional(Type.Number()),
    minLength: Type.Optional(Type.Integer()),
    maxLength: Type.Optional(Type.Integer()),
    pattern: Type.Optional(Type.String()),
    maxItems: Type.Optional(Type.Integer()),
    required: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const IndexEndpointSchema = Type.Object({
  methods: Type.Array(Type.String()),
  // PHP's empty array: a route without arguments has `"args": []`.
  args: Type.Union([Type.Record(Type.String(), IndexArgSchema), EmptyArraySchema]),
});

const IndexRouteSchema = Type.Object({
  namespace: Type.String(),
  methods: Type.Array(Type.String()),
  endpoints: Type.Array(IndexEndpointSchema),
  schema: Type.Optional(Type.Unknown()),
  _links: Type.Optional(Type.Object({ self: LinksSchema })),
});

export const NamespaceIndexSchema = Type.Object(
  {
    namespace: Type.String(),
    routes: Type.Record(Type.String(), IndexRouteSchema),
    _links: Type.Object({ self: LinksSchema, describedby: LinksSchema, help: LinksSchema }),
  },
  i18n('index.response'),
);

/** The OpenAPI document is generated (src/docs/openapi.ts); only its version member is fixed here. */
export const OpenApiDocumentSchema = Type.Object({ openapi: Type.String() }, { additionalProperties: true, ...i18n('doc.response') });
