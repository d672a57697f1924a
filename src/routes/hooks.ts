import { type FastifyRequest } from 'fastify';

/**
 * Writes ignore the generated fields a client may echo back from a representation;
 * every other unknown field is still refused by the body schema. An absent body is an empty update.
 */
export function ignoreBodyFields(fields: readonly string[]) {
  return async (request: FastifyRequest): Promise<void> => {
    if (request.body === undefined || request.body === null) {
      request.body = {};
      return;
    }
    if (typeof request.body !== 'object' || Array.isArray(request.body)) return;
    const body = request.body as Record<string, unknown>;
    for (const field of fields) delete body[field];
  };
}
