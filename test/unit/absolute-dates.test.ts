/**
 * Which date parameters name an instant whatever the time of the request (src/lib/dates/absolute.ts):
 * the response cache keeps only lists whose dates are such.
 */
import { describe, expect, it } from 'vitest';
import { isAbsoluteDateInput } from '../../src/lib/dates/index.js';

describe('absolute date inputs', () => {
  it.each([
    '2026-05-01',
    '2026-05-01 10:00',
    '2026-05-01 10:00:00',
    '2026-05-01T10:00:00Z',
    '2026-05-01T10:00:00.123+02:00',
    '2026-05-01 10:00:00 -0500',
    '@1700000000',
    ' 2026-05-01 ',
  ])('%j is absolute', (value) => expect(isAbsoluteDateInput(value)).toBe(true));
  it.each(['now', 'today', 'tomorrow', '+1 week', 'next monday', '2026-05-01 +1 day', 'yesterday 10:00', '', 1700000000])(
    '%j is read relative to the clock, or not a string',
    (value) => expect(isAbsoluteDateInput(value)).toBe(false),
  );
});
