import { defineConfig } from 'vitest/config';

/** What every project shares (inline projects do not inherit the root's test options). */
const common = {
  environment: 'node',
  testTimeout: 20_000,
  hookTimeout: 60_000,
} as const;

export default defineConfig({
  test: {
    // Decides once per run where MongoDB comes from (and starts one in-memory server if need be);
    // the root's provided context reaches every project.
    globalSetup: ['test/helpers/global-setup.ts'],
    maxWorkers: 2,
    // `npm run coverage` only (npm test runs without it). The thresholds are the level the suite
    // reaches, rounded down to a whole percent: a change that drops below fails the run.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'indexes/**/*.ts'],
      reporter: ['text-summary', 'html'],
      thresholds: { lines: 95, functions: 94, branches: 87, statements: 92 },
    },
    projects: [
      {
        test: {
          ...common,
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/services/**/*.test.ts', 'test/import/**/*.test.ts'],
          pool: 'forks',
          isolate: false,
        },
      },
      {
        test: {
          ...common,
          name: 'contract',
          include: ['test/contract/**/*.test.ts'],
          pool: 'forks',
          isolate: false,
        },
      },
      {
        test: {
          ...common,
          name: 'routes',
          include: ['test/routes/**/*.test.ts', 'test/hardening/**/*.test.ts'],
          pool: 'forks',
          isolate: false,
        },
      },
      {
        test: {
          ...common,
          name: 'processes',
          include: ['test/cli/**/*.test.ts', 'test/durability/**/*.test.ts'],
          pool: 'forks',
          isolate: false,
        },
      },
    ],
  },
});
