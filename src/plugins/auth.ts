/**
 * Bearer-token authentication (design §4). Tokens come from API_TOKENS; they are compared in
 * constant time and never logged. Write routes declare `config: { access: 'write' }`; an anonymous
 * or invalid caller is refused in `onRequest`, before the body is even parsed (design §9.14).
 */
import { type FastifyInstance, type FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { type ApiToken } from '../config.js';
import { ForbiddenError } from '../errors.js';
import { type Caller } from '../services/access.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller, or null for anonymous requests. */
    caller: Caller | null;
  }
  interface FastifyContextConfig {
    /** 'write' routes need an editor token. */
    access?: 'read' | 'write';
  }
}

// Hashing first gives equal-length buffers, so the comparison time does not depend on the input.
const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** The token of a well-formed `Authorization: Bearer <token>` header; null otherwise. */
export function presentedToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  return /^Bearer[ ]+([\x21-\x7e]+)[ ]*$/i.exec(header)?.[1] ?? null;
}

export function authenticate(header: string | undefined, tokens: readonly ApiToken[]): Caller | null | 'invalid' {
  if (header === undefined) return null;
  const token = presentedToken(header);
  if (token === null) return 'invalid';
  const presented = digest(token);
  let found: ApiToken | undefined;
  for (const t of tokens) {
    // Every token is compared, whether or not an earlier one matched.
    if (timingSafeEqual(presented, digest(t.token))) found = t;
  }
  return found ? { role: found.role, authorId: found.authorId } : 'invalid';
}

/** Query parameters that carry credentials; their values never reach the logs. */
const SECRET_PARAMS = new Set(['password', 'token', 'access_token']);

/**
 * A URL for the logs: the value of every credential parameter is masked, however its name is
 * spelled in the query (`password=`, `pass%77ord=`, `password[]=`), since the query parser decodes
 * all of them to the same parameter.
 */
export function redactCredentials(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return url;
  const pairs = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawKey = eq === -1 ? pair : pair.slice(0, eq);
      let key = rawKey;
      try {
        key = decodeURIComponent(rawKey.replaceAll('+', ' '));
      } catch {
        // A malformed escape is kept as is by the parser too.
      }
      const name = key.replace(/\[.*$/, '').trim().toLowerCase();
      return SECRET_PARAMS.has(name) ? `${rawKey}=[redacted]` : pair;
    });
  return `${url.slice(0, start + 1)}${pairs.join('&')}`;
}

const requestForLog = (req: FastifyRequest) => ({ method: req.method, url: redactCredentials(req.url), host: req.host, remoteAddress: req.ip });

/**
 * Credentials never reach the logs, whatever logger the app was given (a pino instance, Fastify
 * logger options or the defaults): every request's logger serialises the request without headers
 * (so no Authorization) and with credential query values masked.
 */
function redactRequestLogs(app: FastifyInstance): void {
  app.setChildLoggerFactory((logger, bindings, options) =>
    logger.child(bindings, { ...options, serializers: { ...options.serializers, req: requestForLog } }),
  );
}

export function installAuth(app: FastifyInstance, tokens: readonly ApiToken[]): void {
  redactRequestLogs(app);
  app.decorateRequest('caller', null);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const result = authenticate(request.headers.authorization, tokens);
    // A bad Authorization header is refused on every route: the caller meant to authenticate.
    if (result === 'invalid') throw new ForbiddenError(false);
    request.caller = result;
    if (request.routeOptions.config.access === 'write') {
      if (result === null) throw new ForbiddenError(false);
      if (result.role !== 'editor') throw new ForbiddenError(true);
    }
  });
}
