/**
 * The only reader of `process.env` (design §7). Produces a validated, frozen Config;
 * an invalid value stops start-up with a message naming the variable.
 */
import { IANAZone } from 'luxon';

export const ROLES = ['editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export interface ApiToken {
  role: Role;
  token: string;
  /** Author id attached to writes made with this token (design §9.14); 0 when none. */
  authorId: number;
}

export type StorageChoice = 'auto' | 'mongodb' | 'memory-server' | 'embedded';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
/** LOG_FORMAT: `auto` is human-readable on a terminal and JSON lines otherwise (src/logger.ts). */
export type LogFormat = 'auto' | 'pretty' | 'json';

export interface Config {
  port: number;
  host: string;
  /** Base for permalinks and global ids; when unset, the request's own origin is used. */
  publicUrl: string | null;
  storage: StorageChoice;
  mongodbUri: string | null;
  mongodbDb: string;
  /** A local mongod for mongodb-memory-server (its own variable, read here so nothing else reads env). */
  mongodSystemBinary: string | null;
  apiTokens: readonly ApiToken[];
  siteTimezone: string;
  perPageMax: number;
  geolocEnabled: boolean;
  /** null: decide at start (true on the embedded engine when the store is empty). */
  seedOnStart: boolean | null;
  logLevel: LogLevel;
  logFormat: LogFormat;
  trustProxy: boolean;
  corsOrigins: readonly string[];
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** Time allowed for a whole request, in milliseconds. */
  requestTimeoutMs: number;
  // Reliability (issue 10) — begin
  /** STORAGE_TIMEOUT_MS: a storage call that takes longer answers 503 storage-unavailable; 0 = no deadline. */
  storageTimeoutMs: number;
  /** MAX_EVENT_LOOP_DELAY_MS: above this event-loop lag, requests are shed with 503 + Retry-After; 0 = off. */
  maxEventLoopDelayMs: number;
  // Reliability (issue 10) — end
  /** Requests per minute and address of callers without a valid token; 0 turns the limit off. */
  rateLimitReads: number;
  rateLimitWrites: number;
  /** Requests per minute and API token (RATE_LIMIT_TOKEN_READS / _WRITES); 0 turns the limit off. */
  rateLimitTokenReads: number;
  rateLimitTokenWrites: number;
  /**
   * DATA_DIR: where the embedded engine keeps its LMDB environment (relative to the working
   * directory); null keeps it in memory only. `npm start` sets ./data.
   */
  dataDir: string | null;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid configuration: ${variable} ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const MIN_TOKEN_LENGTH = 24;

function str(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number (got "${raw}")`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max} (got ${n})`);
  return n;
}

function bool(env: Env, name: string): boolean | undefined {
  const raw = str(env, name)?.toLowerCase();
  if (raw === undefined) return undefined;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(name, `must be true or false (got "${raw}")`);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${raw}")`);
  }
  return raw as T;
}

function parseTokens(raw: string | undefined): ApiToken[] {
  if (raw === undefined) return [];
  const tokens: ApiToken[] = [];
  for (const [i, entry] of raw.split(',').entries()) {
    const parts = entry.trim().split(':');
    const [role, token, author] = parts;
    const where = `entry ${i + 1}`;
    if (parts.length < 2 || parts.length > 3 || !role || !token) {
      throw new ConfigError('API_TOKENS', `${where} must be role:token or role:token:author`);
    }
    if (!(ROLES as readonly string[]).includes(role)) {
      throw new ConfigError('API_TOKENS', `${where} has unknown role "${role}" (use ${ROLES.join(' or ')})`);
    }
    if (token.length < MIN_TOKEN_LENGTH) {
      throw new ConfigError('API_TOKENS', `${where} has a token shorter than ${MIN_TOKEN_LENGTH} characters`);
    }
    if (author !== undefined && !/^[1-9]\d{0,9}$/.test(author)) {
      throw new ConfigError('API_TOKENS', `${where} has an author that is not a positive integer`);
    }
    if (tokens.some((t) => t.token === token)) {
      throw new ConfigError('API_TOKENS', `${where} repeats a token`);
    }
    tokens.push({ role: role as Role, token, authorId: author ? Number(author) : 0 });
  }
  return tokens;
}

function parseUrl(name: string, raw: string | undefined): string | null {
  if (raw === undefined) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL (got "${raw}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(name, `must be an http(s) URL (got "${raw}")`);
  }
  return url.toString().replace(/\/+$/, '');
}

function dataDir(env: Env): string | null {
  const raw = str(env, 'DATA_DIR');
  if (raw === undefined) return null;
  if (raw.includes('\0')) throw new ConfigError('DATA_DIR', 'must be a directory path');
  return raw;
}

export function loadConfig(env: Env = process.env): Config {
  const siteTimezone = str(env, 'SITE_TIMEZONE') ?? 'UTC';
  if (!IANAZone.isValidZone(siteTimezone)) {
    throw new ConfigError('SITE_TIMEZONE', `must be an IANA time zone such as Europe/Berlin (got "${siteTimezone}")`);
  }
  const mongodbUri = str(env, 'MONGODB_URI') ?? null;
  if (mongodbUri !== null && !/^mongodb(\+srv)?:\/\//.test(mongodbUri)) {
    throw new ConfigError('MONGODB_URI', 'must start with mongodb:// or mongodb+srv://');
  }
  const storage = oneOf(env, 'STORAGE', ['auto', 'mongodb', 'memory-server', 'embedded'] as const, 'auto');
  if (storage === 'mongodb' && mongodbUri === null) {
    throw new ConfigError('STORAGE', 'is mongodb but MONGODB_URI is not set');
  }
  const corsRaw = str(env, 'CORS_ORIGINS');
  const corsOrigins = corsRaw === undefined ? [] : corsRaw.split(',').map((o) => o.trim()).filter(Boolean);
  for (const origin of corsOrigins) {
    if (origin !== '*') parseUrl('CORS_ORIGINS', origin);
  }
  const mongodbDb = str(env, 'MONGODB_DB') ?? 'calendar';
  if (!/^[A-Za-z0-9_-]{1,63}$/.test(mongodbDb)) {
    throw new ConfigError('MONGODB_DB', `must be a database name of letters, digits, _ or - (got "${mongodbDb}")`);
  }

  return Object.freeze({
    port: int(env, 'PORT', 3000, 0, 65535),
    host: str(env, 'HOST') ?? '127.0.0.1',
    publicUrl: parseUrl('PUBLIC_URL', str(env, 'PUBLIC_URL')),
    storage,
    mongodbUri,
    mongodbDb,
    mongodSystemBinary: str(env, 'MONGOMS_SYSTEM_BINARY') ?? null,
    apiTokens: Object.freeze(parseTokens(str(env, 'API_TOKENS'))),
    siteTimezone,
    perPageMax: int(env, 'PER_PAGE_MAX', 50, 1, 1000),
    geolocEnabled: bool(env, 'GEOLOC_ENABLED') ?? true,
    seedOnStart: bool(env, 'SEED_ON_START') ?? null,
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    logFormat: oneOf(env, 'LOG_FORMAT', ['auto', 'pretty', 'json'] as const, 'auto'),
    trustProxy: bool(env, 'TRUST_PROXY') ?? false,
    corsOrigins: Object.freeze(corsOrigins),
    bodyLimit: int(env, 'BODY_LIMIT', 1_048_576, 1024, 100 * 1_048_576),
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000),
    // Reliability (issue 10) — begin
    storageTimeoutMs: int(env, 'STORAGE_TIMEOUT_MS', 10_000, 0, 600_000),
    maxEventLoopDelayMs: int(env, 'MAX_EVENT_LOOP_DELAY_MS', 1000, 0, 600_000),
    // Reliability (issue 10) — end
    rateLimitReads: int(env, 'RATE_LIMIT_READS', 1200, 0, 10_000_000),
    rateLimitWrites: int(env, 'RATE_LIMIT_WRITES', 120, 0, 10_000_000),
    rateLimitTokenReads: int(env, 'RATE_LIMIT_TOKEN_READS', 60_000, 0, 10_000_000),
    rateLimitTokenWrites: int(env, 'RATE_LIMIT_TOKEN_WRITES', 6_000, 0, 10_000_000),
    dataDir: dataDir(env),
  });
}

/** Which engines the test suites must cover (`CALENDAR_TEST_ENGINES=mongodb` for `npm run test:mongodb`). */
export function loadTestEngineChoice(env: Env = process.env): 'all' | 'mongodb' | 'embedded' {
  return oneOf(env, 'CALENDAR_TEST_ENGINES', ['all', 'mongodb', 'embedded'] as const, 'all');
}
