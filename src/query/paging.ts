/** `page` and `per_page`: positive integers; `per_page` is clamped, not refused. */
export interface Paging {
  page: number;
  perPage: number;
  skip: number;
}

export const DEFAULT_PER_PAGE = 10;
const MAX_SKIP = 2 ** 31 - 1;

export function resolvePaging(page: number | undefined, perPage: number | undefined, perPageMax: number): Paging {
  const p = page ?? 1;
  const size = Math.min(perPage ?? DEFAULT_PER_PAGE, perPageMax);
  // A page far past any data still skips past all of it (an empty page, then a 404); the skip stays
  // a 32-bit integer, which every engine and driver path takes, and no collection comes near.
  return { page: p, perPage: size, skip: Math.min((p - 1) * size, MAX_SKIP) };
}

export function totalPages(total: number, perPage: number): number {
  return total === 0 ? 0 : Math.ceil(total / perPage);
}
