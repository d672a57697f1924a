/**
 * Inserting a record under a slug no other record of its collection holds: the slug itself, then
 * `-2`, `-3`, … (the reference's suffixes), and past MAX_SLUG_ATTEMPTS clashes `<slug>-<id>`, which
 * the record's unique id keeps free. The unique slug index decides, not a look-up before the
 * insert: two concurrent creates of one slug cannot both pass it. Events, venues, organizers and
 * terms all insert this way.
 */
import { DuplicateKeyError } from '../errors.js';
import { slugCandidate } from '../lib/slug.js';

/** Suffixed candidates tried before the id makes the slug unique. */
export const MAX_SLUG_ATTEMPTS = 100;

export interface UniqueSlugInsert<R> {
  /** The slug wanted; the candidates are made from it. */
  base: string;
  /** The record's id, for the last candidate (`<base>-<id>`). */
  id: number;
  /** The collection's unique index of slugs: a clash on it (and only on it) moves to the next candidate. */
  slugIndex: string;
  /** Stores the record under `slug`; what it returns is the answer. */
  insert: (slug: string) => Promise<R>;
  /** The first candidate (1: `base` itself; 2 when `base` is known to be taken). */
  firstAttempt?: number;
  /**
   * Asked after every clash: an answer ends the search with it (a venue another create stored
   * meanwhile under the same name is the record wanted); undefined goes on with the next candidate.
   */
  afterClash?: () => Promise<R | undefined>;
  /** The error when even `<base>-<id>` is taken; without it, that clash is thrown as it is. */
  exhausted?: () => Error;
}

/** Inserts under the first free candidate slug; any failure but a slug clash is thrown at once. */
export async function insertWithUniqueSlug<R>({ base, id, slugIndex, insert, firstAttempt = 1, afterClash, exhausted }: UniqueSlugInsert<R>): Promise<R> {
  for (let attempt = firstAttempt; ; attempt++) {
    const last = attempt > MAX_SLUG_ATTEMPTS;
    try {
      return await insert(last ? `${base}-${id}` : slugCandidate(base, attempt));
    } catch (err) {
      if (!(err instanceof DuplicateKeyError && err.index === slugIndex)) throw err;
      const answer = afterClash === undefined ? undefined : await afterClash();
      if (answer !== undefined) return answer;
      if (last) throw exhausted?.() ?? err;
    }
  }
}
