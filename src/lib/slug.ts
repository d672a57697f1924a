import slugify from 'slugify';

/** Slug from a title, like WordPress's sanitize_title for the common (Latin) case. */
export function slugFrom(text: string, fallback: string): string {
  const slug = slugify(text, { lower: true, strict: true, trim: true }).slice(0, 190).replace(/-+$/, '');
  return slug === '' ? fallback : slug;
}

/** The n-th candidate for a unique slug: `base`, `base-2`, `base-3`, … (the reference's suffixes). */
export function slugCandidate(base: string, attempt: number): string {
  return attempt <= 1 ? base : `${base}-${attempt}`;
}
