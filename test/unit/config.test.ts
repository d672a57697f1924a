/**
 * loadConfig: defaults, and a ConfigError naming the variable for every bad value.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const TOKEN_A = 'a'.repeat(24);
const TOKEN_B = 'b'.repeat(30);

/** Runs loadConfig and returns the ConfigError it throws (fails the test if it does not throw one). */
function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig(${JSON.stringify(env)}) did not throw`);
}

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toEqual({
      port: 3000,
      host: '127.0.0.1',
      publicUrl: null,
      storage: 'auto',
      mongodbUri: null,
      mongodbDb: 'calendar',
      mongodSystemBinary: null,
      apiTokens: [],
      siteTimezone: 'UTC',
      perPageMax: 50,
      icsMaxEvents: 1000,
      geolocEnabled: true,
      seedOnStart: null,
      logLevel: 'info',
      logFormat: 'auto',
      trustProxy: false,
      corsOrigins: [],
      bodyLimit: 1_048_576,
      requestTimeoutMs: 30_000,
      storageTimeoutMs: 10_000,
      maxEventLoopDelayMs: 1000,
      rateLimitReads: 1200,
      rateLimitWrites: 120,
      rateLimitTokenReads: 60_000,
      rateLimitTokenWrites: 6_000,
      rateLimitFailedAuth: 10,
      dataDir: null,
      serializationArenaMb: 64,
      serializationMemoEntries: 25_000,
      responseCacheBytes: 64 * 1024 * 1024,
      cacheMaxAge: 0,
      tecCompatPath: true,
      tombstoneDays: 30,
      recurrenceHorizonDays: 730,
      recurrenceMaxOccurrences: 1000,
      healthDetails: false,
      allowedHosts: ['localhost', '127.0.0.1', '[::1]'],
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.apiTokens)).toBe(true);
  });

  it('treats blank values as unset', () => {
    expect(loadConfig({ PORT: '  ', SITE_TIMEZONE: '', API_TOKENS: ' ' })).toMatchObject({ port: 3000, siteTimezone: 'UTC', apiTokens: [] });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      PUBLIC_URL: 'https://events.example.org/',
      STORAGE: 'mongodb',
      MONGODB_URI: 'mongodb+srv://user:pw@cluster.example.net/',
      MONGODB_DB: 'calendar_prod',
      API_TOKENS: ` editor:${TOKEN_A}:12 , viewer:${TOKEN_B} `,
      SITE_TIMEZONE: 'Europe/Berlin',
      PER_PAGE_MAX: '100',
      ICS_MAX_EVENTS: '250',
      GEOLOC_ENABLED: 'false',
      SEED_ON_START: 'yes',
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'pretty',
      TRUST_PROXY: '1',
      CORS_ORIGINS: 'https://a.example, *',
      BODY_LIMIT: '2048',
      REQUEST_TIMEOUT_MS: '5000',
      STORAGE_TIMEOUT_MS: '0',
      MAX_EVENT_LOOP_DELAY_MS: '250',
      RATE_LIMIT_READS: '10',
      RATE_LIMIT_WRITES: '0',
      RATE_LIMIT_TOKEN_READS: '20',
      RATE_LIMIT_TOKEN_WRITES: '30',
      MONGOMS_SYSTEM_BINARY: '/usr/bin/mongod',
      DATA_DIR: 'var/data',
      SERIALIZATION_ARENA_MB: '0',
      SERIALIZATION_MEMO_ENTRIES: '100',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      publicUrl: 'https://events.example.org',
      storage: 'mongodb',
      mongodbUri: 'mongodb+srv://user:pw@cluster.example.net/',
      mongodbDb: 'calendar_prod',
      apiTokens: [
        { role: 'editor', token: TOKEN_A, authorId: 12 },
        { role: 'viewer', token: TOKEN_B, authorId: 0 },
      ],
      siteTimezone: 'Europe/Berlin',
      perPageMax: 100,
      icsMaxEvents: 250,
      geolocEnabled: false,
      seedOnStart: true,
      logLevel: 'debug',
      logFormat: 'pretty',
      trustProxy: true,
      corsOrigins: ['https://a.example', '*'],
      bodyLimit: 2048,
      requestTimeoutMs: 5000,
      storageTimeoutMs: 0,
      maxEventLoopDelayMs: 250,
      rateLimitReads: 10,
      rateLimitWrites: 0,
      rateLimitTokenReads: 20,
      rateLimitTokenWrites: 30,
      mongodSystemBinary: '/usr/bin/mongod',
      dataDir: 'var/data',
      serializationArenaMb: 0,
      serializationMemoEntries: 100,
    });
  });

  it('reads only the environment it is given', () => {
    process.env.PORT_FOR_NOTHING = '1';
    const saved = process.env.PORT;
    process.env.PORT = '4321';
    try {
      expect(loadConfig({}).port).toBe(3000);
    } finally {
      if (saved === undefined) delete process.env.PORT;
      else process.env.PORT = saved;
      delete process.env.PORT_FOR_NOTHING;
    }
  });

  it('keeps DATA_DIR blank as unset: the embedded engine in memory', () => {
    expect(loadConfig({ DATA_DIR: '' }).dataDir).toBeNull();
    expect(loadConfig({ DATA_DIR: '  ' }).dataDir).toBeNull();
  });

  it.each(['true', 'TRUE', '1', 'yes', 'on'])('reads GEOLOC_ENABLED=%s as true', (value) => {
    expect(loadConfig({ GEOLOC_ENABLED: value }).geolocEnabled).toBe(true);
  });

  it.each(['false', 'False', '0', 'no', 'off'])('reads GEOLOC_ENABLED=%s as false', (value) => {
    expect(loadConfig({ GEOLOC_ENABLED: value }).geolocEnabled).toBe(false);
  });

  it.each<{ variable: string; env: Record<string, string> }>([
    { variable: 'PORT', env: { PORT: 'abc' } },
    { variable: 'PORT', env: { PORT: '70000' } },
    { variable: 'PORT', env: { PORT: '-1' } },
    { variable: 'PORT', env: { PORT: '80.5' } },
    { variable: 'SITE_TIMEZONE', env: { SITE_TIMEZONE: 'Mars/Olympus_Mons' } },
    { variable: 'SITE_TIMEZONE', env: { SITE_TIMEZONE: 'CEST+99' } },
    { variable: 'API_TOKENS', env: { API_TOKENS: `admin:${TOKEN_A}` } },
    { variable: 'API_TOKENS', env: { API_TOKENS: 'editor:too-short-token' } },
    { variable: 'API_TOKENS', env: { API_TOKENS: `editor:${TOKEN_A}:abc` } },
    { variable: 'API_TOKENS', env: { API_TOKENS: `editor:${TOKEN_A}:0` } },
    { variable: 'API_TOKENS', env: { API_TOKENS: `editor:${TOKEN_A}:-3` } },
    { variable: 'API_TOKENS', env: { API_TOKENS: `editor:${TOKEN_A}:1:2` } },
    { variable: 'API_TOKENS', env: { API_TOKENS: 'editor' } },
    { variable: 'API_TOKENS', env: { API_TOKENS: `:${TOKEN_A}` } },
    { variable: 'API_TOKENS', env: { API_TOKENS: `editor:${TOKEN_A},viewer:${TOKEN_A}` } },
    { variable: 'API_TOKENS', env: { API_TOKENS: `editor:${TOKEN_A},` } },
    { variable: 'STORAGE', env: { STORAGE: 'mongodb' } },
    { variable: 'STORAGE', env: { STORAGE: 'postgres' } },
    { variable: 'MONGODB_URI', env: { MONGODB_URI: 'http://localhost:27017' } },
    { variable: 'MONGODB_URI', env: { MONGODB_URI: 'localhost:27017' } },
    { variable: 'MONGODB_DB', env: { MONGODB_DB: 'bad name!' } },
    { variable: 'GEOLOC_ENABLED', env: { GEOLOC_ENABLED: 'maybe' } },
    { variable: 'SEED_ON_START', env: { SEED_ON_START: '2' } },
    { variable: 'TRUST_PROXY', env: { TRUST_PROXY: 'sometimes' } },
    { variable: 'PUBLIC_URL', env: { PUBLIC_URL: 'ftp://example.org' } },
    { variable: 'PUBLIC_URL', env: { PUBLIC_URL: 'example.org' } },
    { variable: 'CORS_ORIGINS', env: { CORS_ORIGINS: 'https://ok.example,not a url' } },
    { variable: 'PER_PAGE_MAX', env: { PER_PAGE_MAX: '0' } },
    { variable: 'LOG_LEVEL', env: { LOG_LEVEL: 'loud' } },
    { variable: 'LOG_FORMAT', env: { LOG_FORMAT: 'text' } },
    { variable: 'BODY_LIMIT', env: { BODY_LIMIT: '10' } },
    { variable: 'REQUEST_TIMEOUT_MS', env: { REQUEST_TIMEOUT_MS: 'soon' } },
    { variable: 'RATE_LIMIT_READS', env: { RATE_LIMIT_READS: '1e3' } },
    { variable: 'STORAGE_TIMEOUT_MS', env: { STORAGE_TIMEOUT_MS: '0x10' } },
    { variable: 'DATA_DIR', env: { DATA_DIR: 'a\0b' } },
    { variable: 'SERIALIZATION_ARENA_MB', env: { SERIALIZATION_ARENA_MB: '2048' } },
    { variable: 'SERIALIZATION_MEMO_ENTRIES', env: { SERIALIZATION_MEMO_ENTRIES: '-1' } },
  ])('refuses $env, naming $variable', ({ variable, env }) => {
    const error = configError(env);
    expect(error.variable).toBe(variable);
    expect(error.message).toContain(variable);
    expect(error.name).toBe('ConfigError');
  });

  it.each<{ env: Record<string, string>; message: string }>([
    { env: { PORT: 'abc' }, message: 'Invalid configuration: PORT must be a whole number (got "abc")' },
    { env: { PORT: '70000' }, message: 'Invalid configuration: PORT must be between 0 and 65535 (got 70000)' },
    { env: { STORAGE: 'postgres' }, message: 'Invalid configuration: STORAGE must be one of auto, mongodb, memory-server, embedded (got "postgres")' },
    { env: { GEOLOC_ENABLED: 'Maybe' }, message: 'Invalid configuration: GEOLOC_ENABLED must be true or false (got "maybe")' },
    { env: { MONGODB_URI: 'http://user:secret@host' }, message: 'Invalid configuration: MONGODB_URI must start with mongodb:// or mongodb+srv://' },
    { env: { MONGODB_DB: 'bad name!' }, message: 'Invalid configuration: MONGODB_DB must be a database name of letters, digits, _ or - (got "bad name!")' },
    { env: { DATA_DIR: 'a\0b' }, message: 'Invalid configuration: DATA_DIR must be a directory path' },
  ])('says what is wrong with $env', ({ env, message }) => {
    expect(configError(env).message).toBe(message);
  });

  it('explains that STORAGE=mongodb needs MONGODB_URI, and accepts it with one', () => {
    expect(configError({ STORAGE: 'mongodb' }).message).toContain('MONGODB_URI');
    expect(loadConfig({ STORAGE: 'mongodb', MONGODB_URI: 'mongodb://localhost:27017' }).storage).toBe('mongodb');
  });

  it('never repeats a token in its error messages', () => {
    const secret = 'this-is-a-secret-token-of-sufficient-length';
    for (const env of [{ API_TOKENS: `admin:${secret}` }, { API_TOKENS: `editor:${secret}:abc` }, { API_TOKENS: `editor:${secret},viewer:${secret}` }]) {
      expect(configError(env).message).not.toContain(secret);
    }
    expect(configError({ API_TOKENS: 'editor:shortsecret' }).message).not.toContain('shortsecret');
  });

  it('allows links to name the loopback hosts, HOST and PUBLIC_URL by default, or the hosts listed', () => {
    expect(loadConfig({ HOST: '0.0.0.0' }).allowedHosts).toEqual(['localhost', '127.0.0.1', '[::1]']);
    expect(loadConfig({ HOST: 'Calendar.Internal', PUBLIC_URL: 'https://events.example.org/site' }).allowedHosts).toEqual([
      'localhost',
      '127.0.0.1',
      '[::1]',
      'calendar.internal',
      'events.example.org',
    ]);
    expect(loadConfig({ HOST: '::1' }).allowedHosts).toEqual(['localhost', '127.0.0.1', '[::1]']);
    expect(loadConfig({ ALLOWED_HOSTS: 'Events.Example.org, api.example.org' }).allowedHosts).toEqual(['events.example.org', 'api.example.org']);
    expect(loadConfig({ ALLOWED_HOSTS: '*' }).allowedHosts).toBe('*');
    expect(configError({ ALLOWED_HOSTS: 'example.org:8080' }).message).toBe(
      'Invalid configuration: ALLOWED_HOSTS must be host names without a port, comma-separated, or * (got "example.org:8080")',
    );
    expect(configError({ ALLOWED_HOSTS: 'a b' }).variable).toBe('ALLOWED_HOSTS');
  });
});
