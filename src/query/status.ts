/**
 * The `status` list parameter and the filter that selects statuses as a reader
 * sees them: a `future` post whose date has passed is published (visibility at read time).
 */
import { InvalidParamsError } from '../errors.js';
import { listItems } from './list-input.js';
import { type Caller } from '../services/access.js';
import { type Filter, POST_STATUSES, type PostStatus } from '../storage/port.js';

export const NON_TRASH_STATUSES: readonly PostStatus[] = POST_STATUSES.filter((s) => s !== 'trash');

/**
 * Anonymous callers may ask only for `publish`; token holders for any list of statuses (`any` =
 * every status but trash). Absent: `publish` for anonymous callers, every non-trash status otherwise.
 */
export function resolveStatuses(raw: string | string[] | undefined, caller: Caller | null): PostStatus[] {
  if (raw === undefined) return caller ? [...NON_TRASH_STATUSES] : ['publish'];
  const items = listItems(raw, 'status')
    .map((s) => s.trim())
    .filter((s) => s !== '');
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
 * Selects documents whose status, as readers see it at `now`, is one of `statuses`: a `future`
 * post whose date has passed reads as `publish`. The filter is one `$in` on the stored status —
 * `future` added when `publish` is wanted — plus, when exactly one of `publish` and `future` is
 * wanted, a `$nor` that takes back the `future` posts on the wrong side of `now`:
 *
 * - publish without future: stored publish or future, but no future post still ahead of `now`;
 * - future without publish: stored future, but none whose date has passed;
 * - both, or neither: the stored statuses are the seen ones, nothing to take back.
 *
 * For the event list, the `$in` is a union of points on the leading field of events_status_start
 * {status, startUtc, _id}, so MongoDB reads each status's run of that index in start order and
 * merges the runs (explode-for-sort, a SORT_MERGE of one index scan per status): the list comes in
 * index order without a blocking sort, both directions. The `$nor` has no index bounds (a negated
 * conjunction) and is tested on the fetched documents. With an `$or` of one branch per stored
 * status instead, the order would depend on the index the planner picks for each branch: the
 * branches are merged in order only when every one of them provides it.
 *
 * `now` is taken to the whole second: the filter then stays the same for a second, so the embedded
 * engine's clause cache serves it instead of re-evaluating it for every request. A scheduled post
 * may so enter lists up to a second after its date (posts scheduled through the API have
 * whole-second dates, and enter exactly on time). The `$in` lists the statuses in POST_STATUSES
 * order, so every spelling of one set is the same filter.
 */
export function statusFilter(statuses: readonly PostStatus[], at: Date): Filter {
  const now = new Date(Math.floor(at.getTime() / 1000) * 1000);
  const wanted = new Set(statuses);
  const published = wanted.has('publish');
  const future = wanted.has('future');
  const stored = POST_STATUSES.filter((s) => wanted.has(s) || (s === 'future' && published));
  const filter: Filter = { status: { $in: stored } };
  if (published && !future) filter.$nor = [{ status: 'future', dateUtc: { $gt: now } }];
  else if (future && !published) filter.$nor = [{ status: 'future', dateUtc: { $lte: now } }];
  return filter;
}
