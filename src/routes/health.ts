import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ErrorResponseSchema } from '../schemas/common.js';
import { type Storage } from '../storage/port.js';

const LiveSchema = Type.Object({ status: Type.Literal('ok') });
const ReadySchema = Type.Object({ status: Type.Literal('ready'), engine: Type.String(), reason: Type.String() });

/** Liveness (the process answers) and readiness (storage answers too, and which engine it is). */
export const healthRoutes: FastifyPluginAsyncTypebox<{ storage: Storage }> = async (app, { storage }) => {
  app.get('/health/live', { schema: { response: { 200: LiveSchema } } }, async () => ({ status: 'ok' as const }));
  app.get('/health/ready', { schema: { response: { 200: ReadySchema, 503: ErrorResponseSchema } } }, async () => {
    await storage.ping();
    return { status: 'ready' as const, engine: storage.engine, reason: storage.reason };
  });
};
