/**
 * Seed validators count string lengths as the API does (code points, Ajv's default), although they
 * first check with UTF-16 lengths (src/import/schemas.ts, utf16Ajv): a record is refused exactly when the
 * API's schema refuses it, with the API's messages.
 */
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { minimumLengthsAtMostOne, SEED_SCHEMAS, seedValidator } from '../../src/import/schemas.js';
import { MAX_TITLE_LENGTH } from '../../src/schemas/common.js';

const event = (fields: Record<string, unknown>) => ({ title: 'Concert', start_date: '2030-01-01 19:00', end_date: '2030-01-01 21:00', ...fields });
/** One code point, two UTF-16 units. */
const ASTRAL = '🎷';

describe('seed validators and string lengths', () => {
  it('accept a title of the maximum length in code points that is twice as long in UTF-16 units', () => {
    const title = ASTRAL.repeat(MAX_TITLE_LENGTH);
    expect(title.length).toBe(2 * MAX_TITLE_LENGTH);
    expect(seedValidator('events')(event({ title }))).toEqual([]);
  });

  it('refuse a title one code point too long, with the API message', () => {
    const errors = seedValidator('events')(event({ title: `${ASTRAL.repeat(MAX_TITLE_LENGTH)}x` }));
    expect(errors).toHaveLength(1);
    expect(errors[0]!.field).toBe('title');
    expect(errors[0]!.message).toMatch(/title/);
  });

  it('refuse an empty title and accept a one-character one (the minimum both countings agree on)', () => {
    expect(seedValidator('events')(event({ title: '' })).map((e) => e.field)).toEqual(['title']);
    expect(seedValidator('events')(event({ title: ASTRAL }))).toEqual([]);
  });

  it('refuse what the schema refuses besides lengths, naming every field', () => {
    const errors = seedValidator('events')(event({ title: 7, featured: 'maybe', unknown_field: 1 }));
    expect(errors.map((e) => e.field).sort()).toEqual(['featured', 'title', 'unknown_field']);
  });

  it('find every schema of the seed files eligible for the UTF-16 first check', () => {
    for (const schema of Object.values(SEED_SCHEMAS)) expect(minimumLengthsAtMostOne(schema)).toBe(true);
  });

  it('keep a schema with a larger minimum length off the UTF-16 first check', () => {
    expect(minimumLengthsAtMostOne(Type.Object({ a: Type.String({ minLength: 1 }), b: Type.Array(Type.String({ maxLength: 3 })) }))).toBe(true);
    expect(minimumLengthsAtMostOne(Type.Object({ a: Type.Optional(Type.Array(Type.String({ minLength: 2 }))) }))).toBe(false);
    expect(minimumLengthsAtMostOne(Type.Union([Type.Integer(), Type.String({ minLength: 3 })]))).toBe(false);
  });
});
