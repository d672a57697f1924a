/**
 * Deployment files, checked statically: no Docker engine is needed (nor usually
 * available to the test run). The Dockerfile is parsed into instructions, compose.yaml with a YAML
 * parser; each requirement is an assertion.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigSchema } from '../../src/config.js';
import { scriptNodeFlags } from '../../bench/server-process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (name: string) => readFileSync(`${root}${name}`, 'utf8');

interface Instruction {
  keyword: string;
  args: string;
  stage: string;
}

/** Dockerfile instructions (continuation lines joined, comments dropped), with their build stage. */
function instructions(text: string): Instruction[] {
  const joined = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ');
  const result: Instruction[] = [];
  let stage = '';
  for (const line of joined.split('\n')) {
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!match) continue;
    const keyword = (match[1] as string).toUpperCase();
    const args = (match[2] as string).trim();
    if (keyword === 'FROM') stage = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? '';
    result.push({ keyword, args, stage });
  }
  return result;
}

describe('Dockerfile', () => {
  const steps = instructions(read('Dockerfile'));
  const stages = steps.filter((s) => s.keyword === 'FROM');
  const final = steps.filter((s) => s.stage === stages.at(-1)?.stage);

  it('is a multi-stage build on node:20-slim', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const from of stages) expect(from.args).toMatch(/^node:(20|22)-slim\b/);
    // Every COPY --from names an earlier stage.
    const names = stages.map((s) => s.stage);
    for (const copy of steps.filter((s) => s.keyword === 'COPY' && s.args.includes('--from='))) {
      const from = /--from=(\S+)/.exec(copy.args)?.[1] as string;
      expect(names.indexOf(from)).toBeGreaterThanOrEqual(0);
      expect(names.indexOf(from)).toBeLessThan(names.indexOf(copy.stage));
    }
  });

  it('installs production dependencies with npm ci --omit=dev for the final image', () => {
    expect(steps.some((s) => s.keyword === 'RUN' && /npm ci\b.*--omit=dev/.test(s.args))).toBe(true);
    // The final stage runs nothing from the dev toolchain: it copies node_modules from that stage.
    const modules = final.find((s) => s.keyword === 'COPY' && s.args.includes('node_modules'));
    const depsStage = /--from=(\S+)/.exec(modules?.args ?? '')?.[1];
    expect(steps.some((s) => s.stage === depsStage && /npm ci\b.*--omit=dev/.test(s.args))).toBe(true);
  });

  it('runs the compiled server as the unprivileged node user, listening on all interfaces', () => {
    const user = final.filter((s) => s.keyword === 'USER').at(-1);
    expect(user?.args).toBe('node');
    expect(final.some((s) => s.keyword === 'ENV' && /\bHOST=0\.0\.0\.0\b/.test(s.args))).toBe(true);
    const cmd = final.find((s) => s.keyword === 'CMD');
    // The same V8 options as `npm start` (heap growth, README "Memory").
    const flags = scriptNodeFlags('start');
    expect(flags).toEqual(expect.arrayContaining(['--heap-growing-percent=100', '--max-semi-space-size=32']));
    expect(JSON.parse(cmd?.args ?? '[]')).toEqual(['node', ...flags, 'dist/src/server.js']);
    // The compiled server finds the seeds next to dist/ (src/cli/seed.ts defaultSeedsDir).
    expect(final.some((s) => s.keyword === 'COPY' && /\bseeds\s+\.\/seeds\b/.test(s.args))).toBe(true);
  });

  it('checks health with Node itself (no curl), on the readiness route', () => {
    const check = final.find((s) => s.keyword === 'HEALTHCHECK');
    expect(check?.args).not.toMatch(/curl|wget/);
    const command = JSON.parse(check?.args.slice(check.args.indexOf('CMD') + 3).trim() ?? '[]') as string[];
    expect(command.slice(0, 2)).toEqual(['node', '-e']);
    expect(command[2]).toContain('/health/ready');
    // The script is valid JavaScript.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- compiled to check its syntax, never run
    expect(() => new Function(command[2] as string)).not.toThrow();
  });

  it("gets lmdb's native binary prebuilt for the image's platforms (the slim image has no compiler)", () => {
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { version?: string; os?: string[]; cpu?: string[] }> };
    const lmdb = lock.packages['node_modules/lmdb'];
    expect(lmdb?.version).toBeDefined();
    for (const cpu of ['x64', 'arm64']) {
      const prebuilt = lock.packages[`node_modules/@lmdb/lmdb-linux-${cpu}`];
      expect(prebuilt, cpu).toMatchObject({ version: lmdb?.version, os: ['linux'], cpu: [cpu] });
    }
  });

  it('copies only files that exist, and .dockerignore keeps them in the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    for (const copy of steps.filter((s) => s.keyword === 'COPY' && !s.args.includes('--from='))) {
      const parts = copy.args.split(/\s+/).filter((p) => !p.startsWith('--'));
      for (const source of parts.slice(0, -1)) {
        expect(existsSync(`${root}${source}`), source).toBe(true);
        expect(ignored, source).not.toContain(source);
      }
    }
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git', 'data', '.env']));
    // npm run build compiles exactly what the build stage copies.
    const build = JSON.parse(read('tsconfig.build.json')) as { include: string[] };
    for (const dir of build.include) expect(steps.some((s) => s.keyword === 'COPY' && s.stage === 'build' && s.args.startsWith(`${dir} `))).toBe(true);
  });
});

describe('compose.yaml', () => {
  const compose = parse(read('compose.yaml')) as {
    services: Record<
      string,
      {
        image?: string;
        build?: unknown;
        command?: string[];
        healthcheck?: { test: string[] };
        depends_on?: Record<string, { condition: string }>;
        environment?: Record<string, string>;
        ports?: string[];
      }
    >;
  };
  const { mongo, api } = compose.services;

  it('runs MongoDB 7 as a single-node replica set, initiated once by its health check', () => {
    expect(mongo?.image).toBe('mongo:7');
    expect(mongo?.command?.join(' ')).toMatch(/--replSet rs0/);
    const test = mongo?.healthcheck?.test ?? [];
    expect(test[0]).toBe('CMD');
    expect(test).toContain('mongosh');
    const script = test.at(-1) as string;
    expect(script).toContain("rs.initiate({ _id: 'rs0'");
    expect(script).toContain("host: 'mongo:27017'");
    // Initiated only when rs.status() says there is no replica set yet.
    expect(script.indexOf('rs.status()')).toBeLessThan(script.indexOf('rs.initiate'));
    expect(script).toContain('isWritablePrimary');
  });

  it('runs the service against it once healthy, with API_TOKENS from the environment', () => {
    expect(api?.build).toBeDefined();
    expect(api?.depends_on?.mongo?.condition).toBe('service_healthy');
    expect(api?.environment?.MONGODB_URI).toBe('mongodb://mongo:27017/?replicaSet=rs0');
    expect(api?.environment?.API_TOKENS).toMatch(/^\$\{API_TOKENS:\?/);
    expect(api?.ports?.some((p) => p.endsWith(':3000'))).toBe(true);
    // Every variable the service reads is a setting of src/config.ts's schema.
    for (const name of Object.keys(api?.environment ?? {})) expect(Object.keys(ConfigSchema.properties), name).toContain(name);
  });
});
