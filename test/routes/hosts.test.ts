/**
 * The request's host and the links it is served: a malformed `Host` (or forwarded host behind a
 * trusted proxy) is a 400 in the error shape, never a 500; a host that ALLOWED_HOSTS does not name
 * never appears in a link — the links name PUBLIC_URL's origin, else the first allowed host.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, createEventOk, json, openTestApp, type TestApp } from '../helpers/app.js';
import { enginesUnderTest } from '../helpers/engines.js';

const { engines } = await enginesUnderTest();
// Hosts are checked before any storage call: one engine is enough.
const engine = engines[0]!;

type Body = Record<string, unknown>;

const MALFORMED = ['a b', 'x:99999999', '[::1', 'a%2fb', 'user@evil.example', 'evil.example/path', 'x:0'];

describe('hosts', () => {
  // The product's default ALLOWED_HOSTS (a blank value), on the default port.
  let t: TestApp;
  let id: number;
  beforeAll(async () => {
    t = await openTestApp(engine, { ALLOWED_HOSTS: '' });
    id = (await createEventOk(t.app, { title: 'Hosted' })).id as number;
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(MALFORMED)('refuses the host %j with 400 in the error shape, on lists and single reads', async (host) => {
    for (const url of [`${API}/events`, `${API}/events/${id}`, `/de${API}/venues`, '/health/ready']) {
      const response = await t.app.inject({ method: 'GET', url, headers: { host } });
      expect(response.statusCode, url).toBe(400);
      expect(json(response)).toMatchObject({ code: 'rest_bad_request', data: { status: 400, header: 'Host' } });
    }
  });

  it('refuses an empty Host on a real connection (an injected request always has one)', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as { port: number };
    const answer = await new Promise<string>((resolve, reject) => {
      let text = '';
      const socket = connect(port, '127.0.0.1', () => socket.end(`GET ${API}/events HTTP/1.1\r\nHost: \r\nConnection: close\r\n\r\n`));
      socket
        .setEncoding('utf8')
        .on('data', (chunk: string) => (text += chunk))
        .on('end', () => resolve(text))
        .on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('"code":"rest_bad_request"');
  });

  it('says it in the language of the root', async () => {
    const response = await t.app.inject({ method: 'GET', url: `/de${API}/events`, headers: { host: 'a b' } });
    expect(json(response).message).toBe('Der Host-Header ist kein gültiger Hostname.');
  });

  it('links on an allowed host as the request named it, any port, any case', async () => {
    for (const [host, origin] of [
      ['localhost:80', 'http://localhost:80'],
      ['LOCALHOST:8080', 'http://localhost:8080'],
      ['127.0.0.1', 'http://127.0.0.1'],
      ['[::1]:3000', 'http://[::1]:3000'],
    ]) {
      const body = json<Body>(await t.app.inject({ method: 'GET', url: `${API}/events/${id}`, headers: { host } }));
      expect(body.rest_url, host).toBe(`${origin}${API}/events/${id}`);
      expect(body.url, host).toBe(`${origin}/event/hosted/`);
    }
  });

  it('never writes a host it does not allow into a link: the first allowed host, on the listening port', async () => {
    const list = await t.app.inject({ method: 'GET', url: `${API}/events`, headers: { host: 'evil.example' } });
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain('evil.example');
    expect(json<Body>(list).rest_url).toMatch(/^http:\/\/localhost:3000\//);
    const single = await t.app.inject({ method: 'GET', url: `${API}/events/${id}`, headers: { host: 'evil.example:8080' } });
    expect(single.body).not.toContain('evil.example');
    expect(json<Body>(single)).toMatchObject({ rest_url: `http://localhost:3000${API}/events/${id}`, global_id: `localhost?id=${id}` });
    for (const url of [`/${API.slice(1)}`, `${API}/doc`, '/docs/json', '/']) {
      const response = await t.app.inject({ method: 'GET', url, headers: { host: 'evil.example', accept: 'application/json' } });
      expect(response.statusCode, url).toBe(200);
      expect(response.body, url).not.toContain('evil.example');
    }
  });

  it('uses PUBLIC_URL for the links of a host it does not allow, and reflects every host with ALLOWED_HOSTS=*', async () => {
    const published = await openTestApp(engine, { ALLOWED_HOSTS: '', PUBLIC_URL: 'https://events.example.org/site' });
    const open = await openTestApp(engine, { ALLOWED_HOSTS: '*' });
    try {
      const created = (await createEventOk(published.app, { title: 'Published' })).id as number;
      const body = json<Body>(await published.app.inject({ method: 'GET', url: `${API}/events/${created}`, headers: { host: 'evil.example' } }));
      expect(body).toMatchObject({ rest_url: `https://events.example.org${API}/events/${created}`, url: 'https://events.example.org/site/event/published/' });
      // PUBLIC_URL's host is allowed as it is named.
      const own = json<Body>(await published.app.inject({ method: 'GET', url: `${API}/events/${created}`, headers: { host: 'events.example.org:8443' } }));
      expect(own.rest_url).toBe(`http://events.example.org:8443${API}/events/${created}`);

      const other = (await createEventOk(open.app, { title: 'Open' })).id as number;
      const reflected = json<Body>(await open.app.inject({ method: 'GET', url: `${API}/events/${other}`, headers: { host: 'any.example' } }));
      expect(reflected.rest_url).toBe(`http://any.example${API}/events/${other}`);
    } finally {
      await published.close();
      await open.close();
    }
  });

  it('applies the same rules to X-Forwarded-Host behind a trusted proxy', async () => {
    const proxied = await openTestApp(engine, { ALLOWED_HOSTS: 'public.example', TRUST_PROXY: 'true' });
    try {
      const created = (await createEventOk(proxied.app, { title: 'Proxied' })).id as number;
      const url = `${API}/events/${created}`;
      const allowed = json<Body>(
        await proxied.app.inject({ method: 'GET', url, headers: { host: 'inner:3000', 'x-forwarded-host': 'public.example', 'x-forwarded-proto': 'https' } }),
      );
      expect(allowed.rest_url).toBe(`https://public.example${url}`);
      const refused = await proxied.app.inject({ method: 'GET', url, headers: { host: 'inner:3000', 'x-forwarded-host': 'evil.example' } });
      expect(refused.body).not.toContain('evil.example');
      expect(json<Body>(refused).rest_url).toBe(`http://public.example:3000${url}`);
      const malformed = await proxied.app.inject({ method: 'GET', url, headers: { host: 'inner:3000', 'x-forwarded-host': 'a b' } });
      expect(malformed.statusCode).toBe(400);
    } finally {
      await proxied.close();
    }
  });
});
