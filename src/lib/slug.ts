import slugify from 'slugify';

const MAX_SLUG = 190;
/** Already a slug: what slugify would return unchanged (bulk loads name most records this way). */
const PLAIN_SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Slug from a title, like WordPress's sanitize_title for the common (Latin) case. */
export function slugFrom(text: string, fallback: string): string {
  if (text.length <= MAX_SLUG && PLAIN_SLUG.test(text)) return text;
  const slug = slugify(text, { lower: true, strict: true, trim: true }).slice(0, MAX_SLUG).replace(/-+$/, '');
  return slug === '' ? fallback : slug;
}

/** The n-th candidate for a unique slug: `base`, `base-2`, `base-3`, … (the reference's suffixes). */
export function slugCandidate(base: string, attempt: number): string {
  return attempt <= 1 ? base : `${base}-${attempt}`;
}
