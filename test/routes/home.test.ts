/**
 * The home page of every language root (`/`, `/en`, `/de`, `/fr`, with or without the trailing
 * slash): an HTML page in the root's language linking the API reference, the OpenAPI document, the
 * namespace index and readiness, or the same links as JSON for a client that asks for JSON. Every
 * link answers; the page is not part of the namespace's index nor of its OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '../../src/i18n/index.js';
import { prefersJson } from '../../src/routes/home.js';
import { type TestApp, json, NS, openTestApp, ROOTS } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();
// The page does not depend on the storage engine: one is enough.
const engine = engines[0]!;

const HOST = 'calendar.example:8080';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

const hrefsOf = (html: string) => [...html.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1] as string);

describe('home page', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  const pages = ROOTS.flatMap(({ root, language }) => [
    { url: root === '' ? '/' : root, root, language },
    ...(root === '' ? [] : [{ url: `${root}/`, root, language }]),
  ]);

  it.each(pages)('GET $url is an HTML page in "$language" linking the docs UI, /doc, the index and readiness', async ({ url, root, language }) => {
    const response = await t.app.inject({ method: 'GET', url, headers: { accept: BROWSER_ACCEPT } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers.vary).toBe('Accept');
    expect(response.body).toContain(`<html lang="${language}">`);
    expect(response.body).toContain(`<title>${MESSAGES[language]['api.title']}</title>`);
    const hrefs = hrefsOf(response.body);
    expect(hrefs).toEqual(expect.arrayContaining([`${root}/docs/`, `${root}/${NS}/doc`, `${root}/${NS}`, '/health/ready']));
    // Every link leads somewhere: the UI's page, the document, the index, readiness, the other roots' pages.
    for (const href of hrefs) {
      const target = await t.app.inject({ method: 'GET', url: href });
      expect(target.statusCode, href).toBe(200);
    }
  });

  it.each(pages)('GET $url with Accept: application/json gives the same links as JSON, on the request host', async ({ url, root, language }) => {
    const response = await t.app.inject({ method: 'GET', url, headers: { accept: 'application/json', host: HOST } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers.vary).toBe('Accept');
    expect(json(response)).toEqual({
      name: 'calendar-service',
      language,
      links: {
        docs: `http://${HOST}${root}/docs/`,
        openapi: `http://${HOST}${root}/${NS}/doc`,
        index: `http://${HOST}${root}/${NS}`,
        ready: `http://${HOST}/health/ready`,
      },
    });
  });

  it('answers HEAD, and no Accept header or a wildcard with the HTML page', async () => {
    expect((await t.app.inject({ method: 'HEAD', url: '/' })).statusCode).toBe(200);
    for (const headers of [{}, { accept: '*/*' }]) {
      expect((await t.app.inject({ method: 'GET', url: '/', headers })).headers['content-type']).toBe('text/html; charset=utf-8');
    }
  });

  it.each([
    [undefined, false],
    ['*/*', false],
    [BROWSER_ACCEPT, false],
    ['text/html, application/json', false],
    ['application/json', true],
    ['application/json, text/plain, */*', true],
    ['application/*', true],
    ['text/html;q=0.5, application/json', true],
    ['application/json;q=0.5, text/html', false],
    ['application/json;q=0, */*', false],
  ] as const)('Accept %s prefers JSON: %s', (accept, expected) => {
    expect(prefersJson(accept)).toBe(expected);
  });

  it('is not part of the API: neither the namespace index nor the OpenAPI document lists it', async () => {
    for (const { root } of ROOTS) {
      const index = json<{ routes: Record<string, unknown> }>(await t.app.inject({ method: 'GET', url: `${root}/${NS}` }));
      for (const key of Object.keys(index.routes)) expect(key.startsWith(`/${NS}`), key).toBe(true);
      // The page is the only route with an HTML answer; the document's paths are the namespace's.
      const doc = await t.app.inject({ method: 'GET', url: `${root}/${NS}/doc` });
      expect(doc.statusCode).toBe(200);
      expect(doc.body).not.toContain('text/html');
    }
  });

  it('keeps the Vary: Origin of CORS beside its own Vary: Accept', async () => {
    const cors = await openTestApp(engine, { CORS_ORIGINS: 'https://widget.example' });
    try {
      const response = await cors.app.inject({ method: 'GET', url: '/', headers: { origin: 'https://widget.example' } });
      expect(response.statusCode).toBe(200);
      expect(String(response.headers.vary).split(/,\s*/).sort()).toEqual(['Accept', 'Origin']);
    } finally {
      await cors.close();
    }
  });

  it('leaves other roots without a page', async () => {
    for (const url of ['/es', '/es/', '/DE', '/de/de']) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
      expect(json(response)).toMatchObject({ code: 'rest_no_route' });
    }
  });
});
