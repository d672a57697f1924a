/**
 * src/logger.ts: LOG_FORMAT (human-readable lines on a terminal or when asked for, JSON lines
 * otherwise; a pretty line carries a request's method, URL, status and time on the line itself),
 * and the rule that keeps credentials out of the logs, on both loggers the app runs with.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { indexes } from '../../indexes/index.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger, loggerOptions, prettyMessage, redactUrl, resolveLogFormat } from '../../src/logger.js';
import { createEmbeddedStorage } from '../../src/storage/embedded/index.js';

describe('resolveLogFormat', () => {
  it('is pretty on a terminal and JSON elsewhere when LOG_FORMAT is unset (auto)', () => {
    expect(resolveLogFormat('auto', true)).toBe('pretty');
    expect(resolveLogFormat('auto', false)).toBe('json');
  });

  it('follows an explicit LOG_FORMAT whatever stdout is', () => {
    for (const tty of [true, false]) {
      expect(resolveLogFormat('json', tty)).toBe('json');
      expect(resolveLogFormat('pretty', tty)).toBe('pretty');
    }
  });
});

describe('prettyMessage', () => {
  it("puts a request's id, method and URL on the incoming line", () => {
    const log = { msg: 'incoming request', reqId: 'req-7', req: { method: 'GET', url: '/calendar/events/v1/events', host: 'localhost' } };
    expect(prettyMessage(log, 'msg')).toBe('[req-7] incoming request GET /calendar/events/v1/events');
  });

  it('puts the status and time on the completed line', () => {
    const log = { msg: 'request completed', reqId: 'req-7', res: { statusCode: 404 }, responseTime: 3.14159 };
    expect(prettyMessage(log, 'msg')).toBe('[req-7] request completed 404 in 3.1 ms');
  });

  it('leaves any other line as its message', () => {
    expect(prettyMessage({ msg: 'storage: embedded, data in /srv/data (durable)', code: 'x' }, 'msg')).toBe('storage: embedded, data in /srv/data (durable)');
  });
});

describe('credentials never reach the logs', () => {
  it('redactUrl masks the value of every credential parameter, however its name is spelled', () => {
    expect(redactUrl('/events?password=a&token=b&access_token=c&search=x')).toBe(
      '/events?password=[redacted]&token=[redacted]&access_token=[redacted]&search=x',
    );
    expect(redactUrl('/events?PASSWORD=a&pass%77ord=b&password[]=c&password%5B0%5D=d&+token=e&access_token')).toBe(
      '/events?PASSWORD=[redacted]&pass%77ord=[redacted]&password[]=[redacted]&password%5B0%5D=[redacted]&+token=[redacted]&access_token=[redacted]',
    );
    expect(redactUrl('/events?passwords=a&tokens=b&%E0%A4%A=c')).toBe('/events?passwords=a&tokens=b&%E0%A4%A=c');
    expect(redactUrl('/events/7')).toBe('/events/7');
  });

  const TOKEN = 'logged-editor-token-0123456789';
  // One secret for each place a credential can travel in; none may appear in a log line.
  const SECRETS = {
    authorization: TOKEN,
    cookie: 'cookie-secret-5a1e',
    password: 'query-password-93b2',
    token: 'query-token-17c4',
    accessToken: 'query-access-token-62d8',
    spelledPassword: 'spelled-password-0e7f',
    listedPassword: 'listed-password-4b3a',
    bodyPassword: 'body-password-8c21',
    loggedBody: 'logged-body-password-2f90',
    loggedHeaders: 'logged-header-secret-7d15',
  };

  /** A JSON-lines stream whose lines the test reads. */
  function capture(): { stream: Writable; lines: () => string[] } {
    const chunks: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk.toString());
        callback();
      },
    });
    return {
      stream,
      lines: () =>
        chunks
          .join('')
          .split('\n')
          .filter((line) => line !== ''),
    };
  }

  it.each([
    // What buildApp uses when given no logger, with a stream to read it by.
    ["the app's default logger options", async (stream: Writable) => ({ ...loggerOptions('info'), stream })],
    // What src/server.ts creates and hands to buildApp.
    ["the server's logger", (stream: Writable) => createLogger({ logLevel: 'info', logFormat: 'json' }, false, stream)],
  ])('%s', async (_name, make) => {
    const { stream, lines } = capture();
    const config = loadConfig({ API_TOKENS: `editor:${TOKEN}`, RATE_LIMIT_READS: '0', RATE_LIMIT_WRITES: '0', LOG_LEVEL: 'info' });
    const storage = createEmbeddedStorage({ indexes, reason: 'test' });
    const app = buildApp({ config, storage, logger: await make(stream) });
    try {
      await app.ready();
      const headers = { authorization: `Bearer ${SECRETS.authorization}`, cookie: `session=${SECRETS.cookie}` };
      const query = `password=${SECRETS.password}&token=${SECRETS.token}&access_token=${SECRETS.accessToken}&pass%77ord=${SECRETS.spelledPassword}&password[]=${SECRETS.listedPassword}`;
      await app.inject({ method: 'GET', url: `/calendar/events/v1/events?${query}&search=gala`, headers });
      await app.inject({ method: 'PATCH', url: '/calendar/events/v1/events/1', headers, payload: { password: SECRETS.bodyPassword } });
      // Records that carry credentials themselves: a body, and a request with its headers.
      app.log.info({ body: { password: SECRETS.loggedBody } }, 'a body');
      app.log.info(
        { req: { method: 'GET', url: `/x?token=${SECRETS.loggedHeaders}`, headers: { authorization: SECRETS.loggedHeaders, cookie: SECRETS.loggedHeaders } } },
        'a request',
      );
    } finally {
      await app.close();
      await storage.close();
    }
    const log = lines();
    const records = log.map((line) => JSON.parse(line) as { msg: string; req?: { url: string }; body?: { password: string } });
    // The requests were logged, with the credential query values masked and the rest kept.
    const incoming = records.filter((record) => record.msg === 'incoming request').map((record) => record.req?.url);
    expect(incoming).toEqual([
      '/calendar/events/v1/events?password=[redacted]&token=[redacted]&access_token=[redacted]&pass%77ord=[redacted]&password[]=[redacted]&search=gala',
      '/calendar/events/v1/events/1',
    ]);
    expect(records.find((record) => record.msg === 'a body')?.body).toEqual({ password: '[redacted]' });
    expect(records.find((record) => record.msg === 'a request')?.req).toEqual({ method: 'GET', url: '/x?token=[redacted]' });
    for (const [where, secret] of Object.entries(SECRETS)) expect(log.join('\n'), where).not.toContain(secret);
  });
});
