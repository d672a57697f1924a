import { describe, expect, it } from 'vitest';
import { buildSharedSerializer } from '../../src/plugins/serialization.js';
import { ErrorResponseSchema } from '../../src/schemas/common.js';

const route = (schema: unknown, httpStatus = '200') => ({ method: 'GET', url: '/x', httpStatus, schema });

describe('response serializers compiled once per schema (src/plugins/serialization.ts)', () => {
  it('hands every route and status with the same schema one serializer, across plugin contexts', () => {
    const schema = { type: 'object', properties: { a: { type: 'integer' } } };
    const first = buildSharedSerializer({}, undefined);
    const second = buildSharedSerializer({}, undefined);
    const serializer = first(route(schema));
    expect(first(route(schema, '404'))).toBe(serializer);
    expect(second(route(schema))).toBe(serializer);
    expect(serializer({ a: 1, b: 2 })).toBe('{"a":1}');
  });

  it('compiles another schema, or the same one with other external schemas or options, apart', () => {
    const schema = { type: 'object', properties: { a: { type: 'integer' } } };
    const plain = buildSharedSerializer({}, undefined)(route(schema));
    expect(buildSharedSerializer({}, undefined)(route({ ...schema }))).not.toBe(plain);
    const external = { 'other#': { $id: 'other#', type: 'string' } };
    expect(buildSharedSerializer(external, undefined)(route(schema))).not.toBe(plain);
    const withOptions = buildSharedSerializer({}, { rounding: 'floor' });
    const rounded = withOptions(route(schema));
    expect(rounded).not.toBe(plain);
    expect(rounded({ a: 1.9 })).toBe('{"a":1}');
    expect(withOptions(route(schema))).toBe(rounded);
  });

  it('writes what the API declares: an error body through its schema', () => {
    const serialize = buildSharedSerializer({}, undefined)(route(ErrorResponseSchema, '404'));
    const body = { code: 'rest_no_route', message: 'No route was found.', data: { status: 404 }, stack: 'never sent' };
    expect(JSON.parse(serialize(body))).toEqual({ code: 'rest_no_route', message: 'No route was found.', data: { status: 404 } });
  });
});
