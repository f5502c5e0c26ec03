import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { SPILLWAY_CLI } from './spillway-command.ts';

const run = promisify(execFile);

/**
 * Runs `spillway <args>` (built, see {@link SPILLWAY_CLI}) with `env` over the test's environment. Resolves with its
 * output; a non-zero exit rejects with execFile's error, which carries `code` and `stdout`.
 * `timeoutMs` kills a command that does not end (its error's `killed` is then true).
 */
export function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  { timeoutMs }: { timeoutMs?: number } = {},
): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [...SPILLWAY_CLI, ...args], {
    env: { ...process.env, ...env },
    ...(timeoutMs !== undefined ? { timeout: timeoutMs, killSignal: 'SIGKILL' as const } : {}),
  });
}

/** Runs `spillway <args>` against the SQLite file `db`; its stdout parsed as JSON. */
export async function cli(db: string, ...args: string[]): Promise<any> {
  const { stdout } = await runCli(args, { DATABASE_URL: '', SPILLWAY_DB: db, SPILLWAY_LOG_LEVEL: 'silent' });
  return JSON.parse(stdout);
}
