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

/**
 * The drop-in path (TEC_COMPAT_PATH): The Events Calendar's own base, `/wp-json/tribe/events/v1`,
 * serves this namespace too, in English, with every link, `rest_url`, `namespace` and index entry
 * under that path, so a client written for the reference works by changing only the host.
 */
export const COMPAT_NAMESPACE = 'tribe/events/v1';
const COMPAT_SEGMENTS = ['wp-json', ...COMPAT_NAMESPACE.split('/')];

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

/**
 * Where the path segments of `url` from `start` on (after a `/`) stop matching `segments` in full:
 * the index after the last one, or -1 when they do not all match.
 */
function segmentsEndAt(url: string, start: number, segments: readonly string[]): number {
  let at = start;
  let end = -1;
  for (const expected of segments) {
    if (at > url.length || url.charCodeAt(at - 1) !== 47 /* / */) return -1;
    const segment = segmentAt(url, at);
    if (segment.text !== expected) return -1;
    end = segment.end;
    at = end + 1;
  }
  return end;
}

/** Whether the path segments of `url` from `start` on (after a `/`) begin with the namespace's. */
const isNamespaceAt = (url: string, start: number): boolean => segmentsEndAt(url, start, NAMESPACE_SEGMENTS) !== -1;

/** Where the drop-in path ends in `url` (the URL as sent), or -1 when `url` is not under it. */
const compatEnd = (url: string): number => (url.charCodeAt(0) === 47 /* / */ ? segmentsEndAt(url, 1, COMPAT_SEGMENTS) : -1);

/** Whether the request came in on the drop-in path. */
export const isCompatRequest = (request: FastifyRequest): boolean => compatEnd(request.originalUrl) !== -1;

/** The namespace a request names: The Events Calendar's on the drop-in path, else this service's. */
export const namespaceOf = (request: FastifyRequest): string => (isCompatRequest(request) ? COMPAT_NAMESPACE : NAMESPACE);

/** The path of the namespace's base the request came in on: `/de/calendar/events/v1`, `/wp-json/tribe/events/v1`. */
export const apiPathOf = (request: FastifyRequest): string => (isCompatRequest(request) ? `/${COMPAT_SEGMENTS.join('/')}` : `${rootOf(request)}/${NAMESPACE}`);

/**
 * The URL the router sees (the server's `rewriteUrl`): the root taken off a URL of the namespace
 * (`/de/calendar/events/v1/…` → `/calendar/events/v1/…`) or of the home page (`/de`, `/de/`,
 * `/de?…` → `/`, `/?…`). Any other URL is routed as sent: the reference UI is mounted under each
 * root (its page is written for its own mount point), and nothing else is served under a root, so
 * `/de/health/ready` or `/de/de/…` stays a 404. With `compatPath`, the drop-in path is the
 * namespace's too (`/wp-json/tribe/events/v1/events` → `/calendar/events/v1/events`).
 */
export function routedUrl(url: string, compatPath = false): string {
  if (compatPath) {
    const end = compatEnd(url);
    if (end !== -1) return `/${NAMESPACE}${url.slice(end)}`;
  }
  const segment = rootSegment(url);
  if (segment === null) return url;
  // What follows the root is nothing, or begins with `/`, `?` or `#`.
  const rest = url.slice(segment.end);
  // The home page: `/de`, `/de?…`; then `/de/`, `/de/?…`.
  if (rest === '' || rest[0] !== '/') return `/${rest}`;
  if (rest.length === 1 || rest[1] === '?' || rest[1] === '#') return rest;
  return isNamespaceAt(rest, 1) ? rest : url;
}
