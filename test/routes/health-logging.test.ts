/**
 * Health probes' request lines are logged at debug, other requests' at info: at the default level
 * an orchestrator's probes leave the log to the requests people make, and LOG_LEVEL=debug shows
 * them too. A probe that fails is still logged above debug.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { StorageUnavailableError } from '../../src/errors.js';
import { API } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();
const engine = engines[0]!;

interface Line {
  level: number;
  msg: string;
  req?: { url: string };
}

/** The app with a real pino logger at `level`, and the lines it wrote. */
async function appLoggingAt(level: 'info' | 'debug') {
  const lines: Line[] = [];
  const logger = pino({ level }, { write: (line: string) => lines.push(JSON.parse(line) as Line) });
  const storage = await engine.open();
  const config = loadConfig({ RATE_LIMIT_READS: '0', RATE_LIMIT_WRITES: '0', MAX_EVENT_LOOP_DELAY_MS: '0' });
  const app = buildApp({ config, storage, logger });
  await app.ready();
  /** The lines written while answering a request to `url` (requests are made one at a time). */
  const linesOf = async (url: string) => {
    const before = lines.length;
    const response = await app.inject({ method: 'GET', url });
    // The completed line is written once the response has ended: a turn of the event loop later.
    await new Promise((resolve) => setImmediate(resolve));
    return { status: response.statusCode, lines: lines.slice(before) };
  };
  return {
    linesOf,
    storage,
    close: async () => {
      await app.close();
      await storage.close();
    },
  };
}

describe('request logging of health probes', () => {
  it('writes no line for a probe at info, and the usual two for another request', async () => {
    const t = await appLoggingAt('info');
    try {
      for (const url of ['/health/live', '/health/ready']) {
        const probe = await t.linesOf(url);
        expect(probe.status).toBe(200);
        expect(probe.lines, url).toEqual([]);
      }
      const request = await t.linesOf(`${API}/events`);
      expect(request.lines.map((l) => [l.level, l.msg])).toEqual([
        [30, 'incoming request'],
        [30, 'request completed'],
      ]);
    } finally {
      await t.close();
    }
  });

  it('writes the probe lines at debug when LOG_LEVEL is debug', async () => {
    const t = await appLoggingAt('debug');
    try {
      for (const url of ['/health/live', '/health/ready']) {
        const probe = await t.linesOf(url);
        expect(
          probe.lines.map((l) => [l.level, l.msg]),
          url,
        ).toEqual([
          [20, 'incoming request'],
          [20, 'request completed'],
        ]);
        expect(probe.lines[0]?.req?.url).toBe(url);
      }
    } finally {
      await t.close();
    }
  });

  it('still logs a failing readiness probe above debug', async () => {
    const t = await appLoggingAt('info');
    try {
      t.storage.ping = () => Promise.reject(new StorageUnavailableError());
      const probe = await t.linesOf('/health/ready');
      expect(probe.status).toBe(503);
      expect(probe.lines.length).toBeGreaterThan(0);
      expect(Math.min(...probe.lines.map((l) => l.level))).toBeGreaterThanOrEqual(30);
    } finally {
      await t.close();
    }
  });
});
