/**
 * The namespace index (`GET /{ns}`) in the shape of WordPress's namespace index:
 * every route of one root, keyed by its full pattern, with its methods, endpoints and arguments
 * (required, type, default — computed defaults included — and the description in the root's
 * language). Built from the route catalogue, so it lists exactly what is registered.
 */
import { formatWallClock } from '../lib/dates/index.js';
import { type Language } from '../i18n/index.js';
import { dateBounds } from '../query/events.js';
import {
  EventFeedQuerySchema,
  EventFeedQueryWithoutGeolocationSchema,
  EventListQuerySchema,
  EventListQueryWithoutGeolocationSchema,
} from '../schemas/events.js';
import { type CatalogRoute } from './route-catalog.js';
import { type JsonObject, plainSchema, summarizeArg } from './schema-text.js';

export interface IndexContext {
  namespace: string;
  /** `<origin><root>/<namespace>`: base of every link. */
  apiBase: string;
  /** Documentation UI of this root, linked as `help`. */
  uiUrl: string;
  language: Language;
  /** `help` adds each route's response schema, as WordPress does. */
  context: string;
  now: Date;
  siteTimezone: string;
  perPageMax: number;
}

interface ComputedDefaultContext {
  now: Date;
  siteTimezone: string;
  perPageMax: number;
}

/**
 * Defaults that depend on the clock, keyed by the query schema they belong to. They come from the
 * same compiler that applies them (the default window: 00:00 yesterday to 24 months from now).
 */
function eventListDefaults(ctx: ComputedDefaultContext): Record<string, unknown> {
  const { bounds } = dateBounds({ dates: {}, statuses: [] }, ctx);
  const format = (d: Date | undefined) => (d === undefined ? undefined : formatWallClock(d, ctx.siteTimezone));
  return { start_date: format(bounds.start_date), end_date: format(bounds.end_date) };
}
const COMPUTED_DEFAULTS = new Map<unknown, (ctx: ComputedDefaultContext) => Record<string, unknown>>([
  [EventListQuerySchema, eventListDefaults],
  // The same parameters as documented with geolocation off (src/docs/api-docs.ts), and the feed's.
  [EventListQueryWithoutGeolocationSchema, eventListDefaults],
  [EventFeedQuerySchema, eventListDefaults],
  [EventFeedQueryWithoutGeolocationSchema, eventListDefaults],
]);

type Link = Array<{ href: string }>;

export interface IndexEndpoint {
  methods: string[];
  args: Record<string, JsonObject> | [];
}

export interface IndexRoute {
  namespace: string;
  methods: string[];
  endpoints: IndexEndpoint[];
  schema?: unknown;
  _links?: { self: Link };
}

export interface NamespaceIndex {
  namespace: string;
  routes: Record<string, IndexRoute>;
  _links: { self: Link; describedby: Link; help: Link };
}

/** Fastify's `/events/:id(^\d+$)` as WordPress writes it: `/events/(?P<id>\d+)`. */
export function wordpressPattern(path: string): string {
  return path.replace(/:(\w+)(?:\(((?:\\.|[^()\\])*)\))?/g, (_m, name: string, regex: string | undefined) => {
    const body = regex === undefined ? '[^/]+' : regex.replace(/^\^/, '').replace(/\$$/, '');
    return `(?P<${name}>${body})`;
  });
}

/** Only routes without path captures get a `self` link (as in WordPress). */
const hasCaptures = (path: string) => path.includes(':');

function propertiesOf(schema: unknown): Array<[string, unknown, boolean]> {
  if (schema === null || typeof schema !== 'object') return [];
  const { properties, required } = schema as { properties?: Record<string, unknown>; required?: string[] };
  if (properties === undefined) return [];
  return Object.entries(properties).map(([name, prop]) => [name, prop, required?.includes(name) ?? false]);
}

function argsOf(route: CatalogRoute, ctx: IndexContext): IndexEndpoint['args'] {
  const computed = COMPUTED_DEFAULTS.get(route.schema.querystring)?.(ctx) ?? {};
  const args: Record<string, JsonObject> = {};
  // Path values first, then query, then body, as WordPress lists a route's args.
  for (const part of [route.schema.params, route.schema.querystring, route.schema.body]) {
    for (const [name, prop, required] of propertiesOf(part)) {
      if (name in args) continue;
      args[name] = summarizeArg(prop, required, ctx.language, computed[name]);
    }
  }
  return Object.keys(args).length === 0 ? [] : args;
}

/**
 * The 200 response schema of the route's GET, for `context=help`; of a body that is not JSON
 * (Fastify's per-media-type form), the schema of its first media type.
 */
function responseSchemaOf(routes: CatalogRoute[], language: Language): unknown {
  const get = routes.find((r) => r.methods.includes('GET'));
  const response = get?.schema.response as Record<string, { content?: Record<string, { schema: unknown }> }> | undefined;
  const declared = response?.['200'];
  const schema = declared?.content === undefined ? declared : Object.values(declared.content)[0]?.schema;
  return schema === undefined ? undefined : plainSchema(schema, { language });
}

export function buildNamespaceIndex(catalog: readonly CatalogRoute[], ctx: IndexContext): NamespaceIndex {
  const groups = new Map<string, CatalogRoute[]>();
  for (const route of catalog) {
    const group = groups.get(route.path);
    if (group === undefined) groups.set(route.path, [route]);
    else group.push(route);
  }
  const routes: Record<string, IndexRoute> = {};
  for (const [path, group] of groups) {
    const entry: IndexRoute = {
      namespace: ctx.namespace,
      methods: [...new Set(group.flatMap((r) => r.methods))],
      endpoints: group.map((r) => ({ methods: r.methods, args: argsOf(r, ctx) })),
    };
    if (ctx.context === 'help') {
      const schema = responseSchemaOf(group, ctx.language);
      if (schema !== undefined) entry.schema = schema;
    }
    if (!hasCaptures(path)) entry._links = { self: [{ href: `${ctx.apiBase}${path}` }] };
    routes[`/${ctx.namespace}${wordpressPattern(path)}`] = entry;
  }
  return {
    namespace: ctx.namespace,
    routes,
    _links: {
      self: [{ href: ctx.apiBase }],
      describedby: [{ href: `${ctx.apiBase}/doc` }],
      help: [{ href: ctx.uiUrl }],
    },
  };
}
