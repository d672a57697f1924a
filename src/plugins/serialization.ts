/**
 * Response serializers, compiled once per response schema instead of once per route and status.
 *
 * Fastify builds a fast-json-stringify function for every status code of every route (a GET's
 * HEAD twin included). Our routes share a handful of response schemas (the error shape answers ten
 * statuses on each route), so it compiled each schema dozens of times at every start (and the test
 * suite builds an app per file). The compiler below is Fastify's own
 * (@fastify/fast-json-stringify-compiler, with the same options), remembered per schema object: a
 * serializer depends on nothing but its schema, the external schemas and the serializer options,
 * and it keeps no state between calls.
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

/**
 * Serializers by schema, per set of external schemas (as JSON). Fastify asks for a compiler per
 * plugin context, each time with a new (usually empty) external-schema object, so contexts with
 * equal ones share one cache; a context given serializer options keeps a cache of its own.
 */
const sharedBySchemas = new Map<string, WeakMap<object, Serializer>>();

/** `compilersFactory.buildSerializer` for Fastify's `schemaController` option. */
export const buildSharedSerializer: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  const key = options === undefined ? JSON.stringify(externalSchemas ?? {}) : null;
  let compiled = key === null ? undefined : sharedBySchemas.get(key);
  if (compiled === undefined) {
    compiled = new WeakMap();
    if (key !== null) sharedBySchemas.set(key, compiled);
  }
  return (route) => {
    const schema = route.schema;
    if (schema === null || typeof schema !== 'object') return compile(route);
    let serializer = compiled.get(schema);
    if (serializer === undefined) {
      serializer = compile(route);
      compiled.set(schema, serializer);
    }
    return serializer;
  };
};
