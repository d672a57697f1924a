/**
 * Tombstones: what `GET /deleted` tells an offline client to drop (docs/api.md, "Incremental
 * sync"). A record's lists are those of its type (`/events`, `/venues`, …); a record leaves them
 * when it is trashed or deleted, when an event is hidden from listings (for every caller), or when
 * it stops being public (unpublished, made private: for anonymous callers only). Every such change
 * leaves a tombstone naming the record and the instant; one that makes the record listed again
 * removes it (the write also moves the record's modified time, so the next `modified_after` pass
 * brings it back). Password protection is not a departure: protected events stay listed, redacted.
 *
 * A record has one tombstone at most, its `_id` derived from the type and the record's id: a
 * tombstone for anonymous callers only (`public`) and one for everyone (`all`) replace each other.
 * The services that make these changes call `recordChange` with the record's visibility before
 * and after (`eventVisibility`, `linkedPostVisibility`: the one statement of each rule).
 *
 * Tombstones are kept TOMBSTONE_DAYS: writes prune older ones now and then, in the background,
 * so nothing needs running by hand; a `since` older than that is refused (410 rest_sync_expired),
 * since tombstones it would need may be gone.
 */
import { createChore } from '../lib/chore.js';
import { DuplicateKeyError, InvalidParamsError, MissingParamsError, SyncExpiredError } from '../errors.js';
import { formatWallClock, parseDateInput } from '../lib/dates/index.js';
import { listItems } from '../query/list-input.js';
import { type Paging, resolvePaging } from '../query/paging.js';
import { type EventDoc, type Filter, type PostDoc, type Storage, type TombstoneDoc, TOMBSTONE_TYPES, type TombstoneType } from '../storage/port.js';
import { type Caller, effectiveStatus } from './access.js';
import { ParamErrors } from './input.js';

/** Who lists a record: everyone, token holders only, or nobody. */
export type ListVisibility = 'public' | 'token' | 'none';

/** Events: trashed or hidden from listings, nobody lists them; unpublished ones only token holders do. */
export function eventVisibility(doc: Pick<EventDoc, 'status' | 'dateUtc' | 'hideFromListings'>, at: Date): ListVisibility {
  if (doc.status === 'trash' || doc.hideFromListings) return 'none';
  return effectiveStatus(doc, at) === 'publish' ? 'public' : 'token';
}

/** Venues and organizers: trashed ones nobody lists; unpublished ones only token holders do. */
export function linkedPostVisibility(doc: Pick<PostDoc, 'status' | 'dateUtc'>, at: Date): ListVisibility {
  if (doc.status === 'trash') return 'none';
  return effectiveStatus(doc, at) === 'publish' ? 'public' : 'token';
}

/** Leaves room for the five types below each record id (ids stay far below 2^53 / 8). */
const TYPE_SLOTS = 8;
export const tombstoneId = (type: TombstoneType, recordId: number): number => recordId * TYPE_SLOTS + TOMBSTONE_TYPES.indexOf(type);

const DAY_MS = 24 * 60 * 60 * 1000;
/** Pruning runs at most this often per process… */
const PRUNE_INTERVAL_MS = 60_000;
/** …and deletes at most this many per run (a full batch lets the next write prune again at once). */
const PRUNE_BATCH = 500;

export interface DeletedListParams {
  since: string;
  until?: string;
  type?: string | string[];
  page?: number;
  per_page?: number;
}

export interface TombstonesDeps {
  storage: Pick<Storage, 'tombstones'>;
  /** TOMBSTONE_DAYS. */
  retentionDays: number;
  siteTimezone: string;
  perPageMax: number;
  now?: () => Date;
  /** Where a failed background pruning is reported. */
  onPruneError?: (error: unknown) => void;
}

/** Writing tombstones, and pruning those past the retention. */
function tombstoneWrites({ storage, retentionDays, now, onPruneError }: Required<Pick<TombstonesDeps, 'storage' | 'retentionDays' | 'now' | 'onPruneError'>>) {
  const tombstones = storage.tombstones;

  async function put(type: TombstoneType, recordId: number, audience: TombstoneDoc['audience'], at: Date): Promise<void> {
    const _id = tombstoneId(type, recordId);
    const fields = { type, recordId, audience, deletedAt: at };
    if (await tombstones.updateById(_id, { $set: fields })) return;
    try {
      await tombstones.insertOne({ _id, ...fields });
    } catch (error) {
      // Another process wrote it between the two calls: the latest change wins.
      if (!(error instanceof DuplicateKeyError)) throw error;
      await tombstones.updateById(_id, { $set: fields });
    }
  }

  /** Deletes tombstones older than the retention, oldest first, at most PRUNE_BATCH. */
  async function prune(at: Date = now()): Promise<number> {
    const cutoff = new Date(at.getTime() - retentionDays * DAY_MS);
    const old = await tombstones.find({
      filter: { deletedAt: { $lt: cutoff } },
      sort: [
        ['deletedAt', 1],
        ['_id', 1],
      ],
      limit: PRUNE_BATCH,
    });
    const removed = await Promise.all(old.map(({ _id }) => tombstones.deleteById(_id)));
    if (old.length === PRUNE_BATCH) pruning.again();
    return removed.filter(Boolean).length;
  }
  /** Pruning runs beside the writes that add tombstones, at most once per PRUNE_INTERVAL_MS. */
  const pruning = createChore(PRUNE_INTERVAL_MS, prune, onPruneError);

  /**
   * Records that `recordId` went from `before` (null: unknown) to `after`. Listed by everyone: no
   * tombstone. Listed by token holders only: none for them, one for anonymous callers if they
   * listed it (or if everyone's tombstone stood). Listed by nobody: one for everyone.
   */
  async function recordChange(type: TombstoneType, recordId: number, before: ListVisibility | null, after: ListVisibility): Promise<void> {
    const at = now();
    if (after === 'public') {
      if (before !== 'public') await tombstones.deleteById(tombstoneId(type, recordId));
      return;
    }
    if (after === 'token') {
      if (before === 'public') await put(type, recordId, 'public', at);
      else if (before !== 'token' && (await tombstones.findById(tombstoneId(type, recordId)))?.audience === 'all') await put(type, recordId, 'public', at);
      else return;
    } else if (before !== 'none') await put(type, recordId, 'all', at);
    else return;
    pruning.poke(at);
  }

  /**
   * A record found already trashed when asked to trash it again (a retried DELETE, 410): its
   * tombstone for everyone exists. The write that trashed it may have failed after the record's
   * write and before the tombstone's; then it is written now, dated now, so a client that synced
   * in between still receives it. A record trashed longer ago than the retention gets none: its
   * tombstone may have been pruned on purpose.
   */
  async function ensureGone(type: TombstoneType, recordId: number, trashedAt: Date): Promise<void> {
    const at = now();
    if (trashedAt.getTime() < at.getTime() - retentionDays * DAY_MS) return;
    if ((await tombstones.findById(tombstoneId(type, recordId)))?.audience === 'all') return;
    await put(type, recordId, 'all', at);
  }

  return { recordChange, ensureGone, prune, pruning: pruning.running };
}

export function createTombstones({ storage, retentionDays, siteTimezone, perPageMax, now = () => new Date(), onPruneError = () => undefined }: TombstonesDeps) {
  const writes = tombstoneWrites({ storage, retentionDays, now, onPruneError });

  /** `since` and `until` as whole-second instants, `type` as a list; a `since` past the retention is 410. */
  function resolveParams(params: DeletedListParams, at: Date) {
    const errors = new ParamErrors();
    const read = (param: 'since' | 'until') => {
      const raw = params[param];
      if (raw === undefined) return undefined;
      const instant = parseDateInput(raw, { timezone: siteTimezone, now: at });
      if (instant === null) errors.add(param, `${param} is not a valid date.`);
      return instant === null ? undefined : new Date(Math.floor(instant.getTime() / 1000) * 1000);
    };
    const since = read('since');
    const until = read('until');
    const types = listItems(params.type, 'type');
    const unknown = types.find((type) => !(TOMBSTONE_TYPES as readonly string[]).includes(type));
    if (unknown !== undefined) errors.add('type', `type "${unknown}" is not one of ${TOMBSTONE_TYPES.join(', ')}.`);
    if (!errors.empty) throw new InvalidParamsError(errors.params);
    if (since === undefined) throw new MissingParamsError(['since']);
    if (since.getTime() < at.getTime() - retentionDays * DAY_MS) throw new SyncExpiredError(retentionDays);
    return { since, until, types: types as TombstoneType[] };
  }

  return {
    recordChange: writes.recordChange,
    ensureGone: writes.ensureGone,
    prune: writes.prune,
    /** The background pruning running now, if any (tests wait for it). */
    pruning: writes.pruning,

    /**
     * GET /deleted: the tombstones `caller` needs, from `since` to `until` (both inclusive, whole
     * seconds), in deletion order. Token holders list unpublished records, so only the tombstones
     * of records nobody lists are theirs.
     */
    async list(
      params: DeletedListParams,
      caller: Caller | null,
    ): Promise<{ items: TombstoneDoc[]; total: number; paging: Paging; args: Array<[string, string]> }> {
      const at = now();
      const { since, until, types } = resolveParams(params, at);
      const deletedAt = until === undefined ? { $gte: since } : { $gte: since, $lt: new Date(until.getTime() + 1000) };
      const filter: Filter = { deletedAt, audience: { $in: caller === null ? ['all', 'public'] : ['all'] } };
      if (types.length > 0) filter.type = { $in: types };
      const paging = resolvePaging(params.page, params.per_page, perPageMax);
      const { items, total } = await storage.tombstones.findPage({
        filter,
        sort: [
          ['deletedAt', 1],
          ['_id', 1],
        ],
        skip: paging.skip,
        limit: paging.perPage,
      });
      const args: Array<[string, string]> = [['since', formatWallClock(since, siteTimezone)]];
      if (until !== undefined) args.push(['until', formatWallClock(until, siteTimezone)]);
      if (types.length > 0) args.push(['type', types.join(',')]);
      return { items, total, paging, args };
    },
  };
}

export type Tombstones = ReturnType<typeof createTombstones>;
/** What the services that trash, delete or hide records need of the tombstones. */
export type TombstoneRecorder = Pick<Tombstones, 'recordChange' | 'ensureGone'>;
