import { describe, expect, it } from 'vitest';
import { InvalidParamsError, ResultTooLargeError } from '../../src/errors.js';
import { boundedDistinct, boundedIds, MAX_FILTER_IDS } from '../../src/query/id-lists.js';

describe('derived id lists', () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

  it('passes a list of at most MAX_FILTER_IDS through unchanged', async () => {
    const list = ids(MAX_FILTER_IDS);
    expect(boundedIds(list, 'geoloc_radius', 'venues')).toBe(list);
    expect(await boundedDistinct(() => Promise.resolve(list), 'has_events', 'venues')).toBe(list);
  });

  it('refuses a longer list with a 400 naming the parameter', async () => {
    expect(() => boundedIds(ids(MAX_FILTER_IDS + 1), 'geoloc_radius', 'venues')).toThrow(InvalidParamsError);
    const refused = boundedDistinct(() => Promise.resolve(ids(MAX_FILTER_IDS + 1)), 'has_events', 'organizers');
    await expect(refused).rejects.toMatchObject({ statusCode: 400, data: { params: { has_events: expect.stringContaining('organizers') } } });
  });

  it('refuses the same way when the engine cannot return the values at all', async () => {
    const refused = boundedDistinct(() => Promise.reject(new ResultTooLargeError()), 'geoloc', 'venues');
    await expect(refused).rejects.toMatchObject({ statusCode: 400, data: { params: { geoloc: expect.any(String) } } });
    const other = new Error('network');
    await expect(boundedDistinct(() => Promise.reject(other), 'geoloc', 'venues')).rejects.toBe(other);
  });
});
