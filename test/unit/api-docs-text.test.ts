/**
 * The OpenAPI document's text is written once per language and server URL, then served as the
 * same bytes: writing it (YAML most) is tens of milliseconds of blocking work that anonymous
 * clients could otherwise make the server repeat on every request.
 */
import { type FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createApiDocs } from '../../src/docs/api-docs.js';

const docs = createApiDocs({
  catalog: { routes: () => [] },
  siteTimezone: 'UTC',
  perPageMax: 50,
  rateLimits: { reads: 0, writes: 0 },
  geolocation: true,
});
const request = (originalUrl: string, linkOrigin = 'http://localhost:3000') => ({ originalUrl, linkOrigin }) as FastifyRequest;

describe('OpenAPI document text', () => {
  it('is written once per language and server URL, and then served as the same bytes', () => {
    for (const format of ['json', 'yaml'] as const) {
      const first = docs.openapiText(request('/de/docs/yaml'), format);
      expect(docs.openapiText(request('/de/docs/json'), format)).toBe(first);
      // Another language or another server URL is another text.
      expect(docs.openapiText(request('/fr/docs/yaml'), format)).not.toBe(first);
      expect(docs.openapiText(request('/de/docs/yaml', 'http://127.0.0.1:8080'), format)).not.toBe(first);
    }
  });

  it('is the document, in either format', () => {
    const de = request('/de/calendar/events/v1/doc');
    const document = docs.openapi(de);
    expect(JSON.parse(docs.openapiText(de, 'json').toString('utf8'))).toEqual(document);
    expect(parse(docs.openapiText(de, 'yaml').toString('utf8'))).toEqual(document);
    expect(document.servers).toEqual([{ url: 'http://localhost:3000/de/calendar/events/v1' }]);
  });
});
