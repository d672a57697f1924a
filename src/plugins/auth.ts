/**
 * Bearer-token authentication. Tokens come from API_TOKENS; they are compared in
 * constant time and never logged (src/logger.ts keeps credentials out of the logs). Write routes
 * declare `config: { access: 'write' }`; an anonymous or invalid caller is refused in `onRequest`,
 * before the body is even parsed.
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

export function installAuth(app: FastifyInstance, tokens: readonly ApiToken[]): void {
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
