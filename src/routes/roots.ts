/**
 * The namespace and its language roots: the namespace, its reference UI and the home page are
 * published under '', '/en', '/de' and '/fr' alike ('' and '/en' English, '/de' German, '/fr'
 * French). Routes, parameters and defaults are identical under each; links, documents and error
 * messages use the root the request came in on.
 *
 * The namespace's routes and the home page are registered once, without a root. The server's
 * `rewriteUrl` (routedUrl) takes the root off the URL before routing, and `rootOf` reads it back
 * from the URL as sent (`request.originalUrl`), so one route serves every root and still knows
 * which one it was asked under.
 */
import { type FastifyRequest } from 'fastify';

export const NAMESPACE = 'calendar/events/v1';

export const ROOTS = ['', '/en', '/de', '/fr'] as const;
export type Root = (typeof ROOTS)[number];

/**
 * Whether `url` has a path segment boundary at `at`: its end, `/`, or where the router ends the
 * path (`?`, `#`).
 */
function endsSegment(url: string, at: number): boolean {
  if (at >= url.length) return true;
  const c = url.charCodeAt(at);
  return c === 47 /* / */ || c === 63 /* ? */ || c === 35; /* # */
}

/**
 * The path segment of `url` that begins at `start`, as the router matches it (percent-decoded:
 * `/%64e/` is routed as `/de/`), and the index where it ends.
 */
function segmentAt(url: string, start: number): { text: string; end: number } {
  let end = start;
  while (!endsSegment(url, end)) end += 1;
  const raw = url.slice(start, end);
  if (!raw.includes('%')) return { text: raw, end };
  try {
    return { text: decodeURIComponent(raw), end };
  } catch {
    // A malformed escape matches nothing; the router answers it.
    return { text: raw, end };
  }
}

/** The root of a URL's first path segment, and where that segment ends; null under no root. */
function rootSegment(url: string): { root: Exclude<Root, ''>; end: number } | null {
  if (url.charCodeAt(0) !== 47 /* / */) return null;
  // The usual case without a scan: exactly `/en`, `/de` or `/fr` then a boundary.
  const { text, end } = url.length >= 3 && endsSegment(url, 3) ? { text: url.slice(1, 3), end: 3 } : segmentAt(url, 1);
  return text === 'en' || text === 'de' || text === 'fr' ? { root: `/${text}`, end } : null;
}

/**
 * The root of a URL: its first path segment when that is `en`, `de` or `fr` (case-sensitive, as
 * the routes are), else ''.
 */
export function rootOfUrl(url: string): Root {
  return rootSegment(url)?.root ?? '';
}

/** The root the request came in on (the URL as sent, before routedUrl). */
export function rootOf(request: FastifyRequest): Root {
  return rootOfUrl(request.originalUrl);
}

const NAMESPACE_SEGMENTS = NAMESPACE.split('/');

/** Whether the path segments of `url` from `start` on (after a `/`) begin with the namespace's. */
function isNamespaceAt(url: string, start: number): boolean {
  let at = start;
  for (const expected of NAMESPACE_SEGMENTS) {
    if (at > url.length || url.charCodeAt(at - 1) !== 47 /* / */) return false;
    const { text, end } = segmentAt(url, at);
    if (text !== expected) return false;
    at = end + 1;
  }
  return true;
}

/**
 * The URL the router sees (the server's `rewriteUrl`): the root taken off a URL of the namespace
 * (`/de/calendar/events/v1/…` → `/calendar/events/v1/…`) or of the home page (`/de`, `/de/`,
 * `/de?…` → `/`, `/?…`). Any other URL is routed as sent: the reference UI is mounted under each
 * root (its page is written for its own mount point), and nothing else is served under a root, so
 * `/de/health/ready` or `/de/de/…` stays a 404.
 */
export function routedUrl(url: string): string {
  const segment = rootSegment(url);
  if (segment === null) return url;
  // What follows the root is nothing, or begins with `/`, `?` or `#`.
  const rest = url.slice(segment.end);
  // The home page: `/de`, `/de?…`; then `/de/`, `/de/?…`.
  if (rest === '' || rest[0] !== '/') return `/${rest}`;
  if (rest.length === 1 || rest[1] === '?' || rest[1] === '#') return rest;
  return isNamespaceAt(rest, 1) ? rest : url;
}
