/**
 * One line saying why MongoDB could not be used, for start-up (src/server.ts) and `npm run indexes`:
 * where (host:port as the driver tried it, else as MONGODB_URI names it) and the cause (connection
 * refused, DNS, TLS, authentication, server selection timeout, an unusable URI).
 *
 * Never a credential: hosts come from the driver's topology or from the host part of a URI that
 * parses the way the driver's own parser accepts, and any text quoted from an error has the URI's
 * user name and password removed. Pure: the error and the URI in, a string out.
 */
import { MongoError, MongoNetworkError, MongoNetworkTimeoutError, MongoServerError, MongoSystemError } from 'mongodb';

/** The driver's default port, which a URI without one means. */
const DEFAULT_PORT = 27017;

/** What the driver keeps of a failed server selection: each server's last error by address. */
interface TopologyLike {
  servers: Map<string, { address?: string; error?: unknown }>;
  compatibilityError?: string;
}

interface SystemErrorLike {
  code: string;
  syscall?: string;
  hostname?: string;
  address?: string;
  port?: number;
}

/** Every error reachable from `error`: itself, the servers of a selection failure, causes, aggregated errors. */
function* chain(error: unknown, seen = new Set<unknown>()): Generator<unknown> {
  if (error === null || typeof error !== 'object' || seen.has(error)) return;
  seen.add(error);
  yield error;
  const reason = topologyOf(error);
  if (reason) for (const server of reason.servers.values()) yield* chain(server.error, seen);
  yield* chain((error as { cause?: unknown }).cause, seen);
  const errors = (error as { errors?: unknown }).errors;
  if (Array.isArray(errors)) for (const inner of errors) yield* chain(inner, seen);
}

function topologyOf(error: unknown): TopologyLike | null {
  if (!(error instanceof MongoSystemError)) return null;
  const reason = (error as { reason?: unknown }).reason;
  return reason !== null && typeof reason === 'object' && (reason as { servers?: unknown }).servers instanceof Map ? (reason as TopologyLike) : null;
}

/**
 * A Node system error (socket, DNS, TLS): an upper-case string `code` such as ECONNREFUSED, which
 * no driver error has (theirs are numbers) nor the service's own (kebab-case, e.g. storage-unavailable).
 */
function systemError(error: unknown): SystemErrorLike | null {
  if (!(error instanceof Error) || error instanceof MongoError) return null;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code) ? (error as unknown as SystemErrorLike) : null;
}

/**
 * Errors about the connection string or what it leads to (an SRV record without hosts, missing
 * credentials), by class name: the URI parser the driver uses throws a MongoParseError class of its
 * own, and MongoAPIError's other subclasses (a closed topology or client, a misused cursor) are
 * about the driver's state, not about MONGODB_URI.
 */
const URI_ERRORS = new Set(['MongoParseError', 'MongoAPIError', 'MongoInvalidArgumentError', 'MongoMissingCredentialsError']);

const isCertificateCode = (code: string) => /CERT|SELF_SIGNED|UNABLE_TO_|ALTNAME|HOSTNAME_MISMATCH/.test(code);
const isTlsCode = (code: string) => isCertificateCode(code) || /^ERR_(TLS|SSL)_/.test(code);

function systemCause({ code, syscall, hostname }: SystemErrorLike): string {
  const forHost = hostname ? ` for ${hostname}` : '';
  if (syscall === 'querySrv' || syscall === 'queryTxt') return `DNS ${syscall === 'querySrv' ? 'SRV' : 'TXT'} lookup failed (${code}${forHost})`;
  if (code === 'ENOTFOUND') return `host not found (DNS ENOTFOUND${forHost})`;
  if (syscall === 'getaddrinfo' || code === 'EAI_AGAIN') return `DNS lookup failed (${code}${forHost})`;
  if (code === 'ECONNREFUSED') return 'connection refused (ECONNREFUSED)';
  if (code === 'ETIMEDOUT') return 'connection timed out (ETIMEDOUT)';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `no route to the host (${code})`;
  if (code === 'ECONNRESET') return 'connection reset by the server (ECONNRESET)';
  if (isCertificateCode(code)) return `TLS certificate rejected (${code})`;
  if (isTlsCode(code)) return `TLS handshake failed (${code})`;
  return `connection failed (${code})`;
}

/**
 * The user name and password a URI may carry, to be removed from quoted text. Taken as loosely as
 * the driver's parser splits a URI (user up to `:` or `@`, password up to `@`) and also as all that
 * precedes the URI's last `@`, so a malformed URI's secrets are removed too.
 */
function secretsOf(uri: string | null): string[] {
  if (uri === null) return [];
  const secrets = new Set<string>([uri]);
  const rest = uri.replace(/^[^/]*:\/\//, '');
  const loose = /^([^:@]*)(?::([^@]*))?@/.exec(rest);
  const beforeLastAt = rest.includes('@') ? rest.slice(0, rest.lastIndexOf('@')) : '';
  for (const part of [loose?.[1], loose?.[2], beforeLastAt, ...beforeLastAt.split(':')]) {
    if (!part) continue;
    secrets.add(part);
    try {
      secrets.add(decodeURIComponent(part));
    } catch {
      // Not percent-encoded validly: the raw text is removed already.
    }
  }
  return [...secrets].filter((s) => s !== '').sort((a, b) => b.length - a.length);
}

/** `text` on one line, without the URI's credentials nor any userinfo of a connection string. */
function scrub(text: string, secrets: readonly string[]): string {
  let clean = text.replace(/(mongodb(?:\+srv)?:\/\/)[^\s/?#]*@/g, '$1***@');
  for (const secret of secrets) clean = clean.split(secret).join('***');
  return clean.replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * The hosts a URI names, as `host:port` (the default port filled in), or `name (SRV)` for
 * mongodb+srv; null when the URI does not parse as the driver accepts it (user name and password
 * without unescaped `: / ? # [ ] @`, no `@` after the host list but in the query). A malformed URI
 * could otherwise shift part of a password into the host part, so no host is named from it.
 */
export function hostsOfUri(uri: string | null): string | null {
  if (uri === null) return null;
  const match = /^mongodb(\+srv)?:\/\/(?:([^:/?#[\]@]*(?::[^:/?#[\]@]*)?)@)?([^/?#@]+)(?:\/[^?#@]*)?(?:\?.*)?$/s.exec(uri);
  if (!match) return null;
  const [, srv, userinfo, hostList = ''] = match;
  // Without a userinfo section, an `@` anywhere (say in a password with a `?`) leaves the split unsure.
  if (userinfo === undefined && uri.includes('@')) return null;
  const hosts: string[] = [];
  for (const raw of hostList.split(',')) {
    const host = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~%-]+)(?::(\d{1,5}))?$/.exec(raw);
    if (!host?.[1]) return null;
    let name = host[1];
    try {
      name = decodeURIComponent(name);
    } catch {
      return null;
    }
    if (srv) {
      if (host[2] !== undefined) return null;
      hosts.push(`${name} (SRV)`);
    } else hosts.push(name.startsWith('/') ? name : `${name}:${host[2] ?? DEFAULT_PORT}`);
  }
  return hosts.length > 0 ? hosts.join(', ') : null;
}

/** Where the failure happened: the servers the driver tried, else the hosts of the URI. */
function whereOf(errors: readonly unknown[], uri: string | null): string | null {
  for (const error of errors) {
    const topology = topologyOf(error);
    if (!topology || topology.servers.size === 0) continue;
    const failed = [...topology.servers.entries()].filter(([, server]) => server.error);
    return (failed.length > 0 ? failed : [...topology.servers.entries()]).map(([address]) => address).join(', ');
  }
  const fromUri = hostsOfUri(uri);
  if (fromUri !== null) return fromUri;
  for (const error of errors) {
    const system = systemError(error);
    if (system?.address !== undefined && system.port !== undefined) return `${system.address}:${system.port}`;
  }
  return null;
}

/**
 * One line, without a stack or a credential, saying where and why MongoDB failed. `uri` is the
 * connection string the client was given (null when unknown, e.g. an in-memory server's).
 */
export function describeMongoFailure(error: unknown, uri: string | null): string {
  const errors = [...chain(error)];
  const secrets = secretsOf(uri);
  const where = whereOf(errors, uri);
  const at = where === null ? 'MongoDB' : `MongoDB at ${where}`;
  const quoted = (e: Error) => `${e.name}: ${scrub(e.message, secrets)}`;

  const auth = errors.find((e): e is MongoServerError => e instanceof MongoServerError && e.code === 18);
  if (auth) return `${at} rejected the credentials of MONGODB_URI: authentication failed (AuthenticationFailed, code 18)`;

  const system = errors.map(systemError).find((s) => s !== null);
  if (system) return `cannot reach ${at}: ${systemCause(system)}`;

  const timeout = errors.find((e) => e instanceof MongoNetworkTimeoutError);
  if (timeout instanceof Error) return `cannot reach ${at}: connection timed out (${quoted(timeout)})`;

  const network = errors.find((e) => e instanceof MongoNetworkError);
  if (network instanceof Error) return `cannot reach ${at}: connection failed (${quoted(network)})`;

  const unusable = errors.find((e) => e instanceof Error && URI_ERRORS.has(e.name));
  if (unusable instanceof Error) return `MONGODB_URI cannot be used${where === null ? '' : ` (${where})`}: ${quoted(unusable)}`;

  const server = errors.find((e): e is MongoServerError => e instanceof MongoServerError);
  if (server) {
    const codeName = typeof server.codeName === 'string' ? `${server.codeName}, ` : '';
    return `${at} refused the operation (${codeName}code ${String(server.code)}): ${scrub(server.message, secrets)}`;
  }

  const selection = errors.find((e) => topologyOf(e) !== null);
  if (selection instanceof Error) {
    const compatibility = topologyOf(selection)?.compatibilityError;
    if (compatibility) return `cannot use ${at}: ${scrub(compatibility, secrets)}`;
    return `cannot reach ${at}: no suitable server answered within the server selection timeout (${quoted(selection)})`;
  }

  // The last of the chain: the driver's error says more than the translated wrappers above it.
  const deepest = [...errors].reverse().find((e): e is Error => e instanceof Error);
  return deepest ? `${at} failed: ${quoted(deepest)}` : `${at} failed: ${scrub(String(error), secrets)}`;
}
