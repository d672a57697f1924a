// @ts-check
/**
 * ESLint for the whole repository: ESLint's and typescript-eslint's recommended rules, with type
 * information (one TypeScript program per tsconfig, found by the project service), so promises
 * left unawaited or passed where nothing awaits them are caught in src/ and in the tests alike.
 * Formatting is Prettier's alone: eslint-config-prettier, last, turns off every rule it decides.
 */
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', 'coverage/', 'data/', 'seeds/', 'test/fixtures/'] },

  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Off: an async function without await is how this code implements a Promise-returning
      // interface (storage port, Fastify plugins and hooks): a throw then becomes a rejection.
      '@typescript-eslint/require-await': 'off',
      // Relaxed: a leading underscore marks a name unused on purpose, and a rest sibling drops keys.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Project rules for production code: named exports only, and the environment is read by
    // src/config.ts alone (it validates every setting once).
    files: ['src/**/*.ts', 'indexes/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Only src/config.ts reads process.env.' }],
    },
  },
  {
    // The one reader of the environment.
    files: ['src/config.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Off in tests: vitest's asymmetric matchers (expect.any, expect.stringMatching, …) are typed
      // `any`, and the objects the tests compare are built from them.
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
  {
    // This file itself is in no tsconfig: it is linted without type information.
    files: ['**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  prettier,
);
