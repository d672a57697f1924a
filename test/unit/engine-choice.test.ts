/**
 * CALENDAR_TEST_ENGINES belongs to the test harness (test/helpers/engine-choice.ts), not to the
 * product's configuration.
 */
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config.js';
import { testEngineChoice } from '../helpers/engine-choice.js';

describe('testEngineChoice', () => {
  it('defaults to all and refuses anything else than all, mongodb or embedded', () => {
    expect(testEngineChoice({})).toBe('all');
    expect(testEngineChoice({ CALENDAR_TEST_ENGINES: ' ' })).toBe('all');
    expect(testEngineChoice({ CALENDAR_TEST_ENGINES: 'mongodb' })).toBe('mongodb');
    expect(testEngineChoice({ CALENDAR_TEST_ENGINES: 'embedded' })).toBe('embedded');
    expect(() => testEngineChoice({ CALENDAR_TEST_ENGINES: 'sqlite' })).toThrow(/CALENDAR_TEST_ENGINES must be one of all, mongodb, embedded/);
  });

  it('is no setting of the product', () => {
    expect(Object.keys(ConfigSchema.properties)).not.toContain('CALENDAR_TEST_ENGINES');
  });
});
