import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { ErrorResponseSchema } from '../schemas/common.js';
import { type Storage } from '../storage/port.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A health probe: its request lines are logged at debug (ProbeQuietLogController). */
    probe?: boolean;
  }
}

const LiveSchema = Type.Object({ status: Type.Literal('ok') });
const ReadySchema = Type.Object({ status: Type.Literal('ready'), engine: Type.String(), reason: Type.Optional(Type.String()) });

export interface HealthRoutesOptions {
  storage: Storage;
  /** HEALTH_DETAILS: readiness tells every caller why the engine was chosen, not only token holders. */
  details: boolean;
}

/**
 * Liveness (the process answers) and readiness (storage answers too, and which engine it is).
 * Why the engine was chosen names the data directory or the `mongod` binary: a detail of the
 * deployment told only to callers with a token, unless HEALTH_DETAILS says everyone may know.
 */
export const healthRoutes: FastifyPluginAsyncTypebox<HealthRoutesOptions> = async (app, { storage, details }) => {
  const config = { probe: true };
  // A probe's answer is the state of this moment: never reused, nor revalidated.
  app.addHook('onRequest', async (_request, reply) => {
    void reply.header('cache-control', 'no-store');
  });
  app.get('/health/live', { config, schema: { response: { 200: LiveSchema } } }, async () => ({ status: 'ok' as const }));
  app.get('/health/ready', { config, schema: { response: { 200: ReadySchema, 503: ErrorResponseSchema } } }, async (request) => {
    await storage.ping();
    const ready = { status: 'ready' as const, engine: storage.engine };
    return details || request.caller !== null ? { ...ready, reason: storage.reason } : ready;
  });
};

// A request no route matched has no route config.
const isProbe = (request: FastifyRequest) => request.routeOptions?.config?.probe === true;

/**
 * Fastify's request lines, with those of health probes at debug instead of info: an orchestrator
 * probes every few seconds, and at info its probes would bury the requests people make. A probe
 * that errors is still logged as Fastify logs any error. (A route's own `logLevel` cannot do this:
 * it sets the level below which the route logs nothing, not the level its lines are written at.)
 */
export class ProbeQuietLogController extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    if (!isProbe(request)) return super.incomingRequest(request, reply, metadata);
    if (!this.isLogDisabled(request)) request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    if (error || !isProbe(request)) return super.requestCompleted(error, request, reply, metadata);
    if (!this.isLogDisabled(request)) reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
