/**
 * Load shedding: with MAX_EVENT_LOOP_DELAY_MS set, a lagging event loop makes
 * the service answer 503 `server-overloaded` in the error shape with Retry-After (liveness stays
 * 200), and it answers normally again once the loop recovers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type TestApp, json, openTestApp } from '../helpers/app.js';
import { enginesUnderTest } from '../helpers/engines.js';

const { engines } = await enginesUnderTest();
const engine = engines[0]!;

function blockEventLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Stalls the loop until an event-list request is shed: that 503, or undefined after 20 tries. */
async function shedRequest(t: TestApp): Promise<Awaited<ReturnType<TestApp['app']['inject']>> | undefined> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    blockEventLoop(600);
    await pause(5);
    const response = await t.app.inject({ method: 'GET', url: `${API}/events` });
    if (response.statusCode === 503) return response;
  }
  return undefined;
}

describe(`load shedding (${engine.name} engine)`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine, { MAX_EVENT_LOOP_DELAY_MS: '100' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('sheds requests with 503 + Retry-After while the event loop lags, exempts /health/live, then recovers', async () => {
    const shed = await shedRequest(t);
    // Asked at once, while the lag still counts.
    const live = await t.app.inject({ method: 'GET', url: '/health/live' });
    expect(shed, 'no request was shed').toBeDefined();
    expect(shed!.headers['retry-after']).toMatch(/^\d+$/);
    expect(json(shed!)).toEqual({ code: 'server-overloaded', message: expect.any(String), data: { status: 503 } });
    expect(live.statusCode).toBe(200);

    let recovered = false;
    for (let attempt = 0; attempt < 100 && !recovered; attempt += 1) {
      await pause(100);
      recovered = (await t.app.inject({ method: 'GET', url: `${API}/events` })).statusCode === 200;
    }
    expect(recovered).toBe(true);
  }, 60_000);

  it('does not shed the requests that follow its own start-up, which stalls the loop once; sheds again after', async () => {
    // A slow start-up: registering the routes blocks the loop after the sampler has begun, as
    // compiling the app does on a busy machine (seen: the first readiness probe got 503).
    let stalled = false;
    const started = await openTestApp(engine, { MAX_EVENT_LOOP_DELAY_MS: '100' }, (route) => {
      if (stalled || !route.url.includes('/events')) return;
      stalled = true;
      blockEventLoop(600);
    });
    try {
      expect(stalled).toBe(true);
      // The sampler's overdue timer fires first and sees the stall; the request comes right after.
      await pause(5);
      expect((await started.app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
      expect((await started.app.inject({ method: 'GET', url: `${API}/events` })).statusCode).toBe(200);
      // Past the start-up, a stalled loop is shed as before.
      await pause(250);
      expect(await shedRequest(started), 'no request was shed after the start-up').toBeDefined();
    } finally {
      await started.close();
    }
  }, 60_000);

  it('is off with MAX_EVENT_LOOP_DELAY_MS=0 (the test default)', async () => {
    const off = await openTestApp(engine);
    try {
      blockEventLoop(300);
      await pause(5);
      expect((await off.app.inject({ method: 'GET', url: `${API}/events` })).statusCode).toBe(200);
    } finally {
      await off.close();
    }
  });
});
