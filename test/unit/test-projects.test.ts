/**
 * Every test file belongs to a vitest project (vitest.config.ts): a file no project includes is
 * silently never run.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import config from '../../vitest.config.js';
import { ROOT, sourceFiles } from '../helpers/source-files.js';

const includes = (config.test?.projects ?? []).flatMap((project) =>
  typeof project === 'object' && project !== null && 'test' in project ? (project.test?.include ?? []) : [],
);
/** The folders the projects include, from globs of the form `test/<folder>/**\/*.test.ts`. */
const folders = includes.map((glob) => /^test\/([^/*]+)\/\*\*\/\*\.test\.ts$/.exec(glob)?.[1] ?? `unreadable glob ${glob}`);

describe('vitest projects', () => {
  it('include every test file', () => {
    expect(folders.length).toBeGreaterThanOrEqual(4);
    expect(folders.filter((folder) => folder.startsWith('unreadable'))).toEqual([]);
    const tests = sourceFiles(path.join(ROOT, 'test'))
      .map((file) => path.relative(path.join(ROOT, 'test'), file))
      .filter((file) => file.endsWith('.test.ts'));
    expect(tests.length).toBeGreaterThan(100);
    expect(tests.filter((file) => !folders.includes(file.split(path.sep)[0]!))).toEqual([]);
  });
});
