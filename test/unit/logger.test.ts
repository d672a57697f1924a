/**
 * LOG_FORMAT (src/logger.ts): human-readable lines on a terminal or when asked for, JSON lines
 * otherwise; a pretty line carries a request's method, URL, status and time on the line itself.
 */
import { describe, expect, it } from 'vitest';
import { prettyMessage, resolveLogFormat } from '../../src/logger.js';

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
