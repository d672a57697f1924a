/**
 * The `Idempotency-Key` header of the create routes (the rule is in src/services/idempotency.ts).
 * A route opts in with `config: { idempotency: <its id sequence> }`; this plugin gives every such
 * route the same three hooks, the header's schema (for the documentation) and the 422 answer:
 *
 * - preValidation: a malformed key is a 400 naming the header (before anything is looked up);
 * - preHandler: the key is looked up, after authentication and body validation. A stored success is
 *   answered again at once (`Idempotent-Replayed: true`); otherwise the request runs under a claim
 *   and the handler creates its resource under `request.reservedId`;
 * - onSend: the answer, as sent, is recorded against the claim.
 *
 * Without the header none of this does anything. Must be installed before the routes are registered.
 */
import { type FastifyInstance, type FastifyReply, type FastifyRequest, type RouteOptions } from 'fastify';
import { InvalidParamsError } from '../errors.js';
import { ErrorResponseSchema, IDEMPOTENCY_KEY_MAX_LENGTH, IdempotencyHeadersSchema } from '../schemas/common.js';
import { apiPathOf, isCompatRequest, rootOf } from '../routes/roots.js';
import { credentialScope, type IdempotencyClaim, type IdempotencyService, requestFingerprint } from '../services/idempotency.js';
import { type SequenceName } from '../storage/port.js';
import { presentedToken } from './auth.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A create route: the id sequence of what it creates. It then honours `Idempotency-Key`. */
    idempotency?: SequenceName;
  }
  interface FastifyRequest {
    /** The id a create with an Idempotency-Key must store its resource under; null otherwise. */
    reservedId: number | null;
  }
}

const HEADER = 'idempotency-key';
/** Visible ASCII (no spaces, so a repeated header, which Node joins with ", ", is refused too). */
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
const JSON_TYPE = 'application/json; charset=utf-8';

/** A route's hooks of one kind (none, one or a list) with `hook` run after them. */
function appended<H>(hooks: H | H[] | undefined, hook: H): H[] {
  return [...(hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]), hook];
}

function keyOf(request: FastifyRequest): string | undefined {
  const value = request.headers[HEADER];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > IDEMPOTENCY_KEY_MAX_LENGTH || !VISIBLE_ASCII.test(value)) {
    throw new InvalidParamsError({ 'Idempotency-Key': `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters (no spaces).` });
  }
  return value;
}

/**
 * The route with the path it was called under (`/de/calendar/events/v1/events`,
 * `/wp-json/tribe/events/v1/events`): the answer's links are that path's, so a key sent again
 * under another root or the drop-in path is another request (422).
 */
function fingerprintPath(request: FastifyRequest): string {
  const route = request.routeOptions.url ?? request.url;
  return isCompatRequest(request) ? `${apiPathOf(request)} ${route}` : `${rootOf(request)}${route}`;
}

export function installIdempotency(app: FastifyInstance, service: IdempotencyService): void {
  app.decorateRequest('reservedId', null);
  const claims = new WeakMap<FastifyRequest, IdempotencyClaim>();

  const checkKey = async (request: FastifyRequest): Promise<void> => {
    keyOf(request);
  };

  const begin = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const key = keyOf(request);
    const sequence = request.routeOptions.config.idempotency;
    // Write routes run for an authenticated editor only (src/plugins/auth.ts), so a token is there.
    const token = presentedToken(request.headers.authorization);
    if (key === undefined || sequence === undefined || token === null) return undefined;
    const start = await service.begin({
      scope: credentialScope(token),
      key,
      fingerprint: requestFingerprint(request.method, fingerprintPath(request), request.body),
      sequence,
    });
    if (start.kind === 'replay') {
      return reply.code(start.status).header('idempotent-replayed', 'true').type(JSON_TYPE).send(start.body);
    }
    claims.set(request, start.claim);
    request.reservedId = start.claim.reservedId;
    return undefined;
  };

  const finish = async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const claim = claims.get(request);
    if (claim === undefined) return payload;
    claims.delete(request);
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
    try {
      await service.finish(claim, reply.statusCode, body);
    } catch (error) {
      // The answer stands; the claim's lock runs out and the next attempt finds the resource.
      request.log.warn({ err: error }, 'idempotency record not updated');
    }
    return payload;
  };

  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.config?.idempotency === undefined) return;
    const schema = route.schema ?? {};
    route.schema = { ...schema, headers: IdempotencyHeadersSchema, response: { ...(schema.response as object | undefined), 422: ErrorResponseSchema } };
    route.preValidation = appended(route.preValidation, checkKey as never);
    route.preHandler = appended(route.preHandler, begin as never);
    route.onSend = appended(route.onSend, finish as never);
  });
}
