/**
 * Cross-cutting HTTP behaviour: authentication, the error shape for
 * everything the service or Fastify refuses, its message in the language of the
 * root, and the health routes.
 */
import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { StorageUnavailableError } from '../../src/errors.js';
import { type Storage } from '../../src/storage/port.js';
import {
  API,
  EDITOR,
  EDITOR_TOKEN,
  NS,
  ROOTS,
  type TestApp,
  VIEWER,
  VIEWER_TOKEN,
  countAll,
  createEventOk,
  json,
  makeEventInput,
  openTestApp,
} from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();

const FORBIDDEN = { code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.' };

/** Sends raw bytes to a listening server and returns the whole answer. */
function rawRequest(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write(request);
  });
}

describe.each(engines)('$name engine: authentication and errors', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('authentication', () => {
    it('answers 401 before looking at the body: malformed JSON, invalid fields, oversized bodies', async () => {
      const cases = [
        { 'content-type': 'application/json', payload: '{"title": "Broken",' },
        { 'content-type': 'application/json', payload: JSON.stringify({ foo: 'bar' }) },
        { 'content-type': 'application/json', payload: JSON.stringify({}) },
        { 'content-type': 'application/xml', payload: '<x/>' },
      ];
      for (const { payload, ...headers } of cases) {
        const response = await t.app.inject({ method: 'POST', url: `${API}/events`, headers, payload });
        expect(response.statusCode, payload).toBe(401);
        expect(json(response)).toEqual({ ...FORBIDDEN, data: { status: 401 } });
      }
    });

    it('refuses a viewer write with 403 rest_forbidden', async () => {
      const before = await countAll(t.storage);
      const response = await t.app.inject({ method: 'POST', url: `${API}/events`, headers: VIEWER, payload: makeEventInput() });
      expect(response.statusCode).toBe(403);
      expect(json(response)).toEqual({ ...FORBIDDEN, data: { status: 403 } });
      expect(await countAll(t.storage)).toEqual(before);
    });

    it.each([
      'Basic x',
      'Basic ZWRpdG9yOnBhc3N3b3Jk',
      'Bearer',
      'Bearer ',
      `Bearer ${EDITOR_TOKEN}x`,
      `Bearer ${EDITOR_TOKEN.slice(0, -1)}`,
      `Token ${EDITOR_TOKEN}`,
      `${EDITOR_TOKEN}`,
      'Bearer not-a-configured-token-at-all',
    ])('refuses the Authorization header %j with 401, on writes and on reads', async (authorization) => {
      const before = await countAll(t.storage);
      const write = await t.app.inject({ method: 'POST', url: `${API}/events`, headers: { authorization }, payload: makeEventInput() });
      expect(write.statusCode).toBe(401);
      expect(json(write)).toEqual({ ...FORBIDDEN, data: { status: 401 } });
      expect(await countAll(t.storage)).toEqual(before);
      const read = await t.app.inject({ method: 'GET', url: `${API}/events/1`, headers: { authorization } });
      expect(read.statusCode).toBe(401);
    });

    it('accepts the scheme in any case', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: `${API}/events`,
        headers: { authorization: `bearer ${EDITOR_TOKEN}` },
        payload: makeEventInput({ title: 'Lowercase scheme' }),
      });
      expect(response.statusCode).toBe(201);
    });

    it('gives events written with a token that carries an author that author', async () => {
      const other = await openTestApp(engine, { API_TOKENS: `editor:${EDITOR_TOKEN}:42` });
      try {
        const response = await other.app.inject({ method: 'POST', url: `${API}/events`, headers: EDITOR, payload: makeEventInput() });
        expect(response.statusCode).toBe(201);
        expect(json(response).author).toBe('42');
        // The viewer token of the default app is unknown here.
        const viewer = await other.app.inject({ method: 'GET', url: `${API}/events/1`, headers: VIEWER });
        expect(viewer.statusCode).toBe(401);
      } finally {
        await other.close();
      }
    });

    it('never puts a token in a response', async () => {
      const created = await createEventOk(t.app, { title: 'Token leak check' });
      const requests = [
        { method: 'GET' as const, url: `${API}/events/${created.id as number}`, headers: EDITOR },
        { method: 'GET' as const, url: `${API}/events/${created.id as number}`, headers: VIEWER },
        { method: 'POST' as const, url: `${API}/events`, headers: VIEWER, payload: makeEventInput() },
        { method: 'POST' as const, url: `${API}/events`, headers: EDITOR, payload: makeEventInput({ foo: EDITOR_TOKEN }) },
        { method: 'PATCH' as const, url: `${API}/events/${created.id as number}`, headers: EDITOR, payload: { title: 'Renamed' } },
        { method: 'GET' as const, url: `${API}/events/1`, headers: { authorization: `Bearer ${EDITOR_TOKEN}x` } },
        { method: 'GET' as const, url: `${API}/nowhere`, headers: EDITOR },
        { method: 'GET' as const, url: '/health/ready', headers: EDITOR },
      ];
      for (const request of requests) {
        const response = await t.app.inject(request);
        const everything = `${response.body}\n${JSON.stringify(response.headers)}`;
        expect(everything).not.toContain(EDITOR_TOKEN);
        expect(everything).not.toContain(VIEWER_TOKEN);
      }
    });
  });

  describe('error shape', () => {
    it('answers malformed JSON from the editor with 400 rest_invalid_json', async () => {
      for (const payload of ['{"title": "Broken",', '{', 'nope', '{"a":1}}']) {
        const response = await t.app.inject({
          method: 'POST',
          url: `${API}/events`,
          headers: { ...EDITOR, 'content-type': 'application/json' },
          payload,
        });
        expect(response.statusCode, payload).toBe(400);
        expect(json(response)).toMatchObject({ code: 'rest_invalid_json', data: { status: 400 } });
      }
    });

    it('answers an empty JSON body on create with a 400 in the error shape', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: `${API}/events`,
        headers: { ...EDITOR, 'content-type': 'application/json' },
        payload: '',
      });
      expect(response.statusCode).toBe(400);
      expect(json(response)).toMatchObject({ code: expect.stringMatching(/^rest_/), data: { status: 400 } });
    });

    it('answers a JSON array, string or number body with 400', async () => {
      for (const payload of ['[]', '[{"title":"x"}]', '"title"', '42', 'null']) {
        const response = await t.app.inject({
          method: 'POST',
          url: `${API}/events`,
          headers: { ...EDITOR, 'content-type': 'application/json' },
          payload,
        });
        expect(response.statusCode, payload).toBe(400);
        expect(json(response)).toMatchObject({ code: expect.stringMatching(/^rest_/), data: { status: 400 } });
      }
    });

    it('refuses $-prefixed query keys on reads too', async () => {
      const created = await createEventOk(t.app);
      const response = await t.app.inject({ method: 'GET', url: `${API}/events/${created.id as number}?$where=1` });
      expect(response.statusCode).toBe(400);
      expect(json(response)).toMatchObject({ code: 'rest_invalid_param', data: { status: 400, params: { $where: expect.any(String) } } });
    });

    it('does not let operator-looking query keys unlock a protected event', async () => {
      const created = await createEventOk(t.app, { title: 'Locked' });
      const url = `${API}/events/${created.id as number}`;
      expect((await t.app.inject({ method: 'PATCH', url, headers: EDITOR, payload: { password: 'right-one' } })).statusCode).toBe(200);
      for (const query of ['password[$ne]=x', 'password[]=x&password[]=right-one', 'password=x&password=right-one', 'password[0]=wrong']) {
        const response = await t.app.inject({ method: 'GET', url: `${url}?${query}` });
        expect(response.statusCode, query).not.toBe(200);
        expect([400, 403]).toContain(response.statusCode);
      }
    });

    it('answers errors before routing (header too large) in the error shape', async () => {
      const server = await openTestApp(engine);
      try {
        await server.app.listen({ port: 0, host: '127.0.0.1' });
        const { port } = server.app.server.address() as AddressInfo;
        const answer = await rawRequest(port, `GET /health/live HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
        expect(answer).toMatch(/^HTTP\/1\.1 431 /);
        const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as unknown;
        expect(body).toEqual({ code: 'rest_headers_too_large', message: expect.any(String), data: { status: 431 } });
      } finally {
        await server.close();
      }
    });
  });

  describe('messages in the language of the root', () => {
    type Language = (typeof ROOTS)[number]['language'];
    interface Case {
      name: string;
      request: { method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; payload?: string };
      status: number;
      code: string;
      messages: Record<Language, string>;
    }
    const bigBody = JSON.stringify({ ...makeEventInput(), description: 'y'.repeat(3000) });
    const CASES: Case[] = [
      {
        name: '404 rest-event-not-found',
        request: { method: 'GET', path: `/${NS}/events/99999999` },
        status: 404,
        code: 'rest-event-not-found',
        messages: {
          en: 'Event with ID 99999999 does not exist.',
          de: 'Es gibt keine Veranstaltung mit der ID 99999999.',
          fr: "Il n'existe aucun événement avec l'ID 99999999.",
        },
      },
      {
        name: '400 rest_invalid_param (data.params stays English)',
        request: { method: 'GET', path: `/${NS}/events?per_page=abc&page=0` },
        status: 400,
        code: 'rest_invalid_param',
        messages: { en: 'Invalid parameter(s): page, per_page', de: 'Ungültige Parameter: page, per_page', fr: 'Paramètre(s) invalide(s) : page, per_page' },
      },
      {
        name: '401 rest_forbidden',
        request: { method: 'POST', path: `/${NS}/events`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(makeEventInput()) },
        status: 401,
        code: 'rest_forbidden',
        messages: {
          en: 'Sorry, you are not allowed to do that.',
          de: 'Sie sind leider nicht berechtigt, das zu tun.',
          fr: "Désolé, vous n'êtes pas autorisé à faire cela.",
        },
      },
      {
        name: '404 rest_no_route in the namespace',
        request: { method: 'GET', path: `/${NS}/nowhere` },
        status: 404,
        code: 'rest_no_route',
        messages: {
          en: 'No route was found matching the URL and request method.',
          de: 'Für diese URL und Anfragemethode gibt es keine Route.',
          fr: "Aucune route ne correspond à l'URL et à la méthode de la requête.",
        },
      },
      {
        name: '404 rest_no_route outside the namespace',
        request: { method: 'GET', path: '/nowhere' },
        status: 404,
        code: 'rest_no_route',
        messages: {
          en: 'No route was found matching the URL and request method.',
          de: 'Für diese URL und Anfragemethode gibt es keine Route.',
          fr: "Aucune route ne correspond à l'URL et à la méthode de la requête.",
        },
      },
      {
        name: '415 rest_unsupported_media_type',
        request: { method: 'POST', path: `/${NS}/events`, headers: { ...EDITOR, 'content-type': 'application/xml' }, payload: '<event/>' },
        status: 415,
        code: 'rest_unsupported_media_type',
        messages: {
          en: 'Unsupported content type: send application/json or application/x-www-form-urlencoded.',
          de: 'Nicht unterstützter Inhaltstyp: Senden Sie application/json oder application/x-www-form-urlencoded.',
          fr: 'Type de contenu non pris en charge : envoyez application/json ou application/x-www-form-urlencoded.',
        },
      },
      {
        name: '413 rest_request_too_large (BODY_LIMIT=2048)',
        request: { method: 'POST', path: `/${NS}/events`, headers: { ...EDITOR, 'content-type': 'application/json' }, payload: bigBody },
        status: 413,
        code: 'rest_request_too_large',
        messages: { en: 'The request body is too large.', de: 'Der Anfragetext ist zu groß.', fr: 'Le corps de la requête est trop volumineux.' },
      },
    ];

    let small: TestApp;
    beforeAll(async () => {
      small = await openTestApp(engine, { BODY_LIMIT: '2048' });
    });
    afterAll(async () => {
      await small?.close();
    });

    it.each(CASES)('$name: translated under /de and /fr, code and data byte for byte as under /', async ({ request, status, code, messages }) => {
      const bodies: string[] = [];
      for (const { root, language } of ROOTS) {
        const { path, ...rest } = request;
        const response = await small.app.inject({ ...rest, url: `${root}${path}` });
        expect(response.statusCode, `${root}${path}`).toBe(status);
        const body = json<{ code: string; message: string; data: Record<string, unknown> }>(response);
        expect(Object.keys(body)).toEqual(['code', 'message', 'data']);
        expect(body.code).toBe(code);
        expect(body.message, root).toBe(messages[language]);
        bodies.push(JSON.stringify({ code: body.code, data: body.data }));
      }
      expect(new Set(bodies).size).toBe(1);
    });

    it('429 rest_too_many_requests counts the wait in the root language', async () => {
      const limited = await openTestApp(engine, { RATE_LIMIT_READS: '1' });
      try {
        expect((await limited.app.inject({ method: 'GET', url: `/de/${NS}/tags` })).statusCode).toBe(200);
        const expected: Record<Language, RegExp> = {
          en: /^Too many requests: at most 1 a minute; retry in (\d+ seconds?|1 minute)\.$/,
          de: /^Zu viele Anfragen: höchstens 1 pro Minute; versuchen Sie es in (\d+ Sekunden?|1 Minute) erneut\.$/,
          fr: /^Trop de requêtes : 1 au plus par minute ; réessayez dans (\d+ secondes?|1 minute)\.$/,
        };
        for (const { root, language } of ROOTS) {
          const response = await limited.app.inject({ method: 'GET', url: `${root}/${NS}/tags` });
          expect(response.statusCode).toBe(429);
          expect(json(response)).toEqual({ code: 'rest_too_many_requests', message: expect.stringMatching(expected[language]), data: { status: 429 } });
        }
      } finally {
        await limited.close();
      }
    });
  });

  describe('health', () => {
    it('/health/live answers 200', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/health/live' });
      expect(response.statusCode).toBe(200);
      expect(json(response)).toEqual({ status: 'ok' });
    });

    it('/health/ready answers 200 with the engine; why it was chosen only to token holders', async () => {
      const anonymous = await t.app.inject({ method: 'GET', url: '/health/ready' });
      expect(anonymous.statusCode).toBe(200);
      expect(json(anonymous)).toEqual({ status: 'ready', engine: engine.name });
      for (const headers of [EDITOR, VIEWER]) {
        const response = await t.app.inject({ method: 'GET', url: '/health/ready', headers });
        expect(json(response)).toEqual({ status: 'ready', engine: engine.name, reason: t.storage.reason });
      }
    });

    it('/health/ready tells everyone why with HEALTH_DETAILS', async () => {
      const app = buildApp({ config: loadConfig({ HEALTH_DETAILS: 'true' }), storage: t.storage, logger: false });
      try {
        expect(json(await app.inject({ method: 'GET', url: '/health/ready' }))).toEqual({ status: 'ready', engine: engine.name, reason: t.storage.reason });
      } finally {
        await app.close();
      }
    });

    it('/health/ready answers 503 in the error shape, with Retry-After, when the storage does not answer', async () => {
      // The real storage of this engine, except that its ping fails as an unreachable server's does.
      const unreachable = Object.assign(Object.create(t.storage) as Storage, {
        ping: () => Promise.reject(new StorageUnavailableError()),
      });
      const app = buildApp({ config: loadConfig({ API_TOKENS: `editor:${EDITOR_TOKEN}` }), storage: unreachable, logger: false });
      try {
        const response = await app.inject({ method: 'GET', url: '/health/ready' });
        expect(response.statusCode).toBe(503);
        expect(response.headers['retry-after']).toBe('5');
        expect(json(response)).toEqual({ code: 'storage-unavailable', message: expect.any(String), data: { status: 503 } });
        expect((await app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
      } finally {
        await app.close();
      }
    });
  });
});
