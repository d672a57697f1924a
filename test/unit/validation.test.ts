/**
 * validationToApiError: Ajv errors (from the real schemas, validated the way the app does) mapped
 * to the reference's 400 shapes — `rest_missing_callback_param` with the missing names, or
 * `rest_invalid_param` with one message per bad parameter.
 */
import { type TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { InvalidParamsError, MissingParamsError } from '../../src/errors.js';
import { validationToApiError } from '../../src/schemas/validation.js';
import { IdParamsSchema } from '../../src/schemas/common.js';
import { EventCreateSchema, EventPatchByIdSchema, EventPatchSchema, EventReadQuerySchema } from '../../src/schemas/events.js';

// The options of src/plugins/validation.ts: bodies without coercion, path/query with.
const options = { allErrors: true, strict: false, verbose: true, useDefaults: true, removeAdditional: false } as const;
const bodyAjv = new Ajv({ ...options, coerceTypes: false });
const stringAjv = new Ajv({ ...options, coerceTypes: 'array' });

function errorsOf(schema: TSchema, value: unknown, ajv: Ajv = bodyAjv): ErrorObject[] {
  const validate = ajv.compile(schema);
  expect(validate(value)).toBe(false);
  return validate.errors ?? [];
}

const valid = { title: 'Concert', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 12:00:00' };

function invalidParams(schema: TSchema, value: unknown, context = 'body', ajv: Ajv = bodyAjv): Record<string, string> {
  const error = validationToApiError(errorsOf(schema, value, ajv) as never[], context);
  expect(error).toBeInstanceOf(InvalidParamsError);
  expect(error.statusCode).toBe(400);
  expect(error.code).toBe('rest_invalid_param');
  expect(error.message).toBe(`Invalid parameter(s): ${Object.keys(error.data.params as object).join(', ')}`);
  expect(error.data.details).toEqual([]);
  return error.data.params as Record<string, string>;
}

describe('validationToApiError', () => {
  it('maps missing required body fields to rest_missing_callback_param naming each', () => {
    const error = validationToApiError(errorsOf(EventCreateSchema, {}) as never[], 'body');
    expect(error).toBeInstanceOf(MissingParamsError);
    expect(error.statusCode).toBe(400);
    expect(error.code).toBe('rest_missing_callback_param');
    expect(error.data.params).toEqual(['title', 'start_date', 'end_date']);
    expect(error.message).toBe('Missing parameter(s): title, start_date, end_date');
  });

  it('reports missing parameters before invalid ones', () => {
    const error = validationToApiError(errorsOf(EventCreateSchema, { title: 'x', featured: 'yes', foo: 1 }) as never[], 'body');
    expect(error).toBeInstanceOf(MissingParamsError);
    expect(error.data.params).toEqual(['start_date', 'end_date']);
  });

  it('names a WordPress boolean by its type title', () => {
    expect(invalidParams(EventCreateSchema, { ...valid, featured: 'yes' })).toEqual({ featured: 'featured is not of type boolean.' });
  });

  it('names a date and an integer-like union by their titles', () => {
    expect(invalidParams(EventCreateSchema, { ...valid, start_date: { when: 'now' } })).toEqual({ start_date: 'start_date is not of type date.' });
    expect(invalidParams(EventCreateSchema, { ...valid, author: 'abc' })).toEqual({ author: 'author is not of type integer.' });
  });

  it('names a plain type mismatch', () => {
    expect(invalidParams(EventCreateSchema, { ...valid, title: 42 })).toEqual({ title: 'title is not of type string.' });
  });

  it('names an empty string and an overlong one', () => {
    expect(invalidParams(EventCreateSchema, { ...valid, title: '' })).toEqual({ title: 'title must not be empty.' });
    expect(invalidParams(EventCreateSchema, { ...valid, title: 'x'.repeat(1001) })).toEqual({ title: 'title must be at most 1000 characters long.' });
  });

  it('names an unknown parameter', () => {
    expect(invalidParams(EventCreateSchema, { ...valid, foo: 'bar' })).toEqual({ foo: 'foo is not a known parameter.' });
    expect(invalidParams(EventPatchSchema, { password: 'x' })).toEqual({ password: 'password is not a known parameter.' });
  });

  it('reports a nested failure on the top-level parameter', () => {
    const params = invalidParams(EventPatchByIdSchema, { venue: { id: 'abc' }, organizer: [{ id: 'x' }] });
    expect(Object.keys(params).sort()).toEqual(['organizer', 'venue']);
  });

  it('names every bad parameter once', () => {
    const params = invalidParams(EventPatchByIdSchema, { featured: 'yes', sticky: 'maybe', title: '', status: 'kinda_thinking_about_it' });
    expect(Object.keys(params).sort()).toEqual(['featured', 'status', 'sticky', 'title']);
    expect(params.sticky).toBe('sticky is not of type boolean.');
  });

  it('names the context when the whole value is wrong', () => {
    expect(invalidParams(EventCreateSchema, 'title=x')).toEqual({ body: 'body is not of type object.' });
    expect(invalidParams(EventCreateSchema, [valid])).toEqual({ body: 'body is not of type object.' });
  });

  it('maps out-of-range path parameters (coerced from strings)', () => {
    expect(invalidParams(IdParamsSchema, { id: '9007199254740993' }, 'params', stringAjv)).toEqual({ id: 'id is out of range.' });
    expect(invalidParams(IdParamsSchema, { id: 'abc' }, 'params', stringAjv)).toEqual({ id: 'id is not of type integer.' });
  });

  it('maps a bad query value', () => {
    expect(invalidParams(EventReadQuerySchema, { password: '' }, 'querystring', stringAjv)).toEqual({ password: 'password must not be empty.' });
    expect(Object.keys(invalidParams(EventReadQuerySchema, { context: 'admin' }, 'querystring', stringAjv))).toEqual(['context']);
  });

  it('falls back to "Invalid parameter." for keywords without a message of their own', () => {
    expect(invalidParams(EventCreateSchema, { ...valid, post_parent: '12a' })).toEqual({ post_parent: 'post_parent is not of type integer.' });
    const error = validationToApiError(
      [{ keyword: 'pattern', instancePath: '/slug', schemaPath: '#/properties/slug/pattern', params: { pattern: '^x$' } }] as never[],
      'body',
    );
    expect(error.data.params).toEqual({ slug: 'Invalid parameter.' });
  });
});
