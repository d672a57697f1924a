/**
 * Load shedding: while the event loop lags more than MAX_EVENT_LOOP_DELAY_MS, requests are answered
 * 503 `server-overloaded` with Retry-After (liveness stays exempt), so a burst is refused quickly
 * instead of making every request slow. Shedding is expected behaviour, not a failure: it is logged
 * as one warn line a second with the count — never an error with a stack per request, which under
 * a burst would add thousands of lines of work to a server already behind.
 */
import underPressure from '@fastify/under-pressure';
import { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import { languageOfUrl } from '../i18n/index.js';
import { toErrorResponse } from './error-handler.js';

/** How often shed requests are summed up in the log. */
const SUMMARY_INTERVAL_MS = 1000;

export interface ShedSummary {
  /** One more request shed. */
  note(): void;
  /** Logs what is counted now (at close). */
  flush(): void;
}

/** Counts shed requests and logs their number once per interval that had any. */
export function createShedSummary(log: FastifyBaseLogger, schedule: (run: () => void, ms: number) => { unref?(): unknown } = setTimeout): ShedSummary {
  let count = 0;
  let pending = false;
  const flush = () => {
    pending = false;
    if (count === 0) return;
    log.warn({ shed: count }, `load shedding: ${count} request${count === 1 ? '' : 's'} answered 503 server-overloaded (event loop lagging)`);
    count = 0;
  };
  return {
    note() {
      count++;
      if (pending) return;
      pending = true;
      schedule(flush, SUMMARY_INTERVAL_MS).unref?.();
    },
    flush,
  };
}

/**
 * Installs load shedding; returns whether a request now may be shed, for the response cache's
 * first hook, which leaves such a request to this plugin's hook (src/plugins/http-cache.ts).
 */
export function installLoadShedding(app: FastifyInstance, maxEventLoopDelayMs: number): () => boolean {
  const sampleInterval = Math.max(10, Math.min(1000, Math.floor(maxEventLoopDelayMs / 2)));
  // Start-up stalls the loop once after the sampler has begun (the routes and their schemas are
  // compiled then: over a second on a busy machine), and the first sample after it reports that
  // stall. It is not load: shedding then only failed a new server's first readiness probe. The
  // sample after that one sees the running server, so shedding starts two intervals after ready.
  let shedFrom = Number.POSITIVE_INFINITY;
  const summary = createShedSummary(app.log);
  app.addHook('onReady', async () => {
    shedFrom = performance.now() + 2 * sampleInterval;
  });
  app.addHook('onClose', async () => summary.flush());
  app.register(underPressure, {
    maxEventLoopDelay: maxEventLoopDelayMs,
    sampleInterval,
    pressureHandler: async (request, reply) => {
      if (request.routeOptions.url === '/health/live' || performance.now() < shedFrom) return;
      summary.note();
      const overloaded = new ApiError(503, 'server-overloaded', 'errorMessage.server-overloaded', {}, { 'retry-after': '5' });
      const { body, headers } = toErrorResponse(overloaded, languageOfUrl(request.originalUrl));
      return reply.code(503).headers(headers).type('application/json; charset=utf-8').send(body);
    },
  });
  return () => performance.now() >= shedFrom && app.isUnderPressure();
}
