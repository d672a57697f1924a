/**
 * The host a request names (its `Host` header, or `X-Forwarded-Host` behind a trusted proxy) and
 * the origin its links are built from.
 *
 * A host that is not a syntactically valid `host[:port]` is refused (400): it could not be put in
 * a URL. A valid host is used in links only when it is allowed (ALLOWED_HOSTS; by default the
 * loopback names and the configured HOST): any other would let a caller write the host of every
 * `url`, `rest_url` and `global_id` it is served — and a shared cache would serve them to
 * everybody. Other hosts get the links of the configured PUBLIC_URL, else of the first allowed host.
 * See docs/operations.md, "Hosts and links".
 */

export interface HostParts {
  /** Lower case; an IPv6 address in brackets. */
  hostname: string;
  /** As written, '' when absent. */
  port: string;
}

/** Which hosts links may name: `'*'` trusts every host. */
export type AllowedHosts = '*' | readonly string[];

const MAX_HOST_LENGTH = 255;

/**
 * `value` as host and optional port, or null when it is not one a URL can carry: no user info,
 * path, query, fragment, space or percent sign; an IPv6 address in brackets; a port of digits from
 * 1 to 65535. The host name comes back as the URL parser writes it (lower case, IPv4 shorthands
 * such as `127.1` written out), so links and the ALLOWED_HOSTS check see one spelling.
 */
export function parseHost(value: string | undefined): HostParts | null {
  if (value === undefined || value === '' || value.length > MAX_HOST_LENGTH) return null;
  // Characters the URL parser would accept and then rewrite or reinterpret.
  for (const c of value) {
    if (c <= ' ' || c === '%' || c === '/' || c === '\\' || c === '@' || c === '?' || c === '#' || c > '~') return null;
  }
  const close = value.startsWith('[') ? value.indexOf(']') : -1;
  if (value.startsWith('[') && close < 0) return null;
  const colon = close >= 0 ? (value[close + 1] === ':' ? close + 1 : -1) : value.indexOf(':');
  if (close >= 0 && colon < 0 && close !== value.length - 1) return null;
  const name = colon < 0 ? value : value.slice(0, colon);
  const port = colon < 0 ? '' : value.slice(colon + 1);
  if (port !== '' && !isPort(port)) return null;
  if (name === '') return null;
  let hostname: string;
  try {
    hostname = new URL(`http://${name}`).hostname;
  } catch {
    return null;
  }
  return hostname === '' ? null : { hostname, port };
}

function isPort(text: string): boolean {
  if (text.length > 5) return false;
  for (const c of text) if (c < '0' || c > '9') return false;
  const n = Number(text);
  return n >= 1 && n <= 65535;
}

/** Whether links may name `host` (compared by name; any port). */
export function isAllowedHost(host: HostParts, allowed: AllowedHosts): boolean {
  return allowed === '*' || allowed.includes(host.hostname);
}

/**
 * The origin a request's links are built from: its own when its host is allowed, else
 * `fallback` (PUBLIC_URL's origin, or the first allowed host on the listening port).
 */
export function linkOrigin(protocol: string, host: HostParts, allowed: AllowedHosts, fallback: string): string {
  if (!isAllowedHost(host, allowed)) return fallback;
  return `${protocol}://${host.port === '' ? host.hostname : `${host.hostname}:${host.port}`}`;
}
