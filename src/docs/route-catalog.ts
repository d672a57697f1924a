/**
 * The route table as Fastify registered it, per language root. The namespace index and the OpenAPI
 * document are built from this catalogue, i.e. from the very schemas that validate requests and
 * serialise responses, so the documentation cannot drift from the routes (issue 8).
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
  /** The routes served under one root (`''`, `/en`, `/de`, `/fr`), in registration order. */
  routes(root: string): readonly CatalogRoute[];
}

/**
 * Collects every route registered below `<root>/<namespace>` for each root. Must be installed
 * before the route plugins are registered (an `onRoute` hook only sees later routes).
 */
export function installRouteCatalog(app: FastifyInstance, { roots, namespace }: { roots: readonly string[]; namespace: string }): RouteCatalog {
  const byRoot = new Map<string, CatalogRoute[]>(roots.map((root) => [root, []]));
  const bases = roots.map((root) => ({ root, base: `${root}/${namespace}` }));

  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => m.toUpperCase()).filter((m) => m !== 'HEAD');
    if (methods.length === 0) return;
    const match = bases.find(({ base }) => route.url === base || route.url.startsWith(`${base}/`));
    if (match === undefined) return;
    byRoot.get(match.root)?.push({
      path: route.url.slice(match.base.length),
      methods,
      schema: route.schema ?? {},
      access: route.config?.access === 'write' ? 'write' : 'read',
    });
  });

  return {
    routes: (root) => byRoot.get(root) ?? [],
  };
}
