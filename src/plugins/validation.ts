/**
 * Request validation: bodies, path and query values are validated with the options of
 * src/schemas/validation.ts, which also turns a failure into the 400 that names every bad parameter.
 */
import { Ajv } from 'ajv';
import { type FastifyInstance } from 'fastify';
import { BODY_AJV_OPTIONS, STRING_AJV_OPTIONS } from '../schemas/validation.js';

const bodyAjv = new Ajv(BODY_AJV_OPTIONS);
const stringAjv = new Ajv(STRING_AJV_OPTIONS);

export function installValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv.compile(schema) : stringAjv.compile(schema)));
}
