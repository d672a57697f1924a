/**
 * The server's logger: JSON lines for machines (a log collector, a container runtime), or
 * human-readable lines (pino-pretty) for a person at a terminal. LOG_FORMAT decides; `auto` asks
 * whether stdout is a terminal.
 */
import { type Logger, type LoggerOptions, pino } from 'pino';
import { type Config, type LogFormat } from './config.js';
import { redactUrl } from './app.js';

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
  parts.push(String(log[messageKey] ?? ''));
  if (req && typeof req === 'object') parts.push(`${String(req.method)} ${String(req.url)}`);
  if (res && typeof res === 'object' && res.statusCode !== undefined) parts.push(String(res.statusCode));
  if (typeof responseTime === 'number') parts.push(`in ${responseTime.toFixed(1)} ms`);
  return parts.join(' ');
}

/** Fields shown in a pretty line's message (prettyMessage) or of no use to a person reading it. */
const PRETTY_IGNORE = 'pid,hostname,reqId,req,res,responseTime';

export async function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, stdoutIsTty = process.stdout.isTTY === true): Promise<Logger> {
  const options: LoggerOptions = {
    level: config.logLevel,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
    serializers: {
      req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, url: redactUrl(req.url), remoteAddress: req.ip }),
    },
  };
  if (resolveLogFormat(config.logFormat, stdoutIsTty) === 'json') return pino(options);
  // Loaded only when used: a JSON-logging process (a container, CI) never loads it.
  const { default: pretty } = await import('pino-pretty');
  // Synchronous, in this thread: the server exits (process.exit) right after its last line, and a
  // worker-thread transport could lose that line; a person's terminal is not a throughput concern.
  return pino(options, pretty({ sync: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: PRETTY_IGNORE, messageFormat: prettyMessage }));
}
