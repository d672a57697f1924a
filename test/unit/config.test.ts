/**
 * loadConfig (design §7): defaults, and a ConfigError naming the variable for every bad value.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadTestEngineChoice } from '../../src/config.js';

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
      geolocEnabled: true,
      seedOnStart: null,
      logLevel: 'info',
      logFormat: 'auto',
      trustProxy: false,
      corsOrigins: [],
      bodyLimit: 1_048_576,
      requestTimeoutMs: 30_000,
      storageTimeoutMs: 10_000, // issue 10
      maxEventLoopDelayMs: 1000, // issue 10
      rateLimitReads: 1200,
      rateLimitWrites: 120,
      rateLimitTokenReads: 60_000,
      rateLimitTokenWrites: 6_000,
      dataDir: null,
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
      GEOLOC_ENABLED: 'false',
      SEED_ON_START: 'yes',
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'pretty',
      TRUST_PROXY: '1',
      CORS_ORIGINS: 'https://a.example, *',
      BODY_LIMIT: '2048',
      REQUEST_TIMEOUT_MS: '5000',
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
      geolocEnabled: false,
      seedOnStart: true,
      logLevel: 'debug',
      logFormat: 'pretty',
      trustProxy: true,
      corsOrigins: ['https://a.example', '*'],
      bodyLimit: 2048,
      requestTimeoutMs: 5000,
    });
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
  ])('refuses $env, naming $variable', ({ variable, env }) => {
    const error = configError(env);
    expect(error.variable).toBe(variable);
    expect(error.message).toContain(variable);
    expect(error.name).toBe('ConfigError');
  });

  it('explains that STORAGE=mongodb needs MONGODB_URI, and accepts it with one', () => {
    expect(configError({ STORAGE: 'mongodb' }).message).toContain('MONGODB_URI');
    expect(loadConfig({ STORAGE: 'mongodb', MONGODB_URI: 'mongodb://localhost:27017' }).storage).toBe('mongodb');
  });

  it('never repeats a token in its error messages', () => {
    const secret = 'this-is-a-secret-token-of-sufficient-length';
    for (const env of [
      { API_TOKENS: `admin:${secret}` },
      { API_TOKENS: `editor:${secret}:abc` },
      { API_TOKENS: `editor:${secret},viewer:${secret}` },
    ]) {
      expect(configError(env).message).not.toContain(secret);
    }
    expect(configError({ API_TOKENS: 'editor:shortsecret' }).message).not.toContain('shortsecret');
  });
});

describe('loadTestEngineChoice', () => {
  it('defaults to all and refuses anything else than all, mongodb or embedded', () => {
    expect(loadTestEngineChoice({})).toBe('all');
    expect(loadTestEngineChoice({ CALENDAR_TEST_ENGINES: 'mongodb' })).toBe('mongodb');
    expect(() => loadTestEngineChoice({ CALENDAR_TEST_ENGINES: 'sqlite' })).toThrow(ConfigError);
  });
});
