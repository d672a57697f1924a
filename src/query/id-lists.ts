/**
 * Id lists the services build from stored data (venues that have events, venues inside a radius,
 * venues with coordinates, a category's descendants) become `$in`/`$nin` clauses of the next query.
 * MongoDB receives a query as one BSON document of at most 16 MB, and answers `distinct` in one such
 * document, so a list that grows with the data would fail on a large enough database. One cap,
 * applied here for every engine, bounds each list; a request whose list would pass it is refused
 * with a 400 naming the parameter that produced the list, on every engine alike.
 *
 * 100,000 ids take about 1.3 MB as a BSON array of 32-bit integers (a type byte, the element's
 * decimal index as key and four bytes of value), so a query carrying several such lists still stays
 * far below 16 MB.
 */
import { InvalidParamsError, ResultTooLargeError } from '../errors.js';

export const MAX_FILTER_IDS = 100_000;

function tooMany(param: string, what: string): InvalidParamsError {
  return new InvalidParamsError({
    [param]: `${param} selects more than ${MAX_FILTER_IDS} ${what}, more than a list can be filtered by; narrow the request.`,
  });
}

/** `ids` itself when it holds at most MAX_FILTER_IDS values; otherwise the 400 naming `param`. */
export function boundedIds<T>(ids: T[], param: string, what: string): T[] {
  if (ids.length > MAX_FILTER_IDS) throw tooMany(param, what);
  return ids;
}

/**
 * The values `read` returns (a `distinct`), bounded like `boundedIds`. An engine that cannot even
 * return the values in one answer (MongoDB past 16 MB) throws ResultTooLargeError, which is the same
 * refusal.
 */
export async function boundedDistinct<T>(read: () => Promise<T[]>, param: string, what: string): Promise<T[]> {
  let ids: T[];
  try {
    ids = await read();
  } catch (error) {
    if (error instanceof ResultTooLargeError) throw tooMany(param, what);
    throw error;
  }
  return boundedIds(ids, param, what);
}
