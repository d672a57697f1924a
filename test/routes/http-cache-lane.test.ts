/**
 * The response cache's first hook (src/plugins/http-cache.ts): a URL the cache holds is answered
 * before the host check, rate limiting, authentication and load shedding run, under their rules
 * all the same — a malformed host is refused, a request is counted against its limit, a request
 * with a token or a password is never answered from the cache, a request while the server sheds
 * load is shed — with the headers an answer computed now would carry, CORS's included.
 */
import { type LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { interceptStorage } from '../../src/storage/deadline.js';
import { API, EDITOR, createEventOk, json, openTestApp, type TestApp } from '../helpers/app.js';
import { type EngineUnderTest, routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();
// The hooks' rules do not depend on the engine: one is enough.
const base = engines[0]!;

const LIST = `${API}/events?per_page=5`;

/** An app whose storage counts the reads of the event list (`events.findPage`): a cached answer reads nothing. */
async function openCounting(env: Record<string, string> = {}): Promise<{ t: TestApp; pages: () => number }> {
  let pages = 0;
  const engine: EngineUnderTest = {
    name: base.name,
    open: async () =>
      interceptStorage(await base.open(), (name, call) => {
        if (name === 'events.findPage') pages++;
        return call();
      }),
  };
  const t = await openTestApp(engine, env);
  await createEventOk(t.app, { title: 'Laned' });
  return { t, pages: () => pages };
}

/** The headers of an answer but those made per response. */
function headersOf(response: LightMyRequestResponse): Record<string, unknown> {
  const { date: _date, connection: _connection, ...rest } = response.headers;
  return rest;
}

const blockEventLoop = (ms: number): void => {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy
  }
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the response cache answered by the first hook', () => {
  const apps: TestApp[] = [];
  const open = async (env: Record<string, string> = {}) => {
    const opened = await openCounting(env);
    apps.push(opened.t);
    return opened;
  };
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((t) => t.close()));
  });

  it('answers with the headers of the answer it kept, and a 304 with those of a 304 computed now', async () => {
    const { t, pages } = await open();
    const computed = await t.app.inject({ method: 'GET', url: LIST });
    const cached = await t.app.inject({ method: 'GET', url: LIST });
    expect(pages()).toBe(1);
    expect(cached.body).toBe(computed.body);
    expect(headersOf(cached)).toEqual(headersOf(computed));
    expect(cached.headers['cache-control']).toBe('public, max-age=0, must-revalidate');
    expect(cached.headers.vary).toBe('Authorization');

    const etag = computed.headers.etag as string;
    const fresh = await openCounting({ RESPONSE_CACHE_BYTES: '0' });
    apps.push(fresh.t);
    const uncached304 = await fresh.t.app.inject({ method: 'GET', url: LIST, headers: { 'if-none-match': etag } });
    const cached304 = await t.app.inject({ method: 'GET', url: LIST, headers: { 'if-none-match': etag } });
    expect(uncached304.statusCode).toBe(304);
    expect(cached304.statusCode).toBe(304);
    expect(cached304.body).toBe('');
    expect(headersOf(cached304)).toEqual(headersOf(uncached304));
    const head = await t.app.inject({ method: 'HEAD', url: LIST });
    expect(head.body).toBe('');
    expect(headersOf(head)).toEqual(headersOf(computed));
    expect(pages()).toBe(1);
  });

  it('still refuses a malformed host, and answers another host with that host’s links', async () => {
    const { t, pages } = await open({ ALLOWED_HOSTS: 'calendar.example', PUBLIC_URL: 'https://public.example' });
    const allowed = await t.app.inject({ method: 'GET', url: LIST, headers: { host: 'calendar.example' } });
    expect(allowed.body).toContain('http://calendar.example/');
    expect((await t.app.inject({ method: 'GET', url: LIST, headers: { host: 'calendar.example' } })).body).toBe(allowed.body);
    expect(pages()).toBe(1);
    for (const host of ['calendar.example x', 'user@calendar.example']) {
      const refused = await t.app.inject({ method: 'GET', url: LIST, headers: { host } });
      expect(refused.statusCode, host).toBe(400);
      expect(json(refused)).toMatchObject({ code: 'rest_bad_request', data: { header: 'Host' } });
    }
    const other = await t.app.inject({ method: 'GET', url: LIST, headers: { host: 'evil.example' } });
    expect(other.statusCode).toBe(200);
    expect(other.body).not.toContain('evil.example');
    expect(other.body).toContain('https://public.example/');
  });

  it('counts a cached answer against the rate limit, and refuses past it', async () => {
    const { t, pages } = await open({ RATE_LIMIT_READS: '3' });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await t.app.inject({ method: 'GET', url: LIST }));
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 429]);
    expect(answers.map((answer) => answer.headers['ratelimit-remaining'])).toEqual(['2', '1', '0', '0']);
    expect(json(answers[3]!)).toMatchObject({ code: 'rest_too_many_requests' });
    expect(answers[3]!.headers['retry-after']).toMatch(/^\d+$/);
    expect(pages()).toBe(1);
  });

  it('never answers a request with a token or a password from the cache', async () => {
    const { t, pages } = await open();
    await t.app.inject({ method: 'GET', url: LIST });
    await t.app.inject({ method: 'GET', url: LIST });
    expect(pages()).toBe(1);
    const withToken = await t.app.inject({ method: 'GET', url: LIST, headers: EDITOR });
    expect(withToken.headers['cache-control']).toBe('private, no-store');
    expect(pages()).toBe(2);
    const badToken = await t.app.inject({ method: 'GET', url: LIST, headers: { authorization: 'Bearer not-a-token' } });
    expect(badToken.statusCode).toBe(401);
    const malformed = await t.app.inject({ method: 'GET', url: LIST, headers: { authorization: 'Basic' } });
    expect(malformed.statusCode).toBe(401);
    const withPassword = await t.app.inject({ method: 'GET', url: `${LIST}&password=sesame` });
    expect(withPassword.headers['cache-control']).toBe('private, no-store');
    expect((await t.app.inject({ method: 'GET', url: `${LIST}&password=sesame` })).headers['cache-control']).toBe('private, no-store');
    expect(pages()).toBe(4);
  });

  it('gives a cached answer the CORS headers of one computed now', async () => {
    const { t, pages } = await open({ CORS_ORIGINS: 'https://app.example' });
    for (const headers of [{ origin: 'https://app.example' }, { origin: 'https://other.example' }, {}]) {
      const computed = await t.app.inject({ method: 'GET', url: `${LIST}&page=1`, headers: { ...headers, 'x-probe': String(pages()) } });
      const cached = await t.app.inject({ method: 'GET', url: `${LIST}&page=1`, headers });
      expect(headersOf(cached), JSON.stringify(headers)).toEqual(headersOf(computed));
      const etag = computed.headers.etag as string;
      const notModified = await t.app.inject({ method: 'GET', url: `${LIST}&page=1`, headers: { ...headers, 'if-none-match': etag } });
      expect(notModified.statusCode).toBe(304);
      expect(notModified.headers.vary).toBe(computed.headers.vary);
      expect(notModified.headers['access-control-allow-origin']).toBe(computed.headers['access-control-allow-origin']);
    }
    const allowed = await t.app.inject({ method: 'GET', url: `${LIST}&page=1`, headers: { origin: 'https://app.example' } });
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(allowed.headers.vary).toBe('Origin, Authorization');
    expect(pages()).toBe(1);
  });

  it('sheds a request for a cached URL while the event loop lags', async () => {
    const { t, pages } = await open({ MAX_EVENT_LOOP_DELAY_MS: '100' });
    // Kept once answered: on a loaded machine the loop may lag past 100 ms without any help.
    for (let attempt = 0; attempt < 50 && pages() === 0; attempt++) {
      if ((await t.app.inject({ method: 'GET', url: LIST })).statusCode !== 200) await pause(100);
    }
    expect(pages()).toBe(1);
    let shed: LightMyRequestResponse | undefined;
    for (let attempt = 0; attempt < 20 && shed === undefined; attempt++) {
      blockEventLoop(600);
      await pause(5);
      const response = await t.app.inject({ method: 'GET', url: LIST });
      if (response.statusCode === 503) shed = response;
    }
    expect(shed, 'no request was shed').toBeDefined();
    expect(json(shed!)).toMatchObject({ code: 'server-overloaded' });
    expect(shed!.headers['retry-after']).toMatch(/^\d+$/);
  }, 60_000);
});
