/**
 * How a request's values are validated and how a failure is reported: the Ajv options of bodies
 * (no type coercion: a JSON number is not a string) and of path and query values (strings,
 * coerced), both reporting every error, and the reference's 400 shapes naming every bad parameter.
 * Shared by the HTTP validation (src/plugins/validation.ts) and the seed import, which validates
 * its records as API bodies (src/import/schemas.ts).
 */
import { type ErrorObject } from 'ajv';
import { InvalidParamsError, MissingParamsError } from '../errors.js';

const common = { allErrors: true, strict: false, verbose: true, useDefaults: true, removeAdditional: false } as const;
/** Bodies' options. */
export const BODY_AJV_OPTIONS = { ...common, coerceTypes: false } as const;
/** Path and query values' options: strings, coerced to the schema's types. */
export const STRING_AJV_OPTIONS = { ...common, coerceTypes: 'array' } as const;

export type AjvError = ErrorObject & { parentSchema?: { title?: string } };

function paramOf(error: AjvError, context: string): string {
  const path = error.instancePath.split('/').filter(Boolean);
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty?: string }).missingProperty;
    return [...path, missing].filter(Boolean)[0] ?? context;
  }
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty?: string }).additionalProperty;
    return path[0] ?? extra ?? context;
  }
  // Nested failures (e.g. /venue/id) are reported on the top-level parameter.
  return decodeURIComponent(path[0]?.replace(/~1/g, '/').replace(/~0/g, '~') ?? context);
}

function messageOf(param: string, error: AjvError): string {
  const title = error.parentSchema?.title;
  switch (error.keyword) {
    case 'additionalProperties': {
      const extra = (error.params as { additionalProperty?: string }).additionalProperty ?? param;
      return extra === param ? `${param} is not a known parameter.` : `${param} has an unknown member "${extra}".`;
    }
    case 'anyOf':
      return title ? `${param} is not of type ${title}.` : 'Invalid parameter.';
    case 'type':
      return `${param} is not of type ${(error.params as { type?: string }).type ?? 'the expected type'}.`;
    case 'maxLength':
      return `${param} must be at most ${(error.params as { limit: number }).limit} characters long.`;
    case 'maxItems':
      return `${param} must have at most ${(error.params as { limit: number }).limit} items.`;
    case 'minLength':
      return `${param} must not be empty.`;
    case 'maximum':
    case 'minimum':
      return `${param} is out of range.`;
    default:
      return 'Invalid parameter.';
  }
}

/** Turns Fastify's validation failure into the reference's 400 shapes. */
export function validationToApiError(errors: AjvError[], context: string): MissingParamsError | InvalidParamsError {
  const missing = errors.filter((e) => e.keyword === 'required' && e.instancePath === '').map((e) => (e.params as { missingProperty: string }).missingProperty);
  if (missing.length > 0) return new MissingParamsError([...new Set(missing)]);

  const params: Record<string, string> = {};
  // Union failures report each branch too; the anyOf error (with the type title) is the useful one.
  const ranked = [...errors].sort((a, b) => Number(b.keyword === 'anyOf') - Number(a.keyword === 'anyOf'));
  for (const error of ranked) {
    const param = paramOf(error, context);
    if (!(param in params)) params[param] = messageOf(param, error);
  }
  return new InvalidParamsError(params);
}
