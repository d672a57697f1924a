/** `page` and `per_page`: positive integers; `per_page` is clamped, not refused. */
export interface Paging {
  page: number;
  perPage: number;
  skip: number;
}

export const DEFAULT_PER_PAGE = 10;

export function resolvePaging(page: number | undefined, perPage: number | undefined, perPageMax: number): Paging {
  const p = page ?? 1;
  const size = Math.min(perPage ?? DEFAULT_PER_PAGE, perPageMax);
  return { page: p, perPage: size, skip: (p - 1) * size };
}

export function totalPages(total: number, perPage: number): number {
  return total === 0 ? 0 : Math.ceil(total / perPage);
}
