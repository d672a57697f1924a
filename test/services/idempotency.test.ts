/**
 * The idempotency service on its own (the routes' behaviour is in test/routes/idempotency.test.ts):
 * request fingerprints and record ids, the outcomes a claim can end with, and the embedded engine's
 * sweep of expired records — bounded, at most once a minute, driven by an injected clock.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { indexes } from '../../indexes/index.js';
import {
  IDEMPOTENCY_WINDOW_MS,
  type IdempotencyService,
  type IdempotentCreate,
  canonicalJson,
  createIdempotencyService,
  credentialScope,
  recordIdOf,
  requestFingerprint,
} from '../../src/services/idempotency.js';
import { createEmbeddedStorage } from '../../src/storage/embedded/index.js';
import { type Storage } from '../../src/storage/port.js';

describe('request fingerprints and record ids', () => {
  it('reads bodies whatever their key order, and tells routes and bodies apart', () => {
    expect(canonicalJson({ b: 1, a: [{ y: null, x: 'é' }], c: { e: true, d: 2 } })).toBe('{"a":[{"x":"é","y":null}],"b":1,"c":{"d":2,"e":true}}');
    expect(requestFingerprint('POST', '/x/events', { a: 1, b: 2 })).toBe(requestFingerprint('POST', '/x/events', { b: 2, a: 1 }));
    expect(requestFingerprint('POST', '/x/events', { a: 1 })).not.toBe(requestFingerprint('POST', '/x/venues', { a: 1 }));
    expect(requestFingerprint('POST', '/x/events', { a: 1 })).not.toBe(requestFingerprint('POST', '/x/events', { a: '1' }));
  });

  it('scopes by a hash of the credential, and derives safe integer ids', () => {
    const scope = credentialScope('editor-token-0123456789abcdef');
    expect(scope).toMatch(/^[0-9a-f]{64}$/);
    expect(scope).not.toContain('editor-token');
    expect(recordIdOf('f'.repeat(64))).toBe(2 ** 52 - 1);
    expect(Number.isSafeInteger(recordIdOf(scope))).toBe(true);
  });
});

describe('idempotency service on the embedded engine', () => {
  let storage: Storage;
  let clock: number;
  let service: IdempotencyService;
  const LOCK_MS = 30_000;
  let n = 0;
  const request = (key = `key-${++n}`, body: unknown = { title: 'x' }): IdempotentCreate => ({
    scope: credentialScope('token'),
    key,
    fingerprint: requestFingerprint('POST', '/events', body),
    sequence: 'posts',
  });
  const count = () => storage.idempotency.count({});
  /** Starts `request` and records a success for it; returns the record id. */
  async function done(r: IdempotentCreate): Promise<number> {
    const start = await service.begin(r);
    if (start.kind !== 'run') throw new Error('expected a claim');
    await service.finish(start.claim, 201, '{}');
    return start.claim.id;
  }

  beforeEach(async () => {
    storage = createEmbeddedStorage({ indexes, reason: 'test' });
    await storage.ensureIndexes();
    clock = Date.UTC(2030, 0, 1);
    service = createIdempotencyService({ storage, lockMs: LOCK_MS, now: () => new Date(clock) });
  });
  afterEach(async () => {
    await service.sweeping();
    await storage.close();
  });

  it('a 5xx keeps the reserved id and frees the record at once; a clean 4xx forgets the key; a 4xx after a 5xx does not', async () => {
    const r = request();
    const first = await service.begin(r);
    if (first.kind !== 'run') throw new Error('expected a claim');
    await service.finish(first.claim, 503, '{}');
    const second = await service.begin(r);
    expect(second).toMatchObject({ kind: 'run', claim: { reservedId: first.claim.reservedId, uncertain: true } });
    if (second.kind !== 'run') return;
    // A refusal after an attempt of unknown outcome keeps the key bound to its body and id.
    await service.finish(second.claim, 400, '{}');
    await expect(service.begin(request(r.key, { title: 'corrected' }))).rejects.toMatchObject({ statusCode: 422 });
    const third = await service.begin(r);
    expect(third).toMatchObject({ kind: 'run', claim: { reservedId: first.claim.reservedId } });

    const clean = request();
    const refused = await service.begin(clean);
    if (refused.kind !== 'run') throw new Error('expected a claim');
    await service.finish(refused.claim, 400, '{}');
    const corrected = await service.begin(request(clean.key, { title: 'corrected' }));
    expect(corrected.kind).toBe('run');
    if (corrected.kind === 'run') expect(corrected.claim.reservedId).not.toBe(refused.claim.reservedId);
  });

  it('ignores the outcome of a claim that was taken over', async () => {
    const r = request();
    const stale = await service.begin(r);
    if (stale.kind !== 'run') throw new Error('expected a claim');
    clock += LOCK_MS;
    const current = await service.begin(r);
    if (current.kind !== 'run') throw new Error('expected a claim');
    await service.finish(stale.claim, 201, '"stale"');
    await service.finish(current.claim, 201, '"current"');
    expect(await service.begin(r)).toEqual({ kind: 'replay', status: 201, body: '"current"' });
  });

  it('sweeps expired records in the background of a write, at most once a minute', async () => {
    await done(request());
    await done(request());
    clock += 10_000;
    await done(request());
    expect(await count()).toBe(3);

    // A day after the first two: the next write sweeps them, not the younger one.
    clock += IDEMPOTENCY_WINDOW_MS - 10_000;
    await done(request());
    expect(service.sweeping()).not.toBeNull();
    expect(await service.sweeping()).toBe(2);
    expect(await count()).toBe(2);

    // Within the minute the third has expired too, but no write sweeps again…
    clock += 30_000;
    await done(request());
    expect(service.sweeping()).toBeNull();
    expect(await count()).toBe(3);
    // …until a minute after the last sweep.
    clock += 30_000;
    await done(request());
    expect(await service.sweeping()).toBe(1);
    expect(await count()).toBe(3);
  });

  it('sweeps a bounded batch, and sweeps again at the next write while more is left', async () => {
    for (let i = 0; i < 501; i++) await done(request());
    clock += IDEMPOTENCY_WINDOW_MS;
    await done(request());
    expect(await service.sweeping()).toBe(500);
    expect(await count()).toBe(2);
    await done(request());
    expect(await service.sweeping()).toBe(1);
    expect(await count()).toBe(2);
  });

  it('does not sweep a record a request renewed since the sweep found it', async () => {
    const r = request();
    await done(r);
    clock += IDEMPOTENCY_WINDOW_MS;
    // The key comes back after a day: its record is replaced (a new window), and then a sweep runs.
    const renewed = await service.begin(r);
    expect(renewed.kind).toBe('run');
    expect(await service.sweeping()).toBe(0);
    expect(await service.sweep()).toBe(0);
    expect(await count()).toBe(1);
  });

  it('finds expired records through the TTL index, oldest first, without a collection scan', async () => {
    const plan = await storage.idempotency.explain({
      filter: { createdAt: { $lte: new Date(clock) } },
      sort: [
        ['createdAt', 1],
        ['_id', 1],
      ],
      limit: 500,
    });
    expect(plan).toEqual({ indexes: ['idempotency_created_ttl'], collectionScan: false, sort: 'index' });
  });

  it('leaves expiry to the TTL index on MongoDB', async () => {
    const mongoLike = createIdempotencyService({ storage: { ...storage, engine: 'mongodb' }, lockMs: LOCK_MS, now: () => new Date(clock) });
    const r = request();
    const start = await mongoLike.begin(r);
    if (start.kind === 'run') await mongoLike.finish(start.claim, 201, '{}');
    clock += IDEMPOTENCY_WINDOW_MS;
    await mongoLike.begin(request());
    expect(mongoLike.sweeping()).toBeNull();
    expect(await count()).toBe(2);
    // An expired record reads as absent all the same.
    expect((await mongoLike.begin(r)).kind).toBe('run');
  });
});
