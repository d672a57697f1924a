/**
 * Start-up warm-up: a few requests through `app.inject` before the server listens, so its first
 * callers do not pay for what runs only once. The first execution of a code path is slow (V8
 * compiles functions lazily and runs them unoptimised), and some pieces are built on first use:
 * fast-json-stringify compiles an Ajv validator for the first event it serialises (the single
 * event of GET /events/{id} and of a create's 201 share it), and the list's query plan, date
 * formatting and body validation run for the first time. The requests:
 *
 * - GET /health/ready first: when storage does not answer, nothing else is sent (each request
 *   would wait for the storage deadline) and the server starts unwarmed;
 * - GET /events, GET /events/{id} (the first listed), GET /events in a date window, GET /venues,
 *   GET /categories: reads;
 * - POST /events with an editor token from API_TOKENS (when there is one) and a body that
 *   validation refuses (400, a member no schema has), so the request never reaches the
 *   service: the warm-up never writes.
 *
 * They are anonymous or a configured token's, sent from WARM_UP_ADDRESS, which no connection has:
 * the rate limiter does not count them (src/plugins/rate-limit.ts). Their request lines are not
 * logged: the logger is at `warn` while they run (warnings and errors still show; nothing else
 * runs then, as the server does not listen yet), and one `debug` line says what it did.
 *
 * It is bounded: no request starts after WARM_UP_BUDGET_MS, and start-up does not wait for one
 * still running then (which logs its lines when it ends, if it ever does). It never fails
 * start-up: whatever goes wrong, the server starts unwarmed.
 */
import { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest, type InjectOptions } from 'fastify';
import { type Config } from './config.js';
import { NAMESPACE } from './routes/roots.js';

/**
 * The socket address of the warm-up's requests. Not an IP address, so no TCP connection has it:
 * a request from it was made in this process. (`request.ip` may come from X-Forwarded-For; the
 * socket's address never does.)
 */
export const WARM_UP_ADDRESS = 'warm-up';

/** Longest the warm-up may delay start-up. */
export const WARM_UP_BUDGET_MS = 3000;

/** Whether the request is one of the warm-up's (made through `app.inject` from WARM_UP_ADDRESS). */
export function isWarmUpRequest(request: FastifyRequest): boolean {
  return request.raw.socket?.remoteAddress === WARM_UP_ADDRESS;
}

/**
 * A create body that validation refuses whatever the event fields accept: the body schema allows
 * no unknown members (additionalProperties: false), and no field's name has a space.
 */
const REFUSED_EVENT = {
  title: 'Warm-up',
  start_date: '2030-06-10 19:00:00',
  end_date: '2030-06-10 21:30:00',
  description: '<p>Warm-up</p>',
  venue: { venue: 'Warm-up hall', city: 'Lyon', country: 'France' },
  categories: ['warm-up'],
  'not a field': true,
} as const;

export interface WarmUpReport {
  /** Requests made, with their paths and statuses, in order. */
  requests: Array<{ method: string; path: string; status: number }>;
  /** Why the warm-up stopped early; null when it made every request. */
  stopped: 'storage-not-ready' | 'time-budget' | 'failed' | null;
  ms: number;
}

const API = `/${NAMESPACE}`;

/** pino's levels, least severe first; `silent` writes nothing. */
const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
/** The level the logger is held at during the warm-up: above `info`, where request lines are written. */
const QUIET_LEVEL = 'warn';

export interface WarmUpOptions {
  /**
   * The logger given to buildApp (the app's and its requests' loggers are its children and follow
   * its level while they set none of their own); the app's own logger when absent.
   */
  logger?: FastifyBaseLogger;
  budgetMs?: number;
}

export async function warmUp(app: FastifyInstance, config: Pick<Config, 'apiTokens'>, options: WarmUpOptions = {}): Promise<WarmUpReport> {
  const { logger: log = app.log, budgetMs = WARM_UP_BUDGET_MS } = options;
  await app.ready();
  const started = performance.now();
  const deadline = started + budgetMs;
  const report: WarmUpReport = { requests: [], stopped: null, ms: 0 };
  const level = log.level;
  const quiet = LEVELS.includes(level) && LEVELS.indexOf(level) < LEVELS.indexOf(QUIET_LEVEL);
  if (quiet) log.level = QUIET_LEVEL;

  let timer: NodeJS.Timeout | undefined;
  const outOfTime = new Promise<'time-budget'>((resolve) => {
    timer = setTimeout(() => resolve('time-budget'), budgetMs);
    timer.unref();
  });
  /** The response, or null when the budget ran out first (the request is then left to finish alone). */
  const send = async (options: InjectOptions & { method: string; url: string }) => {
    if (performance.now() >= deadline) return null;
    const response = await Promise.race([app.inject({ ...options, remoteAddress: WARM_UP_ADDRESS }), outOfTime]);
    if (response === 'time-budget') return null;
    report.requests.push({ method: options.method, path: options.url, status: response.statusCode });
    return response;
  };

  try {
    const ready = await send({ method: 'GET', url: '/health/ready' });
    if (ready === null) report.stopped = 'time-budget';
    else if (ready.statusCode !== 200) report.stopped = 'storage-not-ready';
    else report.stopped = await warmRoutes(send, config);
  } catch (err) {
    report.stopped = 'failed';
    log.warn({ err }, 'warm-up failed; the server starts without it');
  } finally {
    clearTimeout(timer);
    if (quiet) log.level = level;
  }
  report.ms = Math.round(performance.now() - started);
  const made = report.requests.map((r) => `${r.method} ${r.path} ${r.status}`).join(', ');
  log.debug(`warm-up: ${report.requests.length} requests in ${report.ms} ms${report.stopped ? ` (stopped: ${report.stopped})` : ''}: ${made}`);
  return report;
}

type Send = (options: InjectOptions & { method: string; url: string }) => Promise<{ statusCode: number; body: string } | null>;

async function warmRoutes(send: Send, config: Pick<Config, 'apiTokens'>): Promise<WarmUpReport['stopped']> {
  const list = await send({ method: 'GET', url: `${API}/events` });
  if (list === null) return 'time-budget';
  const first = list.statusCode === 200 ? (JSON.parse(list.body) as { events?: Array<{ id?: unknown }> }).events?.[0]?.id : undefined;
  if (typeof first === 'number' && (await send({ method: 'GET', url: `${API}/events/${first}` })) === null) return 'time-budget';
  // A date window: list dates are read as creates' are (strtotime), slow on its first run.
  const window = new URLSearchParams({ start_date: REFUSED_EVENT.start_date, end_date: '2030-07-10 19:00:00' });
  if ((await send({ method: 'GET', url: `${API}/events?${window.toString()}` })) === null) return 'time-budget';
  if ((await send({ method: 'GET', url: `${API}/venues` })) === null) return 'time-budget';
  if ((await send({ method: 'GET', url: `${API}/categories` })) === null) return 'time-budget';
  // Writes need an editor token; without one there is no write to warm.
  const editor = config.apiTokens.find((t) => t.role === 'editor');
  if (editor !== undefined) {
    const refused = await send({ method: 'POST', url: `${API}/events`, headers: { authorization: `Bearer ${editor.token}` }, payload: REFUSED_EVENT });
    if (refused === null) return 'time-budget';
  }
  return null;
}
