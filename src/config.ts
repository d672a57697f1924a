/**
 * The only reader of `process.env`. Every setting is declared once, in ConfigSchema: its type,
 * default, bounds and description (the README's configuration table is generated from it,
 * `npm run docs:config`). env-schema applies the defaults and bounds; a short post-step does what a
 * schema cannot say — API tokens, origin lists, URL and time-zone checks, and the rules between
 * settings. The result is a validated, frozen Config; an invalid value stops start-up with a
 * ConfigError naming the variable.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { Ajv } from 'ajv';
import envSchema from 'env-schema';
import { IANAZone } from 'luxon';
import { type AllowedHosts, parseHost } from './lib/hosts.js';

export const ROLES = ['editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export interface ApiToken {
  role: Role;
  token: string;
  /** Author id attached to writes made with this token; 0 when none. */
  authorId: number;
}

export const STORAGE_CHOICES = ['auto', 'mongodb', 'memory-server', 'embedded'] as const;
export type StorageChoice = (typeof STORAGE_CHOICES)[number];
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** LOG_FORMAT: `auto` is human-readable on a terminal and JSON lines otherwise (src/logger.ts). */
export const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The words a boolean setting accepts, in any case. */
export const TRUE_WORDS = ['true', '1', 'yes', 'on'] as const;
export const FALSE_WORDS = ['false', '0', 'no', 'off'] as const;

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
  /** ICS_MAX_EVENTS: the most events an iCalendar feed holds, the first of the list's order. */
  icsMaxEvents: number;
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
  /** STORAGE_TIMEOUT_MS: a storage call that takes longer answers 503 storage-unavailable; 0 = no deadline. */
  storageTimeoutMs: number;
  /** MAX_EVENT_LOOP_DELAY_MS: above this event-loop lag, requests are shed with 503 + Retry-After; 0 = off. */
  maxEventLoopDelayMs: number;
  /** Requests per minute and address of callers without a valid token; 0 turns the limit off. */
  rateLimitReads: number;
  rateLimitWrites: number;
  /** Requests per minute and API token (RATE_LIMIT_TOKEN_READS / _WRITES); 0 turns the limit off. */
  rateLimitTokenReads: number;
  rateLimitTokenWrites: number;
  /** RATE_LIMIT_FAILED_AUTH: failed authentications an address may make a minute; 0 = no limit. */
  rateLimitFailedAuth: number;
  /**
   * DATA_DIR: where the embedded engine keeps its LMDB environment (relative to the working
   * directory); null keeps it in memory only. `npm start` sets ./data.
   */
  dataDir: string | null;
  /** HEALTH_DETAILS: `/health/ready` says why the engine was chosen to anonymous callers too. */
  healthDetails: boolean;
  /** ALLOWED_HOSTS: the hosts a response's links may name (src/lib/hosts.ts); `'*'` trusts every host. */
  allowedHosts: AllowedHosts;
  /** SERIALIZATION_ARENA_MB: the arena of encoded events, per app (src/serialize/caches.ts); 0 = off. */
  serializationArenaMb: number;
  /** SERIALIZATION_MEMO_ENTRIES: documents each serialization memo keeps, per app; 0 = off. */
  serializationMemoEntries: number;
  /** RESPONSE_CACHE_BYTES: memory of the response cache for anonymous reads, per app (src/plugins/response-cache.ts); 0 = off. */
  responseCacheBytes: number;
  /** CACHE_MAX_AGE: seconds a client or shared cache may reuse a public response without asking again. */
  cacheMaxAge: number;
  /** TEC_COMPAT_PATH: the API also answers under `/wp-json/tribe/events/v1` (src/routes/roots.ts). */
  tecCompatPath: boolean;
  /** TOMBSTONE_DAYS: how long `GET /deleted` remembers a record that left the lists (src/services/tombstones.ts). */
  tombstoneDays: number;
  /** RECURRENCE_HORIZON_DAYS: a series' occurrences are written up to this many days ahead (src/services/recurrence/). */
  recurrenceHorizonDays: number;
  /** RECURRENCE_MAX_OCCURRENCES: the most occurrences one series may have. */
  recurrenceMaxOccurrences: number;
}

/**
 * Annotations of ConfigSchema beside the standard ones, read by the README's table and by the error
 * messages: `docDefault`, the default as the README states it when it is not a plain value (decided
 * at start, or by other settings); `docValues`, the accepted values of a text setting; `invalid`,
 * the message for a value its `pattern` refuses (`{value}` stands for the value; left out where the
 * value may hold a credential).
 */
export const CONFIG_ANNOTATIONS = ['docDefault', 'docValues', 'invalid'] as const;

const MIN_TOKEN_LENGTH = 24;

const whole = (value: number, minimum: number, maximum: number, description: string) => Type.Integer({ default: value, minimum, maximum, description });
const oneOf = <T extends string>(values: readonly T[], value: T, description: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], default: value, description });

export const ConfigSchema = Type.Object(
  {
    PORT: whole(3000, 0, 65535, 'TCP port'),
    HOST: Type.String({ default: '127.0.0.1', docValues: 'host name or address', description: 'Interface to listen on (`0.0.0.0` for all)' }),
    PUBLIC_URL: Type.Optional(
      Type.String({ docDefault: "the request's origin", docValues: 'http(s) URL', description: 'Base of permalinks (`url`) and `global_id`' }),
    ),
    STORAGE: oneOf(
      STORAGE_CHOICES,
      'auto',
      'Storage engine; `auto`: MongoDB when `MONGODB_URI` is set, else the embedded engine when `DATA_DIR` is set, else a local `mongod` through mongodb-memory-server when one is found, else the embedded engine',
    ),
    MONGODB_URI: Type.Optional(
      Type.String({
        pattern: '^mongodb(\\+srv)?://',
        invalid: 'must start with mongodb:// or mongodb+srv://',
        docValues: '`mongodb://…` or `mongodb+srv://…`',
        description: 'MongoDB connection string; selects the `mongodb` engine',
      }),
    ),
    MONGODB_DB: Type.String({
      default: 'calendar',
      pattern: '^[A-Za-z0-9_-]{1,63}$',
      invalid: 'must be a database name of letters, digits, _ or - (got "{value}")',
      docValues: 'letters, digits, `_` and `-`, at most 63',
      description: 'Database name',
    }),
    MONGOMS_SYSTEM_BINARY: Type.Optional(Type.String({ docValues: 'file path', description: 'A local `mongod` for the `memory-server` engine' })),
    API_TOKENS: Type.Optional(
      Type.String({
        docDefault: '— (no writes possible)',
        docValues: '`role:token[:author]`, comma-separated',
        description: `Roles \`editor\` (read and write everything), \`viewer\` (read every status); tokens of at least ${MIN_TOKEN_LENGTH} characters; \`author\` is the user id writes are attributed to`,
      }),
    ),
    SITE_TIMEZONE: Type.String({ default: 'UTC', docValues: 'IANA zone', description: 'Zone in which dates without a zone are read' }),
    PER_PAGE_MAX: whole(50, 1, 1000, 'Largest page size'),
    ICS_MAX_EVENTS: whole(
      1000,
      1,
      10_000,
      "Most events an iCalendar feed (`/events.ics`) holds: the first of the list's order; the number matching is in `X-TEC-Total`",
    ),
    GEOLOC_ENABLED: Type.Boolean({ default: true, description: 'Geolocation filters on the event list' }),
    SEED_ON_START: Type.Optional(
      Type.Boolean({ docDefault: '`true` on an empty embedded store', description: 'Load `seeds/` at start when the store is empty' }),
    ),
    LOG_LEVEL: oneOf(LOG_LEVELS, 'info', 'Least severe level logged; `silent` logs nothing'),
    LOG_FORMAT: oneOf(
      LOG_FORMATS,
      'auto',
      '`pretty` (human-readable lines), `json` (one JSON object a line), or `auto`: pretty when stdout is a terminal, JSON otherwise',
    ),
    HEALTH_DETAILS: Type.Boolean({
      default: false,
      description:
        '`/health/ready` tells anonymous callers why the engine was chosen (it names the data directory or the `mongod` binary); otherwise only callers with a token see it',
    }),
    TRUST_PROXY: Type.Boolean({ default: false, description: 'Honour `X-Forwarded-*` for links' }),
    TEC_COMPAT_PATH: Type.Boolean({
      default: true,
      description:
        "The API also answers under The Events Calendar's path, `/wp-json/tribe/events/v1/…`, with every link under that path, so its clients work by changing only the host",
    }),
    ALLOWED_HOSTS: Type.Optional(
      Type.String({
        docDefault: '`localhost`, `127.0.0.1`, `[::1]` and the hosts of `HOST` and `PUBLIC_URL`',
        docValues: 'host names, comma-separated, or `*`',
        description:
          "Hosts (any port) whose name a response's links may carry when a request names them in `Host` (or `X-Forwarded-Host` with `TRUST_PROXY`); a request naming another host gets the links of `PUBLIC_URL`, else of the first allowed host. `*` trusts every host: only behind a proxy that sets the host itself",
      }),
    ),
    CORS_ORIGINS: Type.Optional(
      Type.String({
        docDefault: '— (no CORS)',
        docValues: 'http(s) origins, comma-separated, or `*`',
        description: 'Origins allowed to call the API from a browser',
      }),
    ),
    BODY_LIMIT: whole(1_048_576, 1024, 100 * 1_048_576, 'Largest request body in bytes (larger → 413)'),
    REQUEST_TIMEOUT_MS: whole(30_000, 1000, 600_000, 'Time allowed for a whole request'),
    STORAGE_TIMEOUT_MS: whole(10_000, 0, 600_000, 'Longest storage call before the request answers 503 `storage-unavailable` (0 = no deadline)'),
    MAX_EVENT_LOOP_DELAY_MS: whole(1000, 0, 600_000, 'Event-loop lag above which requests are shed with 503 + `Retry-After` (0 = off)'),
    RATE_LIMIT_READS: whole(
      1200,
      0,
      10_000_000,
      'Read requests (every method but `POST`, `PUT`, `PATCH` and `DELETE`) per minute and address of anonymous callers (no token, or one not in `API_TOKENS`; requests refused for their credentials count too); 0 = off',
    ),
    RATE_LIMIT_WRITES: whole(
      120,
      0,
      10_000_000,
      'Write requests (`POST`, `PUT`, `PATCH`, `DELETE`) per minute and address of anonymous callers, counted like `RATE_LIMIT_READS`; 0 = off',
    ),
    RATE_LIMIT_TOKEN_READS: whole(
      60_000,
      0,
      10_000_000,
      'Read requests per minute and API token, from any address (a sync script re-posting a calendar never meets them); 0 = off',
    ),
    RATE_LIMIT_TOKEN_WRITES: whole(6_000, 0, 10_000_000, 'Write requests per minute and API token, from any address; 0 = off'),
    RATE_LIMIT_FAILED_AUTH: whole(
      10,
      0,
      10_000_000,
      'Failed authentications (a malformed `Authorization` header or an unknown token) per minute and address; past it, that minute, they are answered 429 instead of 401. Valid tokens are never slowed; 0 = off',
    ),
    DATA_DIR: Type.Optional(
      Type.String({
        pattern: '^[^\\u0000]*$',
        invalid: 'must be a directory path',
        docDefault: '`./data` with `npm start`, else unset',
        docValues: 'directory path',
        description:
          'Directory where the embedded engine keeps its data (an LMDB environment, relative to the working directory); unset, the embedded engine is in memory only. `DATA_DIR= npm start` opts out',
      }),
    ),
    SERIALIZATION_ARENA_MB: whole(
      64,
      0,
      1024,
      "Memory in which the event list keeps each stored event's encoded JSON, so an event read again is not encoded again; allocated once per app, oldest out first; 0 = off. Off on the `mongodb` engine, whose reads return new documents every time",
    ),
    RESPONSE_CACHE_BYTES: whole(
      64 * 1024 * 1024,
      0,
      2 ** 40,
      'Memory in which answers to anonymous reads are kept and served again until a write or the clock changes them (per app); 0 = off',
    ),
    CACHE_MAX_AGE: whole(
      0,
      0,
      31_536_000,
      'Seconds a client or shared cache may reuse a public response before asking again (`Cache-Control: public, max-age=…, must-revalidate`); responses to a token or a password are always `private, no-store`',
    ),
    TOMBSTONE_DAYS: whole(
      30,
      1,
      3650,
      'Days `GET /deleted` remembers a record that was trashed, deleted or hidden (incremental sync); a client whose last sync is older must load everything again (410 `rest_sync_expired`)',
    ),
    RECURRENCE_HORIZON_DAYS: whole(
      730,
      1,
      3650,
      "Days ahead up to which a recurring series' occurrences are written as events; later ones are written as time passes (hourly)",
    ),
    RECURRENCE_MAX_OCCURRENCES: whole(1000, 1, 100_000, 'Most occurrences one recurring series may have (its rule must end: `COUNT` or `UNTIL`)'),
    SERIALIZATION_MEMO_ENTRIES: whole(
      25_000,
      0,
      1_000_000,
      'Venues and organizers (each) whose representations are kept for the events that embed them, least recently used out first (terms: at most 2,000); 0 = off. Off on the `mongodb` engine',
    ),
  },
  { additionalProperties: false },
);

/** The settings as env-schema returns them: defaults applied, numbers and booleans converted. */
export type Settings = Static<typeof ConfigSchema>;

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
type SettingSchema = TSchema & { type?: string; minimum?: number; maximum?: number; invalid?: string };

const settingSchema = (name: string): SettingSchema | undefined => (ConfigSchema.properties as Record<string, SettingSchema | undefined>)[name];

/**
 * The pre-step: the schema's variables, trimmed, a blank value left out (it means unset, so
 * `DATA_DIR=` keeps the embedded engine in memory), and the forms Ajv's conversion does not know
 * checked here — whole numbers in digits only (Ajv would read `1e3` or `0x10`), booleans in words.
 */
function settingsIn(env: Env): Record<string, string> {
  const data: Record<string, string> = {};
  for (const [name, schema] of Object.entries(ConfigSchema.properties as Record<string, SettingSchema>)) {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') continue;
    if (schema.type === 'integer' && !/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number (got "${raw}")`);
    if (schema.type === 'boolean') {
      const word = raw.toLowerCase();
      if ((TRUE_WORDS as readonly string[]).includes(word)) data[name] = 'true';
      else if ((FALSE_WORDS as readonly string[]).includes(word)) data[name] = 'false';
      else throw new ConfigError(name, `must be true or false (got "${word}")`);
      continue;
    }
    data[name] = raw;
  }
  return data;
}

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** env-schema's first complaint, as a ConfigError naming the variable. */
function configErrorOf(error: unknown, data: Record<string, string>): Error {
  const first = (error as { errors?: AjvError[] }).errors?.[0];
  if (first === undefined) return error as Error;
  const name = first.instancePath.replace(/^\//, '');
  const schema = settingSchema(name);
  const raw = data[name] ?? '';
  switch (first.keyword) {
    case 'minimum':
    case 'maximum':
      return new ConfigError(name, `must be between ${schema?.minimum} and ${schema?.maximum} (got ${Number(raw)})`);
    case 'enum':
      return new ConfigError(name, `must be one of ${(first.params.allowedValues as string[]).join(', ')} (got "${raw}")`);
    case 'pattern':
      return new ConfigError(name, (schema?.invalid ?? 'has an invalid value').replace('{value}', raw));
    default:
      return new ConfigError(name || 'configuration', first.message ?? 'is invalid');
  }
}

/**
 * One Ajv for every load: the first load asks env-schema for an instance with its own options and
 * keywords and adds the annotations to it; later loads pass that instance back, so the schema is
 * compiled once (a new instance costs tens of milliseconds).
 */
let configAjv: Ajv | undefined;
const ajvOption = (): Ajv | { customOptions(fresh: Ajv): Ajv } =>
  configAjv ?? { customOptions: (fresh) => (configAjv = fresh.addVocabulary([...CONFIG_ANNOTATIONS])) };

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

/** Loopback names: a local client may always have links naming the host it called. */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
/** HOST values that name every interface rather than a host a client could call. */
const WILDCARD_ADDRESSES = new Set(['0.0.0.0', '::', '[::]']);

/** ALLOWED_HOSTS as given (host names, any case, no port), or its default. */
function allowedHostsOf(raw: string | undefined, host: string, publicUrl: string | null): AllowedHosts {
  if (raw?.trim() === '*') return '*';
  const names: string[] = [];
  const add = (name: string, variable: string) => {
    const parsed = parseHost(name);
    if (parsed === null || parsed.port !== '') throw new ConfigError(variable, `must be host names without a port, comma-separated, or * (got "${name}")`);
    if (!names.includes(parsed.hostname)) names.push(parsed.hostname);
  };
  if (raw !== undefined) {
    for (const name of raw
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean))
      add(name, 'ALLOWED_HOSTS');
    return Object.freeze(names);
  }
  for (const name of LOOPBACK_HOSTS) add(name, 'ALLOWED_HOSTS');
  if (!WILDCARD_ADDRESSES.has(host)) add(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host, 'HOST');
  if (publicUrl !== null) names.push(...[new URL(publicUrl).hostname].filter((n) => !names.includes(n)));
  return Object.freeze(names);
}

export function loadConfig(env: Env = process.env): Config {
  const data = settingsIn(env);
  let s: Settings;
  try {
    // env: false — the settings are `env`'s alone (tests pass their own), never merged with process.env.
    s = envSchema<Settings>({ schema: ConfigSchema, data, env: false, ajv: ajvOption() });
  } catch (error) {
    throw configErrorOf(error, data);
  }

  // The post-step: what the schema cannot say.
  if (!IANAZone.isValidZone(s.SITE_TIMEZONE)) {
    throw new ConfigError('SITE_TIMEZONE', `must be an IANA time zone such as Europe/Berlin (got "${s.SITE_TIMEZONE}")`);
  }
  const mongodbUri = s.MONGODB_URI ?? null;
  if (s.STORAGE === 'mongodb' && mongodbUri === null) {
    throw new ConfigError('STORAGE', 'is mongodb but MONGODB_URI is not set');
  }
  const corsOrigins =
    s.CORS_ORIGINS === undefined
      ? []
      : s.CORS_ORIGINS.split(',')
          .map((o) => o.trim())
          .filter(Boolean);
  for (const origin of corsOrigins) {
    if (origin !== '*') parseUrl('CORS_ORIGINS', origin);
  }

  const publicUrl = parseUrl('PUBLIC_URL', s.PUBLIC_URL);
  return Object.freeze({
    port: s.PORT,
    host: s.HOST,
    publicUrl,
    storage: s.STORAGE,
    mongodbUri,
    mongodbDb: s.MONGODB_DB,
    mongodSystemBinary: s.MONGOMS_SYSTEM_BINARY ?? null,
    apiTokens: Object.freeze(parseTokens(s.API_TOKENS)),
    siteTimezone: s.SITE_TIMEZONE,
    perPageMax: s.PER_PAGE_MAX,
    icsMaxEvents: s.ICS_MAX_EVENTS,
    geolocEnabled: s.GEOLOC_ENABLED,
    seedOnStart: s.SEED_ON_START ?? null,
    logLevel: s.LOG_LEVEL,
    logFormat: s.LOG_FORMAT,
    trustProxy: s.TRUST_PROXY,
    corsOrigins: Object.freeze(corsOrigins),
    bodyLimit: s.BODY_LIMIT,
    requestTimeoutMs: s.REQUEST_TIMEOUT_MS,
    storageTimeoutMs: s.STORAGE_TIMEOUT_MS,
    maxEventLoopDelayMs: s.MAX_EVENT_LOOP_DELAY_MS,
    rateLimitReads: s.RATE_LIMIT_READS,
    rateLimitWrites: s.RATE_LIMIT_WRITES,
    rateLimitTokenReads: s.RATE_LIMIT_TOKEN_READS,
    rateLimitTokenWrites: s.RATE_LIMIT_TOKEN_WRITES,
    rateLimitFailedAuth: s.RATE_LIMIT_FAILED_AUTH,
    dataDir: s.DATA_DIR ?? null,
    healthDetails: s.HEALTH_DETAILS,
    allowedHosts: allowedHostsOf(s.ALLOWED_HOSTS, s.HOST, publicUrl),
    serializationArenaMb: s.SERIALIZATION_ARENA_MB,
    serializationMemoEntries: s.SERIALIZATION_MEMO_ENTRIES,
    responseCacheBytes: s.RESPONSE_CACHE_BYTES,
    cacheMaxAge: s.CACHE_MAX_AGE,
    tecCompatPath: s.TEC_COMPAT_PATH,
    tombstoneDays: s.TOMBSTONE_DAYS,
    recurrenceHorizonDays: s.RECURRENCE_HORIZON_DAYS,
    recurrenceMaxOccurrences: s.RECURRENCE_MAX_OCCURRENCES,
  });
}
