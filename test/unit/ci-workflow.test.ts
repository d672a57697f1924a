/**
 * The forge workflow (.github/workflows/ci.yml) cannot run here; this checks it says what the
 * project promises: .ci/run on every supported Node.js line, and the MongoDB suites on 7.0 and 8.0,
 * one of them a replica set, with a server URI so `npm run test:mongodb` cannot silently skip. And
 * .ci/run itself runs every check, the smoke test of the compiled server before the slow suite.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

interface Step {
  run?: string;
  uses?: string;
  env?: Record<string, string>;
}
interface Job {
  strategy?: { matrix?: Record<string, unknown> };
  services?: Record<string, { image: string; ports?: string[] }>;
  steps: Step[];
}

const workflow = parse(readFileSync(new URL('../../.github/workflows/ci.yml', import.meta.url), 'utf8')) as { on: unknown; jobs: Record<string, Job> };
const runs = (job: Job) => job.steps.map((step) => step.run ?? '').join('\n');
const engines = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }).engines.node;

describe('CI workflow', () => {
  it('runs .ci/run on Node 20, 22 and 24', () => {
    const checks = workflow.jobs.checks;
    expect(checks?.strategy?.matrix?.node).toEqual(['20', '22', '24']);
    expect(runs(checks!)).toContain('bash .ci/run');
    expect(engines).toBe('>=20.19');
  });

  it('runs npm run test:mongodb against MongoDB 7.0 and 8.0 service containers', () => {
    const job = workflow.jobs.mongodb!;
    expect(job.strategy?.matrix?.mongo).toEqual(['7.0', '8.0']);
    expect(job.services?.mongodb?.image).toBe('mongo:${{ matrix.mongo }}');
    expect(job.services?.mongodb?.ports).toEqual(['27017:27017']);
    const test = job.steps.find((step) => step.run === 'npm run test:mongodb');
    expect(test?.env?.MONGODB_URI).toBe('mongodb://127.0.0.1:27017');
  });

  it('runs the same suites on a single-node replica set, started with --replSet and initiated', () => {
    const job = workflow.jobs['mongodb-replica-set']!;
    const script = runs(job);
    expect(script).toMatch(/docker run .*mongo:8\.0 --replSet rs0/);
    expect(script).toContain('rs.initiate(');
    const test = job.steps.find((step) => step.run === 'npm run test:mongodb');
    expect(test?.env?.MONGODB_URI).toBe('mongodb://127.0.0.1:27017/?replicaSet=rs0');
  });

  it('.ci/run lints, checks the format and types, builds, smoke-tests the build, then tests', () => {
    const steps = readFileSync(new URL('../../.ci/run', import.meta.url), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('npm '));
    expect(steps).toEqual([
      'npm ci --no-audit --no-fund',
      'npm run lint',
      'npm run format:check',
      'npm run typecheck',
      'npm run build',
      'npm run smoke',
      'npm test',
    ]);
  });

  it('npm run test:mongodb runs the contract and route suites on MongoDB only', () => {
    const scripts = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['test:mongodb']).toMatch(/CALENDAR_TEST_ENGINES=mongodb .*test\/contract test\/routes/);
  });
});
