/**
 * The start-up warm-up (src/warm-up.ts): representative requests before the server listens, that
 * write nothing, log no request line at info, spend no caller's rate-limit budget, are skipped
 * when storage does not answer, and are bounded in time.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type FaultyStorage, createFaultyStorage } from '../helpers/faulty-storage.js';
import { warmUp } from '../../src/warm-up.js';
import { API, EDITOR, EDITOR_TOKEN, type TestApp, createEventOk, insertCategory, snapshot, openTestApp } from '../helpers/app.js';
import { type EngineUnderTest, routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();

const WRITE_CALL = /\.(insertOne|updateById|updateMany|deleteById)$|^nextId$/;

/** A published event tomorrow, so the default list (from today on) shows it. */
function upcoming(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const at = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
  return { status: 'publish', start_date: at(24), end_date: at(26), ...overrides };
}

describe.each(engines)('warm-up ($name engine)', (engine: EngineUnderTest) => {
  let faulty: FaultyStorage;
  const recording: EngineUnderTest = {
    name: engine.name,
    async open() {
      faulty = createFaultyStorage(await engine.open());
      return faulty;
    },
  };
  const opened: TestApp[] = [];
  const open = async (env: Record<string, string> = {}) => {
    const t = await openTestApp(recording, env);
    opened.push(t);
    await createEventOk(
      t.app,
      upcoming({ title: 'Warm-up check', venue: { venue: 'Warm-up check hall', city: 'Lyon', country: 'France' }, categories: ['Music'] }),
    );
    await insertCategory(t.storage);
    return t;
  };
  afterAll(async () => {
    for (const t of opened) await t.close();
  });

  it('reads, and sends a create that validation refuses: the store is unchanged and no write call reaches storage', async () => {
    const t = await open();
    const before = await snapshot(t.storage);
    const callsBefore = faulty.calls.length;
    const report = await warmUp(t.app, loadConfig({ API_TOKENS: `editor:${EDITOR_TOKEN}` }));
    expect(report.stopped).toBeNull();
    expect(report.requests.map((r) => `${r.method} ${r.path.replace(/\/\d+$/, '/{id}')} ${r.status}`)).toEqual([
      'GET /health/ready 200',
      `GET ${API}/events 200`,
      `GET ${API}/events/{id} 200`,
      `GET ${API}/events?start_date=2030-06-10+19%3A00%3A00&end_date=2030-07-10+19%3A00%3A00 200`,
      `GET ${API}/venues 200`,
      `GET ${API}/categories 200`,
      // Authenticated, so validation ran (401 would have been refused before it).
      `POST ${API}/events 400`,
    ]);
    expect(faulty.calls.slice(callsBefore).filter((name) => WRITE_CALL.test(name))).toEqual([]);
    expect(await snapshot(t.storage)).toEqual(before);
  });

  it('without an editor token it only reads', async () => {
    const t = await open();
    const before = await snapshot(t.storage);
    const report = await warmUp(t.app, loadConfig({}));
    expect(report.requests.map((r) => r.method)).toEqual(['GET', 'GET', 'GET', 'GET', 'GET', 'GET']);
    expect(await snapshot(t.storage)).toEqual(before);
  });

  it('spends no rate-limit budget: the first callers after it have their whole budget', async () => {
    // The token's second write: `open` made the first.
    const t = await open({ RATE_LIMIT_READS: '1', RATE_LIMIT_WRITES: '1', RATE_LIMIT_TOKEN_READS: '1', RATE_LIMIT_TOKEN_WRITES: '2' });
    const report = await warmUp(t.app, loadConfig({ API_TOKENS: `editor:${EDITOR_TOKEN}` }));
    expect(report.requests.every((r) => r.status !== 429)).toBe(true);
    for (const headers of [{}, EDITOR]) {
      const response = await t.app.inject({ method: 'GET', url: `${API}/events`, headers });
      expect(response.statusCode).toBe(200);
      expect(response.headers['ratelimit-remaining']).toBe('0');
    }
    const write = await t.app.inject({ method: 'POST', url: `${API}/tags`, headers: EDITOR, payload: { name: 'After the warm-up' } });
    expect(write.statusCode).toBe(201);
    expect(write.headers['ratelimit-remaining']).toBe('0');
  });

  it('makes no request but the readiness probe when storage does not answer', async () => {
    const t = await open({ STORAGE_TIMEOUT_MS: '200' });
    faulty.inject({ kind: 'unavailable' });
    try {
      const report = await warmUp(t.app, loadConfig({ API_TOKENS: `editor:${EDITOR_TOKEN}` }));
      expect(report.stopped).toBe('storage-not-ready');
      expect(report.requests).toEqual([{ method: 'GET', path: '/health/ready', status: 503 }]);
    } finally {
      faulty.clear();
    }
  });

  it('is bounded: with storage that never answers (and no storage deadline) it stops at its time budget', async () => {
    const t = await open({ STORAGE_TIMEOUT_MS: '0' });
    faulty.inject({ kind: 'hang' });
    const report = await warmUp(t.app, loadConfig({}), { budgetMs: 100 });
    faulty.clear();
    expect(report.stopped).toBe('time-budget');
    expect(report.requests).toEqual([]);
  });
});

describe('warm-up logging', () => {
  const engine = engines[0]!;
  let lines: Array<{ level: number; msg: string }>;
  let storage: Awaited<ReturnType<EngineUnderTest['open']>>;
  let app: ReturnType<typeof buildApp>;
  let logger: pino.Logger;

  beforeAll(async () => {
    lines = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { level: number; msg: string });
        callback();
      },
    });
    const config = loadConfig({ API_TOKENS: `editor:${EDITOR_TOKEN}`, LOG_LEVEL: 'info', MAX_EVENT_LOOP_DELAY_MS: '0' });
    storage = await engine.open();
    logger = pino({ level: 'info' }, stream);
    app = buildApp({ config, storage, logger });
    await app.ready();
    await createEventOk(app, upcoming());
  });
  afterAll(async () => {
    await app?.close();
    await storage?.close();
  });

  it('writes no request line at info, puts the level back, and says what it did at debug', async () => {
    lines.length = 0;
    await warmUp(app, loadConfig({ API_TOKENS: `editor:${EDITOR_TOKEN}` }), { logger });
    expect(lines.filter((l) => l.level <= 30)).toEqual([]);
    expect(logger.level).toBe('info');
    // Requests after it are logged as usual.
    await app.inject({ method: 'GET', url: `${API}/events` });
    expect(lines.map((l) => l.msg)).toEqual(['incoming request', 'request completed']);

    lines.length = 0;
    logger.level = 'debug';
    try {
      await warmUp(app, loadConfig({ API_TOKENS: `editor:${EDITOR_TOKEN}` }), { logger });
    } finally {
      logger.level = 'info';
    }
    expect(lines.map((l) => [l.level, l.msg.replace(/ in \d+ ms.*/, '')])).toEqual([[20, 'warm-up: 7 requests']]);
  });
});
