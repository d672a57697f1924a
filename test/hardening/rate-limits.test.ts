/**
 * Rate limits that fit the callers (docs/operations.md, "Rate limits"): anonymous callers are
 * counted per address (RATE_LIMIT_READS / RATE_LIMIT_WRITES), token holders per token
 * (RATE_LIMIT_TOKEN_READS / RATE_LIMIT_TOKEN_WRITES), with the same headers; a credential that is
 * refused counts against its address, and failed authentications have a small limit of their own
 * (RATE_LIMIT_FAILED_AUTH). The limits do not depend on the storage engine, so one
 * engine runs them.
 */
import { type LightMyRequestResponse } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { API, EDITOR, EDITOR_TOKEN, type TestApp, VIEWER_TOKEN, json, openTestApp } from '../helpers/app.js';
import { enginesUnderTest } from '../helpers/engines.js';

const { engines } = await enginesUnderTest();
const engine = engines[0]!;

const SECOND_EDITOR_TOKEN = 'second-editor-token-0123456789';
const SECOND_EDITOR = { authorization: `Bearer ${SECOND_EDITOR_TOKEN}` } as const;
const ANONYMOUS = {} as const;
const UNKNOWN = { authorization: 'Bearer not-a-configured-token-0123456789' } as const;

type Headers = Readonly<Record<string, string>>;

describe(`rate limits per caller (${engine.name} engine)`, () => {
  const opened: TestApp[] = [];
  const open = async (env: Record<string, string>) => {
    const t = await openTestApp(engine, env);
    opened.push(t);
    return t;
  };
  afterAll(async () => {
    for (const t of opened) await t.close();
  });

  let tags = 0;
  /** A write that succeeds for an editor (a new tag). */
  const write = (t: TestApp, headers: Headers, remoteAddress?: string) =>
    t.app.inject({ method: 'POST', url: `${API}/tags`, headers, payload: { name: `Rate tag ${++tags}` }, ...(remoteAddress ? { remoteAddress } : {}) });
  const read = (t: TestApp, headers: Headers, remoteAddress?: string) =>
    t.app.inject({ method: 'GET', url: `${API}/tags`, headers, ...(remoteAddress ? { remoteAddress } : {}) });
  const statuses = async (n: number, send: () => Promise<LightMyRequestResponse>) => {
    const seen: number[] = [];
    for (let i = 0; i < n; i++) seen.push((await send()).statusCode);
    return seen;
  };

  it('lets a token write more than 120 times a minute at the default limits', async () => {
    // Only the anonymous limits are left at the helper's 0: the token limits are the defaults.
    const t = await open({ RATE_LIMIT_READS: '1200', RATE_LIMIT_WRITES: '120', RATE_LIMIT_TOKEN_READS: '', RATE_LIMIT_TOKEN_WRITES: '' });
    for (let i = 0; i < 150; i++) {
      const response = await write(t, EDITOR);
      expect(response.statusCode, `write ${i + 1}`).toBe(201);
      expect(response.headers['ratelimit-limit']).toBe('6000');
      expect(response.headers['ratelimit-remaining']).toBe(String(6000 - i - 1));
    }
    const reading = await read(t, EDITOR);
    expect(reading.headers['ratelimit-limit']).toBe('60000');
    // Anonymous callers keep the per-address limits.
    expect((await read(t, ANONYMOUS)).headers['ratelimit-limit']).toBe('1200');
  });

  it('RATE_LIMIT_WRITES=2, RATE_LIMIT_TOKEN_WRITES=5: the token gets 5 writes, an anonymous address 2, apart', async () => {
    const t = await open({ RATE_LIMIT_WRITES: '2', RATE_LIMIT_TOKEN_WRITES: '5' });
    // Anonymous writes are refused (401), and counted against the address.
    const anonymous = await write(t, ANONYMOUS);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['ratelimit-limit']).toBe('2');
    expect(anonymous.headers['ratelimit-remaining']).toBe('1');
    expect((await write(t, ANONYMOUS)).statusCode).toBe(401);
    const refused = await write(t, ANONYMOUS);
    expect(refused.statusCode).toBe(429);
    expect(json(refused)).toMatchObject({ code: 'rest_too_many_requests', data: { status: 429 } });
    // The same address with the token: the token's own budget, untouched by the anonymous one.
    for (let i = 0; i < 5; i++) {
      const response = await write(t, EDITOR);
      expect(response.statusCode, `token write ${i + 1}`).toBe(201);
      expect(response.headers['ratelimit-limit']).toBe('5');
      expect(response.headers['ratelimit-remaining']).toBe(String(4 - i));
      expect(Number(response.headers['ratelimit-reset'])).toBeGreaterThan(0);
    }
    const over = await write(t, EDITOR);
    expect(over.statusCode).toBe(429);
    expect(json(over)).toEqual({ code: 'rest_too_many_requests', message: expect.stringContaining('5'), data: { status: 429 } });
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(over.headers['ratelimit-limit']).toBe('5');
    expect(over.headers['ratelimit-remaining']).toBe('0');
    // Another address, anonymous: a budget of its own.
    expect(await statuses(3, () => write(t, ANONYMOUS, '198.51.100.9'))).toEqual([401, 401, 429]);
    // Reads are not writes: neither budget is spent on them (reads are unlimited here).
    expect((await read(t, EDITOR)).statusCode).toBe(200);
    expect((await read(t, ANONYMOUS)).statusCode).toBe(200);
  });

  it('gives two tokens from one address a budget each, and a token the same budget from any address', async () => {
    const t = await open({
      API_TOKENS: `editor:${EDITOR_TOKEN},editor:${SECOND_EDITOR_TOKEN},viewer:${VIEWER_TOKEN}`,
      RATE_LIMIT_WRITES: '1',
      RATE_LIMIT_TOKEN_WRITES: '3',
    });
    expect(await statuses(4, () => write(t, EDITOR))).toEqual([201, 201, 201, 429]);
    expect(await statuses(4, () => write(t, SECOND_EDITOR))).toEqual([201, 201, 201, 429]);
    // The first token is out of budget from another address too.
    expect((await write(t, EDITOR, '203.0.113.50')).statusCode).toBe(429);
    // `bearer` in any case is the same token.
    expect((await write(t, { authorization: `bearer ${SECOND_EDITOR_TOKEN}` })).statusCode).toBe(429);
  });

  it('gives a token that is not configured the anonymous limits of its address (then 401), never the token limits', async () => {
    const t = await open({ RATE_LIMIT_READS: '2', RATE_LIMIT_TOKEN_READS: '100' });
    const first = await read(t, UNKNOWN);
    expect(first.statusCode).toBe(401);
    expect(first.headers['ratelimit-limit']).toBe('2');
    expect((await read(t, UNKNOWN)).statusCode).toBe(401);
    // Out of the address's budget: guessing tokens is limited like any anonymous caller.
    expect((await read(t, UNKNOWN)).statusCode).toBe(429);
    expect((await read(t, ANONYMOUS)).statusCode).toBe(429);
    // A configured token from that address still has its own.
    const valid = await read(t, EDITOR);
    expect(valid.statusCode).toBe(200);
    expect(valid.headers['ratelimit-limit']).toBe('100');
  });

  it('0 turns each limit off on its own', async () => {
    const t = await open({ RATE_LIMIT_READS: '1', RATE_LIMIT_WRITES: '1', RATE_LIMIT_TOKEN_READS: '0', RATE_LIMIT_TOKEN_WRITES: '0' });
    for (let i = 0; i < 5; i++) {
      const response = await write(t, EDITOR);
      expect(response.statusCode).toBe(201);
      expect(response.headers['ratelimit-limit']).toBeUndefined();
      expect((await read(t, EDITOR)).statusCode).toBe(200);
    }
    expect(await statuses(2, () => read(t, ANONYMOUS))).toEqual([200, 429]);

    const tokensOnly = await open({ RATE_LIMIT_READS: '0', RATE_LIMIT_WRITES: '0', RATE_LIMIT_TOKEN_READS: '1' });
    expect(await statuses(3, () => read(tokensOnly, ANONYMOUS))).toEqual([200, 200, 200]);
    expect(await statuses(2, () => read(tokensOnly, EDITOR))).toEqual([200, 429]);
  });

  it('RATE_LIMIT_FAILED_AUTH=3: an address past 3 failed authentications a minute gets 429, valid tokens and other addresses do not', async () => {
    let clock = Date.parse('2030-01-01T10:00:10Z');
    const t = await openTestApp(engine, { API_TOKENS: `editor:${EDITOR_TOKEN}`, RATE_LIMIT_FAILED_AUTH: '3' }, undefined, () => new Date(clock));
    opened.push(t);
    const guessing = '203.0.113.7';
    expect(await statuses(3, () => read(t, UNKNOWN, guessing))).toEqual([401, 401, 401]);
    const refused = await read(t, { authorization: 'Basic Zm9vOmJhcg==' }, guessing);
    expect(refused.statusCode).toBe(429);
    // Until the minute's window ends: 50 s.
    expect(refused.headers['retry-after']).toBe('50');
    expect(json(refused)).toMatchObject({ code: 'rest_too_many_requests', data: { status: 429 } });
    expect((await write(t, UNKNOWN, guessing)).statusCode).toBe(429);
    // A valid token from that address, anonymous reads and another address are not slowed.
    expect((await write(t, EDITOR, guessing)).statusCode).toBe(201);
    expect((await read(t, ANONYMOUS, guessing)).statusCode).toBe(200);
    expect((await read(t, UNKNOWN, '198.51.100.1')).statusCode).toBe(401);
    // The next minute counts afresh.
    clock += 50_000;
    expect((await read(t, UNKNOWN, guessing)).statusCode).toBe(401);
  });

  it('documents a 429 on the operations some caller is limited on, token limits included', async () => {
    const t = await open({ RATE_LIMIT_TOKEN_WRITES: '5' });
    type Doc = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const doc = json<Doc>(await t.app.inject({ method: 'GET', url: `${API}/doc` }));
    expect(doc.paths['/events']!.post!.responses['429']).toEqual({ $ref: '#/components/responses/TooManyRequests' });
    expect(doc.paths['/events']!.get!.responses).not.toHaveProperty('429');
  });
});

describe('rate limit configuration', () => {
  it('RATE_LIMIT_TOKEN_READS / RATE_LIMIT_TOKEN_WRITES default to 60,000 / 6,000 a minute, are validated, and 0 is off', () => {
    expect(loadConfig({})).toMatchObject({ rateLimitReads: 1200, rateLimitWrites: 120, rateLimitTokenReads: 60_000, rateLimitTokenWrites: 6_000 });
    expect(loadConfig({ RATE_LIMIT_TOKEN_READS: '0', RATE_LIMIT_TOKEN_WRITES: '10' })).toMatchObject({ rateLimitTokenReads: 0, rateLimitTokenWrites: 10 });
    expect(() => loadConfig({ RATE_LIMIT_TOKEN_WRITES: 'many' })).toThrow(ConfigError);
    expect(() => loadConfig({ RATE_LIMIT_TOKEN_READS: '-1' })).toThrow(/RATE_LIMIT_TOKEN_READS/);
  });
});
