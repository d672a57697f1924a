/**
 * Turning the TypeBox route schemas into documentation: plain JSON Schema with every description in
 * the root's language (keyed by `x-i18n`, see src/i18n/index.ts), and the WordPress-style argument
 * summaries of the namespace index.
 */
import { I18N_KEYWORD, type Language, translate } from '../i18n/index.js';

export type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);

export interface PlainSchemaOptions {
  language: Language;
  /**
   * A `$ref` for a sub-schema documented once elsewhere (OpenAPI components), or undefined to
   * inline it. Called for every object node below the root.
   */
  refOf?: (node: JsonObject) => string | undefined;
}

/**
 * A JSON-only copy of a schema (TypeBox's symbol keys dropped) with translated descriptions and
 * without the `x-i18n` and `$id` keywords (an `$id` would clash once the schema appears twice).
 */
export function plainSchema(node: unknown, options: PlainSchemaOptions, isRoot = true): unknown {
  if (Array.isArray(node)) return node.map((item) => plainSchema(item, options, false));
  if (!isObject(node)) return node;
  if (!isRoot) {
    const ref = options.refOf?.(node);
    if (ref !== undefined) return { $ref: ref };
  }
  const out: JsonObject = {};
  const key = node[I18N_KEYWORD];
  // A union of literals of one type reads better (and gives Swagger UI a drop-down) as an enum.
  const literals = literalUnion(node);
  for (const [name, value] of Object.entries(node)) {
    if (name === I18N_KEYWORD || name === '$id') continue;
    if (name === 'anyOf' && literals !== undefined) {
      Object.assign(out, literals);
      continue;
    }
    if (name === 'description' && typeof key === 'string') {
      out[name] = translate(options.language, key) ?? value;
      continue;
    }
    // `properties`, `patternProperties` and `$defs` map names to schemas; their keys are not keywords.
    if ((name === 'properties' || name === 'patternProperties' || name === '$defs') && isObject(value)) {
      out[name] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainSchema(v, options, false)]));
      continue;
    }
    out[name] = isObject(value) || Array.isArray(value) ? plainSchema(value, options, false) : value;
  }
  return out;
}

/** `{ type, enum }` for `anyOf: [{ const, type }, …]` whose members share one type, else undefined. */
function literalUnion(node: JsonObject): { type: string; enum: unknown[] } | undefined {
  if (!Array.isArray(node.anyOf) || node.anyOf.length < 2) return undefined;
  const members = node.anyOf.filter(isObject);
  const type = members[0]?.type;
  if (members.length !== node.anyOf.length || typeof type !== 'string') return undefined;
  if (!members.every((m) => 'const' in m && m.type === type && Object.keys(m).length === 2)) return undefined;
  return { type, enum: members.map((m) => m.const) };
}

/** Every description below `node` that has no message key, with its JSON path (the i18n test wants none). */
export function untranslatedDescriptions(node: unknown, path = '#'): string[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => untranslatedDescriptions(item, `${path}/${i}`));
  if (!isObject(node)) return [];
  const own = typeof node.description === 'string' && typeof node[I18N_KEYWORD] !== 'string' ? [`${path}: ${node.description}`] : [];
  return [
    ...own,
    ...Object.entries(node).flatMap(([name, value]) => (isObject(value) || Array.isArray(value) ? untranslatedDescriptions(value, `${path}/${name}`) : [])),
  ];
}

/** Every message key used below `node`. */
export function messageKeysOf(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(messageKeysOf);
  if (!isObject(node)) return [];
  const own = typeof node[I18N_KEYWORD] === 'string' ? [node[I18N_KEYWORD]] : [];
  return [...own, ...Object.values(node).flatMap(messageKeysOf)];
}

/** The JSON types a value of this schema may have, most specific first. */
function typesOf(node: JsonObject): string[] {
  if (typeof node.type === 'string') return [node.type];
  if (Array.isArray(node.type)) return node.type.filter((t): t is string => typeof t === 'string');
  if (Array.isArray(node.anyOf)) return [...new Set(node.anyOf.filter(isObject).flatMap(typesOf))];
  return [];
}

/** The members of a union of literals (`Type.Union([Type.Literal('a'), …])`), else undefined. */
function literalsOf(node: JsonObject): unknown[] | undefined {
  if (Array.isArray(node.enum)) return node.enum as unknown[];
  if ('const' in node) return [node.const];
  if (!Array.isArray(node.anyOf) || node.anyOf.length === 0) return undefined;
  const members = node.anyOf.filter(isObject);
  if (members.length !== node.anyOf.length || !members.every((m) => 'const' in m)) return undefined;
  return members.map((m) => m.const);
}

const JSON_TYPES = new Set(['boolean', 'integer', 'number', 'string', 'array', 'object']);
const CONSTRAINTS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'pattern', 'maxItems'] as const;

/**
 * The argument metadata of the namespace index, as WordPress shows it: only
 * JSON-schema keywords, then `required`. Our unions are summarised the way WordPress types them:
 * a WordPress boolean or integer (which also take their string forms) by its `title`, a list as an
 * array (which also takes a comma-separated string), literals as an `enum`.
 */
export function summarizeArg(schema: unknown, required: boolean, language: Language, computedDefault?: unknown): JsonObject {
  const node = isObject(schema) ? (plainSchema(schema, { language }) as JsonObject) : {};
  const arg: JsonObject = {};
  const fallbackDefault = computedDefault ?? node.default;
  if (fallbackDefault !== undefined) arg.default = fallbackDefault;
  if (typeof node.description === 'string') arg.description = node.description;

  const literals = literalsOf(node);
  const title = typeof node.title === 'string' ? node.title : undefined;
  if (title === 'list') {
    arg.type = 'array';
    arg.items = { type: ['integer', 'string'] };
  } else if (title !== undefined && JSON_TYPES.has(title)) {
    arg.type = title;
  } else {
    const types = typesOf(node);
    if (types.length === 1) arg.type = types[0];
    else if (types.length > 1) arg.type = types;
  }
  if (typeof node.format === 'string') arg.format = node.format;
  if (literals !== undefined) arg.enum = literals;
  if (arg.type === 'array' && arg.items === undefined && isObject(node.items)) {
    const itemTypes = typesOf(node.items);
    arg.items = { type: itemTypes.length === 1 ? itemTypes[0] : itemTypes };
  }
  for (const keyword of CONSTRAINTS) if (node[keyword] !== undefined) arg[keyword] = node[keyword];
  arg.required = required;
  return arg;
}
