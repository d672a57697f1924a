/**
 * What every command of src/cli does before its work: parse the arguments, answer `--help`, read
 * the configuration; a usage or configuration problem is printed and becomes exit code 2.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Config, ConfigError, loadConfig } from '../config.js';
import { type OutputStream } from './seed-output.js';

/** A bad command line; the message is printed above the usage text. */
export class UsageError extends Error {}

export interface CliStart {
  /** The command's name, as problems are prefixed with it. */
  name: string;
  usage: string;
  /** The settings; when absent, the process's environment (read by src/config.ts). */
  env?: Record<string, string | undefined>;
  out: OutputStream;
  err: OutputStream;
}

/** The parsed arguments and the configuration, or the exit code when the command ends here. */
export function startCli<A extends { help: boolean }>(
  argv: readonly string[],
  parse: (argv: readonly string[]) => A,
  cli: CliStart,
): { args: A; config: Config } | number {
  try {
    const args = parse(argv);
    if (args.help) {
      cli.out.write(cli.usage);
      return 0;
    }
    return { args, config: loadConfig(cli.env) };
  } catch (error) {
    if (error instanceof UsageError) {
      cli.err.write(`${cli.name}: ${error.message}\n\n${cli.usage}`);
      return 2;
    }
    if (error instanceof ConfigError) {
      cli.err.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

/**
 * Runs a command when its module is the process's entry point (not when a test imports it): the
 * exit code becomes the process's; an unexpected error is printed with its stack and exits 1.
 */
export function runIfMain(moduleUrl: string, name: string, command: (argv: readonly string[]) => Promise<number>): void {
  if (process.argv[1] === undefined || fileURLToPath(moduleUrl) !== path.resolve(process.argv[1])) return;
  command(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
