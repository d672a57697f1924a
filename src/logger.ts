/**
 * The logging of the server and of the app, and the one rule that keeps credentials out of it.
 *
 * The server's logger writes JSON lines for machines (a log collector, a container runtime), or
 * human-readable lines (pino-pretty) for a person at a terminal. LOG_FORMAT decides; `auto` asks
 * whether stdout is a terminal.
 *
 * Credentials never reach the logs: a request is logged without its headers (so no Authorization
 * and no Cookie) and with the value of every credential query parameter masked; a record that
 * carries a body's password or a request's credential headers anyway has them censored. The app
 * installs the request serializer on every request's logger, so the rule holds whatever logger it
 * was given (the server's, its own default, a test's pino instance or Fastify logger options).
 */
import { type FastifyBaseLogger, type FastifyServerOptions } from 'fastify';
import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';
import { type Config, type LogFormat } from './config.js';

/** What replaces a credential in the logs. */
export const REDACTED = '[redacted]';

/**
 * Paths pino censors in every record of our loggers. Request lines never carry headers (see
 * `requestForLog`); the header paths still censor them should a record hold a request's headers.
 */
export const REDACTED_PATHS: readonly string[] = ['req.headers.authorization', 'req.headers.cookie', 'body.password'];

/** Query parameters that carry credentials; their values never reach the logs. */
const SECRET_PARAMS = new Set(['password', 'token', 'access_token']);

/**
 * A URL for the logs: the value of every credential parameter is masked, however its name is
 * spelled in the query (`password=`, `PASSWORD=`, `pass%77ord=`, `password[]=`), since the query
 * parser decodes all of them to the same parameter.
 */
export function redactUrl(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return url;
  const pairs = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawKey = eq === -1 ? pair : pair.slice(0, eq);
      let key = rawKey;
      try {
        key = decodeURIComponent(rawKey.replaceAll('+', ' '));
      } catch {
        // A malformed escape is kept as is by the parser too.
      }
      const name = key.replace(/\[.*$/, '').trim().toLowerCase();
      return SECRET_PARAMS.has(name) ? `${rawKey}=${REDACTED}` : pair;
    });
  return `${url.slice(0, start + 1)}${pairs.join('&')}`;
}

/**
 * A request as logged: no headers, credential query values masked. The URL is the one the client
 * sent (a Fastify request's `originalUrl`): the router is given the URLs of the language roots
 * without their root (src/routes/roots.ts), which is `url` then.
 */
export function requestForLog(req: { method: string; url: string; originalUrl?: string; host?: string; ip?: string }): Record<string, unknown> {
  return { method: req.method, url: redactUrl(req.originalUrl ?? req.url), host: req.host, remoteAddress: req.ip };
}

/** pino options of our loggers (the server's, and the app's when it is given none). */
export function loggerOptions(level: string): LoggerOptions {
  return { level, redact: { paths: [...REDACTED_PATHS], censor: REDACTED }, serializers: { req: requestForLog } };
}

/** Every request's logger serialises its request with `requestForLog`, whoever made the parent logger. */
const redactingChildLoggerFactory: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  logger.child(bindings, { ...options, serializers: { ...options.serializers, req: requestForLog } });

/**
 * The logging options of the app's Fastify instance: the logger it was given (a pino instance, or
 * Fastify logger options; false silences it), else `loggerOptions` at `level`; and the request
 * loggers' serializer in every case.
 */
export function appLogging(
  logger: FastifyBaseLogger | FastifyServerOptions['logger'] | undefined,
  level: string,
): Pick<FastifyServerOptions, 'logger' | 'childLoggerFactory'> & { loggerInstance?: FastifyBaseLogger } {
  const given = logger === undefined ? loggerOptions(level) : logger;
  const logging =
    given !== null && typeof given === 'object' && 'child' in given ? { loggerInstance: given } : { logger: given as FastifyServerOptions['logger'] };
  return { ...logging, childLoggerFactory: redactingChildLoggerFactory };
}

export function resolveLogFormat(setting: LogFormat, stdoutIsTty: boolean): 'pretty' | 'json' {
  if (setting !== 'auto') return setting;
  return stdoutIsTty ? 'pretty' : 'json';
}

/** A pretty line's fields beside the message, as pino and Fastify write them. */
interface LogRecord {
  reqId?: unknown;
  req?: { method?: unknown; url?: unknown };
  res?: { statusCode?: unknown };
  responseTime?: unknown;
}

/**
 * The message of a pretty line. A request's lines carry their request id, method and URL, status
 * and time on the line itself, so one request is one readable line in and one out; those fields
 * are then left out of the object pino-pretty prints below a line.
 */
export function prettyMessage(log: Record<string, unknown>, messageKey: string): string {
  const { reqId, req, res, responseTime } = log as LogRecord;
  const parts: string[] = [];
  if (typeof reqId === 'string' || typeof reqId === 'number') parts.push(`[${reqId}]`);
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a log field may hold anything: its default text will do
  parts.push(String(log[messageKey] ?? ''));
  if (req && typeof req === 'object') parts.push(`${String(req.method)} ${String(req.url)}`);
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- as the message above
  if (res && typeof res === 'object' && res.statusCode !== undefined) parts.push(String(res.statusCode));
  if (typeof responseTime === 'number') parts.push(`in ${responseTime.toFixed(1)} ms`);
  return parts.join(' ');
}

/** Fields shown in a pretty line's message (prettyMessage) or of no use to a person reading it. */
const PRETTY_IGNORE = 'pid,hostname,reqId,req,res,responseTime';

/** The server's logger; JSON lines go to `destination` (tests read them), stdout by default. */
export async function createLogger(
  config: Pick<Config, 'logLevel' | 'logFormat'>,
  stdoutIsTty = process.stdout.isTTY === true,
  destination?: DestinationStream,
): Promise<Logger> {
  const options = loggerOptions(config.logLevel);
  if (resolveLogFormat(config.logFormat, stdoutIsTty) === 'json') return pino(options, destination);
  // Loaded only when used: a JSON-logging process (a container, CI) never loads it.
  const { default: pretty } = await import('pino-pretty');
  // Synchronous, in this thread: the server exits (process.exit) right after its last line, and a
  // worker-thread transport could lose that line; a person's terminal is not a throughput concern.
  return pino(options, pretty({ sync: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: PRETTY_IGNORE, messageFormat: prettyMessage }));
}
