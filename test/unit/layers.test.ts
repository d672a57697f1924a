/**
 * The layering of docs/architecture.md, checked on the code: every import between two of our
 * modules must be one the layer table allows. A run-time import may only go to a layer the
 * importer is allowed to use; a type-only import (which leaves no run-time edge) may also name the
 * few higher-layer types listed in TYPE_ONLY_UP.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT, sourceFiles } from '../helpers/source-files.js';

type Layer =
  | 'top'
  | 'plugins'
  | 'routes'
  | 'docs'
  | 'schemas'
  | 'serialize'
  | 'import'
  | 'services'
  | 'query'
  | 'port'
  | 'engines'
  | 'indexes'
  | 'config'
  | 'errors'
  | 'i18n'
  | 'lib';

/** A module's layer, from its path relative to the repository (extension left out). */
export function layerOf(module: string): Layer {
  const parts = module.split('/');
  if (parts[0] === 'indexes') return 'indexes';
  if (parts[0] !== 'src') throw new Error(`${module} is outside src/ and indexes/`);
  const [, first, second] = parts;
  if (parts.length === 2) {
    if (first === 'config' || first === 'errors') return first;
    // The warm-up injects requests into the app before it reports ready, beside the plugins.
    if (first === 'warm-up') return 'plugins';
    return 'top';
  }
  if (first === 'storage') return second === 'port' ? 'port' : 'engines';
  if (first === 'cli') return 'top';
  return first as Layer;
}

const BASE: Layer[] = ['config', 'errors', 'i18n', 'lib'];
/** What each layer may import at run time (besides itself). */
const ALLOWED: Record<Layer, Layer[]> = {
  top: ['plugins', 'routes', 'docs', 'schemas', 'serialize', 'import', 'services', 'query', 'port', 'engines', 'indexes', ...BASE],
  plugins: ['services', 'schemas', 'port', ...BASE],
  routes: ['docs', 'schemas', 'serialize', 'services', 'query', 'port', ...BASE],
  docs: ['schemas', 'query', 'port', ...BASE],
  schemas: ['query', 'port', ...BASE],
  serialize: ['schemas', 'query', 'port', ...BASE],
  import: ['schemas', 'services', 'query', 'port', 'indexes', ...BASE],
  services: ['query', 'port', 'indexes', ...BASE],
  query: ['port', ...BASE],
  port: ['errors'],
  engines: ['port', 'indexes', ...BASE],
  indexes: ['port'],
  config: ['lib'],
  errors: ['i18n'],
  i18n: [],
  lib: [],
};
/**
 * Modules any layer on the HTTP side may import: the API's addressing (namespace and language
 * roots) is one rule shared by routes, plugins, documents and schemas.
 */
const SHARED_WITH_HTTP: Record<string, Layer[]> = {
  'src/routes/roots': ['plugins', 'docs', 'schemas'],
};
/** Higher-layer types a lower layer may name, with `import type` (no run-time edge). */
const TYPE_ONLY_UP: Record<string, Layer[]> = {
  // Who is asking decides which statuses a query may match.
  'src/services/access': ['query'],
  // The relations an event is served with are gathered by the service for the serializer.
  'src/serialize/events': ['services'],
  // So are the events and series of a feed.
  'src/serialize/ics/calendar': ['services'],
  // Request bodies are typed by their schemas.
  'src/schemas/events': ['services'],
  'src/schemas/venues': ['services'],
  'src/schemas/organizers': ['services'],
  'src/schemas/terms': ['services'],
  'src/schemas/common': ['services'],
};

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

const withoutExtension = (file: string) => path.relative(ROOT, file).replace(/\.(ts|js)$/, '');

/** Our own modules a file imports or re-exports, and whether only types cross. */
export function edgesOf(file: string, text = readFileSync(file, 'utf8')): Edge[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const edges: Edge[] = [];
  for (const statement of source.statements) {
    const declaration = ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ? statement : null;
    const specifier = declaration?.moduleSpecifier;
    if (declaration === null || specifier === undefined || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
    let typeOnly: boolean;
    if (ts.isImportDeclaration(declaration)) {
      const clause = declaration.importClause;
      const named = clause?.namedBindings;
      typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            named !== undefined &&
            ts.isNamedImports(named) &&
            named.elements.length > 0 &&
            named.elements.every((e) => e.isTypeOnly)));
    } else {
      typeOnly = declaration.isTypeOnly;
    }
    edges.push({ from: withoutExtension(file), to: withoutExtension(path.resolve(path.dirname(file), specifier.text)), typeOnly });
  }
  return edges;
}

function allowed({ from, to, typeOnly }: Edge): boolean {
  const a = layerOf(from);
  const b = layerOf(to);
  if (a === b || ALLOWED[a].includes(b)) return true;
  if (SHARED_WITH_HTTP[to]?.includes(a)) return true;
  return typeOnly && (TYPE_ONLY_UP[to]?.includes(a) ?? false);
}

const edges = ['src', 'indexes'].flatMap((dir) => sourceFiles(path.join(ROOT, dir))).flatMap((file) => edgesOf(file));

describe('layers (docs/architecture.md)', () => {
  it('reads the imports of the code base', () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(edges).toContainEqual({ from: 'src/routes/events', to: 'src/serialize/events', typeOnly: false });
  });

  it('classifies modules and import kinds', () => {
    expect(layerOf('src/storage/port')).toBe('port');
    expect(layerOf('src/storage/embedded/planner')).toBe('engines');
    expect(layerOf('src/cli/seed')).toBe('top');
    expect(layerOf('src/lib/dates/parse')).toBe('lib');
    const text = [
      "import { type A } from './a.js';",
      "import { B, type C } from './b.js';",
      "import type D from './d.js';",
      "export type { E } from './e.js';",
    ].join('\n');
    expect(edgesOf(path.join(ROOT, 'src/x.ts'), text).map((e) => [e.to, e.typeOnly])).toEqual([
      ['src/a', true],
      ['src/b', false],
      ['src/d', true],
      ['src/e', true],
    ]);
  });

  it('no module imports a layer it may not use', () => {
    const refused = edges.filter((edge) => !allowed(edge)).map((e) => `${e.from} → ${e.to}${e.typeOnly ? ' (types)' : ''}`);
    expect(refused).toEqual([]);
  });
});
