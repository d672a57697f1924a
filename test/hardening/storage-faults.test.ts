/**
 * Storage faults: on every engine, a fault-injecting wrapper around storage
 * (src/storage/faulty.ts) loses the connection, fails the n-th call, hangs, slows down, or loses the
 * acknowledgement of a write that did happen. Under every fault the service answers
 * 503 `storage-unavailable` with Retry-After (never a 500, never a hang past the storage deadline),
 * readiness turns false, a write with an unknown outcome is never reported as a success, and
 * everything is normal again once the fault clears.
 */
import { type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultPlan, type FaultyStorage } from '../helpers/faulty-storage.js';
import { API, EDITOR, type TestApp, createEventOk, insertCategory, insertVenue, json, makeEventInput, openTestApp, snapshot } from '../helpers/app.js';
import { type EngineUnderTest, enginesUnderTest, withFaults } from '../helpers/engines.js';

const { engines } = await enginesUnderTest();

/** Storage deadline in these tests: well below REQUEST_TIMEOUT_MS (1000 here). */
const STORAGE_TIMEOUT_MS = 300;

function expectUnavailable(response: LightMyRequestResponse, what: string): void {
  expect(response.statusCode, `${what}: ${response.body}`).toBe(503);
  expect(response.headers['retry-after'], what).toMatch(/^\d+$/);
  const body = json(response);
  expect(body.code, what).toBe('storage-unavailable');
  expect(typeof body.message).toBe('string');
  expect((body.data as { status: number }).status).toBe(503);
  expect(response.body).not.toMatch(/stack|at .*\.ts|Error:/);
}

describe.each(engines)('storage faults ($name engine)', (engine: EngineUnderTest) => {
  let t: TestApp;
  let faulty: FaultyStorage;
  let eventId: number;
  let venueId: number;
  let categoryId: number;

  beforeAll(async () => {
    const wrapped = withFaults(engine);
    t = await openTestApp(wrapped.engine, { STORAGE_TIMEOUT_MS: String(STORAGE_TIMEOUT_MS), REQUEST_TIMEOUT_MS: '1000' });
    faulty = wrapped.faulty();
    eventId = (await createEventOk(t.app)).id as number;
    venueId = (await insertVenue(t.storage))._id;
    categoryId = (await insertCategory(t.storage))._id;
  });
  afterAll(async () => {
    faulty.clear();
    await t?.close();
  });

  const requests = () =>
    [
      { what: 'event list', method: 'GET', url: `${API}/events` },
      { what: 'event read', method: 'GET', url: `${API}/events/${eventId}` },
      { what: 'venue list', method: 'GET', url: `${API}/venues` },
      { what: 'venue read', method: 'GET', url: `${API}/venues/${venueId}` },
      { what: 'category list', method: 'GET', url: `${API}/categories` },
      { what: 'event create', method: 'POST', url: `${API}/events`, headers: EDITOR, payload: makeEventInput({ title: 'During a fault' }) },
      { what: 'event update', method: 'POST', url: `${API}/events/${eventId}`, headers: EDITOR, payload: { title: 'Updated during a fault' } },
      { what: 'category update', method: 'POST', url: `${API}/categories/${categoryId}`, headers: EDITOR, payload: { description: 'changed' } },
      { what: 'event delete', method: 'DELETE', url: `${API}/events/${eventId}`, headers: EDITOR },
    ] as const;

  async function checkNormal(): Promise<void> {
    const ready = await t.app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode, ready.body).toBe(200);
    const read = await t.app.inject({ method: 'GET', url: `${API}/events/${eventId}` });
    expect(read.statusCode, read.body).toBe(200);
    const list = await t.app.inject({ method: 'GET', url: `${API}/events` });
    expect(list.statusCode, list.body).toBe(200);
    const created = await t.app.inject({ method: 'POST', url: `${API}/events`, headers: EDITOR, payload: makeEventInput({ title: 'After the fault' }) });
    expect(created.statusCode, created.body).toBe(201);
  }

  const everyCallFaults: Array<[string, FaultPlan]> = [
    ['connection loss', { kind: 'unavailable' }],
    ['hung storage (deadline)', { kind: 'hang' }],
    ['slow storage beyond the deadline', { kind: 'slow', delayMs: STORAGE_TIMEOUT_MS * 3 }],
  ];

  it.each(everyCallFaults)('%s: every route answers 503 storage-unavailable, readiness is false, then recovery', async (_label, plan) => {
    const before = await snapshot(faulty);
    faulty.inject(plan);
    try {
      const ready = await t.app.inject({ method: 'GET', url: '/health/ready' });
      expectUnavailable(ready, 'readiness');
      const live = await t.app.inject({ method: 'GET', url: '/health/live' });
      expect(live.statusCode).toBe(200);
      for (const request of requests()) {
        const started = Date.now();
        const response = await t.app.inject(request);
        // Never a hang: the storage deadline ends the request well before REQUEST_TIMEOUT_MS.
        expect(Date.now() - started, request.what).toBeLessThan(STORAGE_TIMEOUT_MS * 10);
        expectUnavailable(response, request.what);
      }
    } finally {
      faulty.clear();
    }
    // Slow calls that were abandoned may still land; let them settle before comparing.
    await new Promise((resolve) => setTimeout(resolve, plan.kind === 'slow' ? (plan.delayMs ?? 0) + 100 : 10));
    if (plan.kind !== 'slow') expect(await snapshot(faulty)).toEqual(before);
    await checkNormal();
  });

  it('slow storage within the deadline still answers normally', async () => {
    faulty.inject({ kind: 'slow', delayMs: 20 });
    try {
      const read = await t.app.inject({ method: 'GET', url: `${API}/events/${eventId}` });
      expect(read.statusCode, read.body).toBe(200);
      const ready = await t.app.inject({ method: 'GET', url: '/health/ready' });
      expect(ready.statusCode).toBe(200);
    } finally {
      faulty.clear();
    }
  });

  it('fails the n-th storage call of a write: 503 for every n the request reaches, never 5xx otherwise', async () => {
    // How many storage calls one create makes.
    const callsBefore = faulty.calls.length;
    const probe = await t.app.inject({ method: 'POST', url: `${API}/events`, headers: EDITOR, payload: makeEventInput({ title: 'Probe' }) });
    expect(probe.statusCode).toBe(201);
    const callsPerCreate = faulty.calls.length - callsBefore;
    let count = 0;
    for (let n = 1; n <= Math.min(callsPerCreate + 1, 40); n += 1) {
      faulty.inject({ kind: 'unavailable', nth: n });
      const response = await t.app.inject({ method: 'POST', url: `${API}/events`, headers: EDITOR, payload: makeEventInput({ title: `nth ${n}` }) });
      faulty.clear();
      if (faulty.faulted > 0) {
        expectUnavailable(response, `create with call ${n} failing`);
        count += 1;
      } else {
        expect(response.statusCode, response.body).toBe(201);
      }
    }
    expect(count).toBeGreaterThan(0);
    await checkNormal();
  });

  it('a write whose outcome is unknown (stored, then the acknowledgement is lost) is never reported as a success', async () => {
    const victimId = (await createEventOk(t.app, { title: 'To be deleted' })).id as number;
    const writes = [
      { what: 'event create', method: 'POST', url: `${API}/events`, headers: EDITOR, payload: makeEventInput({ title: 'Lost ack' }) },
      { what: 'event update', method: 'POST', url: `${API}/events/${eventId}`, headers: EDITOR, payload: { title: 'Lost ack update' } },
      { what: 'category update', method: 'POST', url: `${API}/categories/${categoryId}`, headers: EDITOR, payload: { description: 'lost ack' } },
      { what: 'event delete', method: 'DELETE', url: `${API}/events/${victimId}`, headers: EDITOR },
    ] as const;
    for (const request of writes) {
      faulty.inject({ kind: 'lost-ack', only: 'writes' });
      const response = await t.app.inject(request);
      const faulted = faulty.faulted;
      faulty.clear();
      expect(faulted, request.what).toBeGreaterThan(0);
      expect(response.statusCode, `${request.what}: ${response.body}`).not.toBeLessThan(300);
      expectUnavailable(response, request.what);
    }
    await checkNormal();
  });
});
