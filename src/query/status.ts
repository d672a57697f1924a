/**
 * The `status` list parameter (reference §5.1) and the filter that selects statuses as a reader
 * sees them: a `future` post whose date has passed is published (visibility at read time).
 */
import { InvalidParamsError } from '../errors.js';
import { type Caller } from '../services/access.js';
import { type Filter, POST_STATUSES, type PostStatus } from '../storage/port.js';

export const NON_TRASH_STATUSES: readonly PostStatus[] = POST_STATUSES.filter((s) => s !== 'trash');

/**
 * Anonymous callers may ask only for `publish`; token holders for any list of statuses (`any` =
 * every status but trash). Absent: `publish` for anonymous callers, every non-trash status otherwise.
 */
export function resolveStatuses(raw: string | string[] | undefined, caller: Caller | null): PostStatus[] {
  if (raw === undefined) return caller ? [...NON_TRASH_STATUSES] : ['publish'];
  const items = (Array.isArray(raw) ? raw : raw.split(',')).map((s) => s.trim()).filter((s) => s !== '');
  if (items.length === 0) throw new InvalidParamsError({ status: 'status must name at least one status.' });
  if (!caller) {
    if (items.some((s) => s !== 'publish')) {
      throw new InvalidParamsError({ status: 'status: only published content is visible without a token.' });
    }
    return ['publish'];
  }
  const statuses = new Set<PostStatus>();
  for (const item of items) {
    if (item === 'any') NON_TRASH_STATUSES.forEach((s) => statuses.add(s));
    else if ((POST_STATUSES as readonly string[]).includes(item)) statuses.add(item as PostStatus);
    else throw new InvalidParamsError({ status: `status "${item}" is not a valid status.` });
  }
  return [...statuses];
}

/**
 * Selects documents whose status, as readers see it at `now`, is one of `statuses`. `now` is taken
 * to the whole second: the filter then stays the same for a second, so the embedded engine's
 * clause cache serves it instead of re-evaluating the `$or` for every request (about a tenth of a
 * list request's time). A scheduled post may so enter lists up to a second after its date (posts
 * scheduled through the API have whole-second dates, and enter exactly on time).
 */
export function statusFilter(statuses: readonly PostStatus[], at: Date): Filter {
  const now = new Date(Math.floor(at.getTime() / 1000) * 1000);
  const wanted = new Set(statuses);
  const published = wanted.has('publish');
  const future = wanted.has('future');
  const plain: PostStatus[] = statuses.filter((s) => s !== 'publish' && s !== 'future');
  const clauses: Filter[] = [];
  if (published && future) plain.push('publish', 'future');
  else if (published) clauses.push({ status: 'publish' }, { status: 'future', dateUtc: { $lte: now } });
  else if (future) clauses.push({ status: 'future', dateUtc: { $gt: now } });
  if (plain.length === 1) clauses.push({ status: plain[0] as PostStatus });
  else if (plain.length > 1) clauses.push({ status: { $in: plain } });
  return clauses.length === 1 ? (clauses[0] as Filter) : { $or: clauses };
}
