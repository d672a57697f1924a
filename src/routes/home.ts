/**
 * The home page of each language root (`/`, `/en`, `/de`, `/fr`): where a visitor who opens the
 * server's address finds the API reference, the OpenAPI document, the namespace index and the
 * readiness probe. A small HTML page in the root's language, or the same links as a JSON object for
 * a client that asks for JSON. It lies outside the namespace, so neither the namespace index nor the
 * OpenAPI document lists it.
 */
import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { type FastifyRequest } from 'fastify';
import { type ApiDocs, uiPrefix } from '../docs/api-docs.js';
import { type Language, languageOfRoot, translate } from '../i18n/index.js';
import { ErrorResponses } from '../schemas/common.js';
import { NAMESPACE, ROOTS, type Root, rootOf } from './roots.js';

const HomeLinksSchema = Type.Object({
  name: Type.Literal('calendar-service'),
  language: Type.String(),
  links: Type.Object({
    docs: Type.String({ description: 'The API reference for people (Swagger UI).' }),
    openapi: Type.String({ description: 'The OpenAPI document of the namespace.' }),
    index: Type.String({ description: 'The namespace index: every route of the API.' }),
    ready: Type.String({ description: 'The readiness probe: storage reachable, and which engine.' }),
  }),
});

/** The page's own words; the API's title comes from the shared translations. */
const TEXT: Readonly<Record<Language, { intro: string; docs: string; openapi: string; index: string; ready: string }>> = {
  en: {
    intro: 'This server publishes its events under',
    docs: 'API reference (try the requests in the browser)',
    openapi: 'OpenAPI document',
    index: 'Namespace index (every route)',
    ready: 'Readiness (storage reachable, which engine)',
  },
  de: {
    intro: 'Dieser Server veröffentlicht seine Veranstaltungen unter',
    docs: 'API-Referenz (Anfragen im Browser ausprobieren)',
    openapi: 'OpenAPI-Dokument',
    index: 'Namensraum-Index (alle Routen)',
    ready: 'Bereitschaft (Speicher erreichbar, welche Engine)',
  },
  fr: {
    intro: 'Ce serveur publie ses événements sous',
    docs: 'Référence de l’API (essayer les requêtes dans le navigateur)',
    openapi: 'Document OpenAPI',
    index: 'Index de l’espace de noms (toutes les routes)',
    ready: 'Disponibilité (stockage joignable, quel moteur)',
  },
};

/** A media range of an Accept header and its quality. */
function ranges(accept: string): { type: string; q: number }[] {
  return accept.split(',').map((part) => {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    return { type, q: Number.isFinite(quality) ? quality : 0 };
  });
}

/**
 * The quality the Accept header gives `type`, and how specifically: its most specific matching
 * range decides (RFC 9110 §12.5.1); 2 exact, 1 a `type/*` range, 0 the full wildcard or no match.
 */
function qualityOf(accepted: { type: string; q: number }[], type: string): { q: number; specificity: number } {
  const [major] = type.split('/');
  const exact = accepted.find((r) => r.type === type);
  if (exact) return { q: exact.q, specificity: 2 };
  const partial = accepted.find((r) => r.type === `${major}/*`);
  if (partial) return { q: partial.q, specificity: 1 };
  return { q: accepted.find((r) => r.type === '*/*')?.q ?? 0, specificity: 0 };
}

/**
 * JSON when the client prefers it to HTML, or accepts both alike but names JSON more specifically
 * (`application/json` beside the full wildcard, as HTTP client libraries send); HTML otherwise (no
 * Accept header, a bare wildcard, a browser's header), since a person opening the address is who
 * the page is for.
 */
export function prefersJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return false;
  const accepted = ranges(accept);
  const json = qualityOf(accepted, 'application/json');
  const html = qualityOf(accepted, 'text/html');
  if (json.q === 0) return false;
  return json.q > html.q || (json.q === html.q && json.specificity > html.specificity);
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(root: string, language: Language): string {
  const text = TEXT[language];
  const title = translate(language, 'api.title') ?? 'Calendar REST API';
  const base = `${root}/${NAMESPACE}`;
  const link = (href: string, label: string) => `<li><a href="${escapeHtml(href)}">${escapeHtml(label)}</a> <code>${escapeHtml(href)}</code></li>`;
  return [
    '<!doctype html>',
    `<html lang="${language}">`,
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title></head>`,
    '<body>',
    `<h1>${escapeHtml(title)}</h1>`,
    `<p>${escapeHtml(text.intro)} <code>${escapeHtml(base)}</code>.</p>`,
    '<ul>',
    link(`${uiPrefix(root)}/`, text.docs),
    link(`${base}/doc`, text.openapi),
    link(base, text.index),
    link('/health/ready', text.ready),
    '</ul>',
    `<p lang="en">${['', '/de', '/fr'].map((r) => `<a href="${r}/">${r === '' ? 'English' : r === '/de' ? 'Deutsch' : 'Français'}</a>`).join(' · ')}</p>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** Nothing but the page itself: no script, no outside resource. */
const PAGE_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Each root's page: it depends on nothing else. */
const PAGES = Object.fromEntries(ROOTS.map((root) => [root, page(root, languageOfRoot(root))])) as Readonly<Record<Root, string>>;

/**
 * `/`, registered once: `/en`, `/de` and `/fr` (with or without the trailing slash) reach it with
 * their root taken off (src/routes/roots.ts), and it answers with that root's page.
 */
export const homeRoutes: FastifyPluginAsyncTypebox<{ docs: ApiDocs }> = async (app, { docs }) => {
  const links = (request: FastifyRequest) => {
    const base = docs.apiBase(request);
    const origin = request.linkOrigin;
    return { docs: docs.uiUrl(request), openapi: `${base}/doc`, index: base, ready: `${origin}/health/ready` };
  };
  app.get(
    '/',
    {
      schema: {
        response: {
          200: {
            content: {
              'text/html': { schema: Type.String() },
              'application/json': { schema: HomeLinksSchema },
            },
          },
          ...ErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const root = rootOf(request);
      // The answer depends on Accept, so a cache must not hand one client the other's (added to
      // any Vary already set, such as CORS's Origin).
      const vary = reply.getHeader('vary');
      void reply.header('vary', vary === undefined ? 'Accept' : `${String(vary)}, Accept`);
      if (prefersJson(request.headers.accept)) {
        return reply.type('application/json; charset=utf-8').send({ name: 'calendar-service' as const, language: languageOfRoot(root), links: links(request) });
      }
      return reply.type('text/html; charset=utf-8').header('content-security-policy', PAGE_CSP).send(PAGES[root]);
    },
  );
};
