import { describe, expect, it } from 'vitest';
import { nodeFlagsOf, scriptNodeFlags } from '../../bench/server-process.js';

describe('the Node options of an npm script (bench/server-process.ts)', () => {
  it('keeps the -- options and leaves out the TypeScript loader and its argument', () => {
    expect(nodeFlagsOf('DATA_DIR=${DATA_DIR-./data} node --import tsx --max-semi-space-size=64 --v8-pool-size=0 src/cli/seed.ts')).toEqual([
      '--max-semi-space-size=64',
      '--v8-pool-size=0',
    ]);
    expect(nodeFlagsOf('tsx --heap-growing-percent=100 src/server.ts')).toEqual(['--heap-growing-percent=100']);
    expect(nodeFlagsOf('node src/server.ts')).toEqual([]);
  });

  it("reads package.json's start and seed scripts", () => {
    expect(scriptNodeFlags('start')).toEqual(expect.arrayContaining(['--heap-growing-percent=100', '--max-semi-space-size=32']));
    expect(scriptNodeFlags('seed')).toEqual(expect.arrayContaining(['--v8-pool-size=0']));
    for (const flags of [scriptNodeFlags('start'), scriptNodeFlags('seed')]) {
      expect(flags).not.toContain('--import');
      expect(flags).not.toContain('tsx');
    }
  });
});
