/**
 * The route table of the namespace as Fastify registered it. The namespace index and the OpenAPI
 * document are built from this catalogue, i.e. from the very schemas that validate requests and
 * serialise responses, so the documentation cannot drift from the routes.
 *
 * Each route is registered once and serves every language root (src/routes/roots.ts), so the
 * catalogue holds one table: the documents of every root list it, with the root's links.
 */
import { type FastifyInstance, type FastifySchema, type RouteOptions } from 'fastify';

export interface CatalogRoute {
  /** Path below the namespace base in Fastify syntax: `''` (the index), `/doc`, `/events/:id(^\d+$)`. */
  path: string;
  /** Methods of this registration, in registration order; HEAD (Fastify's automatic twin of GET) is left out. */
  methods: string[];
  schema: FastifySchema;
  /** `write` routes need an editor token (src/plugins/auth.ts). */
  access: 'read' | 'write';
}

export interface RouteCatalog {
  /** The routes of the namespace, in registration order. */
  routes(): readonly CatalogRoute[];
}

/**
 * Collects every route registered below `/<namespace>`. Must be installed before the route
 * plugins are registered (an `onRoute` hook only sees later routes).
 */
export function installRouteCatalog(app: FastifyInstance, { namespace }: { namespace: string }): RouteCatalog {
  const routes: CatalogRoute[] = [];
  const base = `/${namespace}`;

  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => m.toUpperCase()).filter((m) => m !== 'HEAD');
    if (methods.length === 0) return;
    if (route.url !== base && !route.url.startsWith(`${base}/`)) return;
    routes.push({
      path: route.url.slice(base.length),
      methods,
      schema: route.schema ?? {},
      access: route.config?.access === 'write' ? 'write' : 'read',
    });
  });

  return {
    routes: () => routes,
  };
}
