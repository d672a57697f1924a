import { type FastifyRequest } from 'fastify';
import { type SerializeCaches } from '../serialize/caches.js';
import { contextKey, type SerializeContext } from '../serialize/context.js';
import { apiPathOf } from './roots.js';

export interface ApiRouteOptions {
  siteTimezone: string;
  publicUrl: string | null;
  /** The app's serialization caches (src/serialize/caches.ts). */
  caches: SerializeCaches;
}

/** Links use the root (or drop-in path) the request came in on, and its host when allowed (src/plugins/hosts.ts). */
export function serializeContext(request: FastifyRequest, options: ApiRouteOptions, single: boolean): SerializeContext {
  const origin = request.linkOrigin;
  const fields = { apiBase: `${origin}${apiPathOf(request)}`, siteUrl: options.publicUrl ?? origin, siteTimezone: options.siteTimezone, single };
  // Written out, not `{ ...fields, now, key }`: V8 gives every object made by a spread plus new keys
  // a hidden class of its own, and serializing a page reads the context once per field per item.
  return {
    apiBase: fields.apiBase,
    siteUrl: fields.siteUrl,
    siteTimezone: fields.siteTimezone,
    single,
    now: new Date(),
    key: contextKey(fields),
    caches: options.caches,
  };
}
