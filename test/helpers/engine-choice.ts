/**
 * CALENDAR_TEST_ENGINES: which engines the suites must cover (`mongodb` for `npm run test:mongodb`).
 * A setting of the test harness alone, so it is read here and not in src/config.ts, whose settings
 * are the product's.
 */
export type TestEngineChoice = 'all' | 'mongodb' | 'embedded';

const CHOICES: readonly TestEngineChoice[] = ['all', 'mongodb', 'embedded'];

/** The choice in `env` (the process's environment by default); blank means `all`. */
export function testEngineChoice(env: Record<string, string | undefined> = process.env): TestEngineChoice {
  const raw = env.CALENDAR_TEST_ENGINES?.trim() ?? '';
  if (raw === '') return 'all';
  if (!(CHOICES as readonly string[]).includes(raw)) {
    throw new Error(`Invalid configuration: CALENDAR_TEST_ENGINES must be one of ${CHOICES.join(', ')} (got "${raw}")`);
  }
  return raw as TestEngineChoice;
}
