/**
 * Resource limits, each documented in docs/operations.md ("Limits"): body size (413),
 * list parameters capped at MAX_LIST_ITEMS (400), `search` capped at MAX_SEARCH_LENGTH (400),
 * request/connection/keep-alive timeouts set deliberately, the storage deadline, and no regular
 * expression built from input anywhere in src/.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { MAX_LIST_ITEMS, MAX_SEARCH_LENGTH } from '../../src/schemas/common.js';
import { API, EDITOR, type TestApp, json, makeEventInput, openTestApp, snapshot } from '../helpers/app.js';
import { enginesUnderTest } from '../helpers/engines.js';

const { engines } = await enginesUnderTest();

describe.each(engines)('limits ($name engine)', (engine) => {
  let t: TestApp;
  let small: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine);
    small = await openTestApp(engine, { BODY_LIMIT: '2048' });
  });
  afterAll(async () => {
    await t?.close();
    await small?.close();
  });

  it('a body over BODY_LIMIT is a 413 rest_request_too_large and changes nothing (configured and default 1 MiB, create and update)', async () => {
    const ok = await small.app.inject({ method: 'POST', url: `${API}/events`, headers: EDITOR, payload: makeEventInput() });
    expect(ok.statusCode).toBe(201);
    const update = { method: 'PATCH', url: `${API}/events/${json(ok).id as number}`, payload: { description: 'y'.repeat(3000) } } as const;
    for (const [app, request] of [
      [small, { method: 'POST', url: `${API}/events`, payload: makeEventInput({ description: 'x'.repeat(3000) }) }],
      [small, update],
      [t, { method: 'POST', url: `${API}/events`, payload: makeEventInput({ description: 'x'.repeat(1_048_576 + 10) }) }],
    ] as const) {
      const before = await snapshot(app.storage);
      const response = await app.app.inject({
        ...request,
        headers: { ...EDITOR, 'content-type': 'application/json' },
        payload: JSON.stringify(request.payload),
      });
      expect(response.statusCode, request.method).toBe(413);
      expect(json(response)).toEqual({ code: 'rest_request_too_large', message: expect.any(String), data: { status: 413 } });
      expect(await snapshot(app.storage)).toEqual(before);
    }
  });

  it(`list parameters take at most ${MAX_LIST_ITEMS} items (400 rest_invalid_param beyond)`, async () => {
    const items = (n: number) => Array.from({ length: n }, (_, i) => `categories[]=${i + 1}`).join('&');
    const over = await t.app.inject({ method: 'GET', url: `${API}/events?${items(MAX_LIST_ITEMS + 1)}` });
    expect(over.statusCode).toBe(400);
    expect(json(over)).toMatchObject({ code: 'rest_invalid_param', data: { status: 400 } });
    expect(JSON.stringify(json(over).data)).toContain('categories');
    const atLimit = await t.app.inject({ method: 'GET', url: `${API}/events?${items(MAX_LIST_ITEMS)}` });
    expect(atLimit.statusCode).toBeLessThan(500);
    // At the cap the list is accepted by validation (unknown categories may still be reported, never as too many items).
    expect(atLimit.body).not.toMatch(/maxItems|more than \d+ items/i);
  });

  it(`search takes at most ${MAX_SEARCH_LENGTH} characters (400 beyond)`, async () => {
    const over = await t.app.inject({ method: 'GET', url: `${API}/events?search=${'a'.repeat(MAX_SEARCH_LENGTH + 1)}` });
    expect(over.statusCode).toBe(400);
    expect(json(over)).toMatchObject({ code: 'rest_invalid_param', data: { status: 400 } });
    const atLimit = await t.app.inject({ method: 'GET', url: `${API}/events?search=${'a'.repeat(MAX_SEARCH_LENGTH)}` });
    expect(atLimit.statusCode).toBe(200);
  });

  it('request, connection and keep-alive timeouts are set deliberately', async () => {
    const config = loadConfig({});
    expect(config.requestTimeoutMs).toBe(30_000);
    expect(config.storageTimeoutMs).toBe(10_000);
    expect(config.storageTimeoutMs).toBeLessThan(config.requestTimeoutMs);
    expect((t.app.initialConfig as { requestTimeout?: number }).requestTimeout).toBe(30_000);
    expect(t.app.initialConfig.connectionTimeout).toBe(30_000);
    // Above common load-balancer idle timeouts (60 s), so the proxy closes first.
    expect(t.app.initialConfig.keepAliveTimeout).toBe(72_000);
    expect(t.app.initialConfig.bodyLimit).toBe(1_048_576);
  });
});

describe('limit configuration', () => {
  it('STORAGE_TIMEOUT_MS and MAX_EVENT_LOOP_DELAY_MS are validated, 0 turns them off', () => {
    expect(() => loadConfig({ STORAGE_TIMEOUT_MS: 'soon' })).toThrow(ConfigError);
    expect(() => loadConfig({ MAX_EVENT_LOOP_DELAY_MS: '-1' })).toThrow(/MAX_EVENT_LOOP_DELAY_MS/);
    expect(loadConfig({ STORAGE_TIMEOUT_MS: '0', MAX_EVENT_LOOP_DELAY_MS: '0' })).toMatchObject({ storageTimeoutMs: 0, maxEventLoopDelayMs: 0 });
    expect(loadConfig({}).maxEventLoopDelayMs).toBe(1000);
  });

  it('no regular expression is built from input: the only `new RegExp(` in src/ uses constants', () => {
    const root = join(import.meta.dirname, '../../src');
    const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
    const hits = files.flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .filter((line) => line.includes('new RegExp('))
        .map((line) => `${file}: ${line.trim()}`),
    );
    expect(hits).toEqual([expect.stringMatching(/^lib\/text\.ts: const DELIMITERS = new RegExp\(`\(\?:\(\?!'\)\$\{DELIMITER_CLASS\}\)\+`, 'u'\);$/)]);
  });
});
