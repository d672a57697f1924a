/**
 * Idempotent creates: a create sent with an `Idempotency-Key` header is remembered for 24 hours
 * under its caller's credential, so that a client which did not get an answer (a timeout, a lost
 * connection, 503 `storage-write-unconfirmed`) can send it again without creating a second record.
 *
 * - The first request with a key stores a `pending` record holding the id reserved for the new
 *   resource, and the create stores the resource under that id. The record's `_id` comes from the
 *   key, so two first requests race on the primary key: one runs, the other is refused.
 * - A success is stored (`done`) and answered again, byte for byte, to the same key and request.
 * - An attempt that ends without a known outcome (5xx) leaves the record `pending` with its
 *   reserved id: the next attempt runs the create again under the same id, and the create answers
 *   with the resource when an earlier attempt did store it (the services' `reservedId`).
 * - A refusal (4xx) of a record whose attempts all had a known outcome wrote nothing, so the key is
 *   forgotten and may be sent again, with the same body or a corrected one.
 * - The same key with another request (method, route or body) is refused; so is a key whose
 *   record is held by an attempt still running.
 *
 * Writes to a record are conditioned on its `attempts` counter, which every claim bumps: a write
 * made for a claim that was since taken over (it outlived its lock) changes nothing.
 */
import { createChore } from '../lib/chore.js';
import { createHash } from 'node:crypto';
import { IDEMPOTENCY_WINDOW_SECONDS } from '../../indexes/idempotency.js';
import { DuplicateKeyError, IdempotencyInProgressError, IdempotencyKeyMismatchError } from '../errors.js';
import { KeyedLock } from '../lib/keyed-lock.js';
import { type IdempotencyDoc, type SequenceName, type Storage } from '../storage/port.js';

export const IDEMPOTENCY_WINDOW_MS = IDEMPOTENCY_WINDOW_SECONDS * 1000;
/** The embedded engine's sweep of expired records runs at most this often… */
const SWEEP_INTERVAL_MS = 60_000;
/** …and deletes at most this many per run (a full batch lets the next write sweep again at once). */
const SWEEP_BATCH = 500;
/** `lockedUntil` of a record no attempt holds (any past instant would do). */
const UNLOCKED = new Date(0);

export interface IdempotentCreate {
  /** Whose key it is: a hash of the caller's credential (keys of different callers never meet). */
  scope: string;
  /** The header's value. */
  key: string;
  /** What a replay must match: method, route and canonical body (see `requestFingerprint`). */
  fingerprint: string;
  /** The id sequence of the resource the create makes. */
  sequence: SequenceName;
}

/** A running attempt: what `finish` needs to record its outcome. */
export interface IdempotencyClaim {
  readonly id: number;
  readonly attempts: number;
  /** The id the create must store its resource under. */
  readonly reservedId: number;
  readonly uncertain: boolean;
}

export type IdempotencyStart = { kind: 'replay'; status: number; body: string } | { kind: 'run'; claim: IdempotencyClaim };

export interface IdempotencyServiceDeps {
  storage: Pick<Storage, 'engine' | 'idempotency' | 'nextId'>;
  /**
   * How long an attempt holds its record (the request timeout). An attempt that outlives it may be
   * taken over by a retry; both then create under the same reserved id, so one record results.
   */
  lockMs: number;
  now?: () => Date;
  /** Where a failed background sweep is reported. */
  onSweepError?: (error: unknown) => void;
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** JSON with every object's keys sorted, so two equal bodies give one text whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, child]) => child !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, child]) => `${JSON.stringify(key)}:${canonicalJson(child)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The part of a request a replay must match: the same key on another route or with another body is another request. */
export function requestFingerprint(method: string, route: string, body: unknown): string {
  return `${method} ${route}\n${canonicalJson(body ?? null)}`;
}

/** A credential's scope: its hash (the credential itself is never stored). */
export function credentialScope(credential: string): string {
  return sha256(`idempotency-scope\n${credential}`);
}

/** The record id of a key hash: its first 52 bits, a safe integer. */
export function recordIdOf(keyHash: string): number {
  return Number.parseInt(keyHash.slice(0, 13), 16);
}

const expired = (record: IdempotencyDoc, at: Date): boolean => at.getTime() - record.createdAt.getTime() >= IDEMPOTENCY_WINDOW_MS;
const inProgress = (until: Date, at: Date) => new IdempotencyInProgressError(Math.ceil((until.getTime() - at.getTime()) / 1000));

/** A key's record claimed for an attempt (new, run again, or answered again); writes conditioned on `attempts`. */
function recordClaims(storage: IdempotencyServiceDeps['storage'], lockMs: number) {
  const records = storage.idempotency;
  const lockEnd = (at: Date): Date => new Date(at.getTime() + lockMs);

  /** Writes `fields` if the record is still at `attempts`; whether it was. */
  async function swap(id: number, attempts: number, fields: Partial<Omit<IdempotencyDoc, '_id'>>): Promise<boolean> {
    return (await records.updateMany({ _id: id, attempts }, { $set: fields })) === 1;
  }

  /** A new record, or one replacing an expired record of the slot; false when another request got there first. */
  async function open(
    id: number,
    previous: IdempotencyDoc | null,
    request: IdempotentCreate,
    hashes: { keyHash: string; requestHash: string },
    at: Date,
  ): Promise<IdempotencyClaim | false> {
    const reservedId = await storage.nextId(request.sequence);
    const fields: Omit<IdempotencyDoc, '_id'> = {
      keyHash: hashes.keyHash,
      requestHash: hashes.requestHash,
      state: 'pending',
      reservedId,
      attempts: (previous?.attempts ?? 0) + 1,
      lockedUntil: lockEnd(at),
      uncertain: false,
      status: null,
      body: null,
      createdAt: at,
    };
    if (previous !== null) {
      if (!(await swap(id, previous.attempts, fields))) return false;
    } else {
      try {
        await records.insertOne({ _id: id, ...fields });
      } catch (error) {
        if (error instanceof DuplicateKeyError && error.index === '_id_') return false;
        throw error;
      }
    }
    return { id, attempts: fields.attempts, reservedId, uncertain: false };
  }

  async function claim(id: number, request: IdempotentCreate, hashes: { keyHash: string; requestHash: string }, at: Date): Promise<IdempotencyStart> {
    // A lost race (another process wrote the record between our read and our write) reads it again
    // once, to answer what that request made of it; losing twice is answered as in progress.
    for (let round = 0; round < 2; round++) {
      const record = await records.findById(id);
      if (record === null || expired(record, at)) {
        const opened = await open(id, record, request, hashes, at);
        if (opened !== false) return { kind: 'run', claim: opened };
        continue;
      }
      if (record.keyHash !== hashes.keyHash || record.requestHash !== hashes.requestHash) throw new IdempotencyKeyMismatchError();
      if (record.state === 'done') return { kind: 'replay', status: record.status ?? 201, body: record.body ?? '' };
      if (record.lockedUntil.getTime() > at.getTime()) throw inProgress(record.lockedUntil, at);
      // Pending and no longer held: an earlier attempt ended without a success. Run again under the
      // same reserved id, so that a resource the earlier attempt did store is found, not doubled.
      const attempts = record.attempts + 1;
      if (await swap(id, record.attempts, { attempts, lockedUntil: lockEnd(at) })) {
        return { kind: 'run', claim: { id, attempts, reservedId: record.reservedId, uncertain: record.uncertain } };
      }
    }
    throw inProgress(lockEnd(at), at);
  }

  return { swap, claim };
}

/** The embedded engine's sweep of expired records, under each record's lock. */
function recordSweeper(storage: IdempotencyServiceDeps['storage'], locks: KeyedLock<number>, now: () => Date, onSweepError: (error: unknown) => void) {
  const records = storage.idempotency;

  /**
   * Deletes expired records, oldest first, at most SWEEP_BATCH: the embedded engine has no TTL
   * monitor. Each is read again under its lock, so a record a request has just renewed stays.
   */
  async function sweep(at: Date = now()): Promise<number> {
    const cutoff = new Date(at.getTime() - IDEMPOTENCY_WINDOW_MS);
    const candidates = await records.find({
      filter: { createdAt: { $lte: cutoff } },
      sort: [
        ['createdAt', 1],
        ['_id', 1],
      ],
      limit: SWEEP_BATCH,
    });
    const removed = await Promise.all(
      candidates.map(({ _id }) =>
        locks.run(_id, async () => {
          const current = await records.findById(_id);
          return current !== null && expired(current, at) && (await records.deleteById(_id));
        }),
      ),
    );
    if (candidates.length === SWEEP_BATCH) chore.again();
    return removed.filter(Boolean).length;
  }
  const chore = createChore(SWEEP_INTERVAL_MS, sweep, onSweepError);

  /**
   * On MongoDB the TTL index deletes expired records (its deletion re-checks the date, so a record
   * renewed meanwhile stays). The embedded engine is swept here, now and then, beside the writes
   * that add records; one process owns an embedded store, so the per-record lock covers every writer.
   */
  function sweepNowAndThen(at: Date): void {
    if (storage.engine === 'embedded') chore.poke(at);
  }

  return { sweep, sweepNowAndThen, sweeping: chore.running };
}

export function createIdempotencyService({ storage, lockMs, now = () => new Date(), onSweepError = () => undefined }: IdempotencyServiceDeps) {
  /** Claims, outcomes and the sweep of one record run one at a time in this process. */
  const locks = new KeyedLock<number>();
  const { swap, claim } = recordClaims(storage, lockMs);
  const { sweep, sweepNowAndThen, sweeping } = recordSweeper(storage, locks, now, onSweepError);

  return {
    /** Looks the key up: a stored success to answer again, or a claim to run the create under. Throws 409/422. */
    async begin(request: IdempotentCreate): Promise<IdempotencyStart> {
      const keyHash = sha256(`${request.scope}\n${request.key}`);
      const hashes = { keyHash, requestHash: sha256(request.fingerprint) };
      const id = recordIdOf(keyHash);
      const at = now();
      const start = await locks.run(id, () => claim(id, request, hashes, at));
      sweepNowAndThen(at);
      return start;
    },

    /** Records how the claimed attempt ended: `status` and the body sent. */
    async finish(claim: IdempotencyClaim, status: number, body: string | null): Promise<void> {
      await locks.run(claim.id, async () => {
        if (status < 300 && body !== null) {
          await swap(claim.id, claim.attempts, { state: 'done', status, body, lockedUntil: UNLOCKED });
        } else if (status >= 400 && status < 500 && !claim.uncertain) {
          // Nothing was stored (a refusal writes nothing) by this or any earlier attempt: forget the
          // key. An expired record reads as absent, and the sweep or the TTL index deletes it.
          await swap(claim.id, claim.attempts, { createdAt: new Date(0), lockedUntil: UNLOCKED });
        } else {
          // The outcome may be unknown (5xx), or an earlier attempt's was: keep the reserved id.
          await swap(claim.id, claim.attempts, { uncertain: claim.uncertain || status >= 500 || body === null, lockedUntil: UNLOCKED });
        }
      });
    },

    sweep,

    /** The sweep running in the background, if any (tests wait for it). */
    sweeping,
  };
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
