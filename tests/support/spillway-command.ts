import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

/**
 * The arguments after `node` that run `spillway`: the server's built CLI, as `pnpm start` and
 * users run it. The test run's global setup (`tests/support/build.ts`) builds it first when a
 * source changed, so a child process never runs stale code; under tsx from source a command took
 * 2.2-3.4 s to start against 1.0 s built, and the CLI and process tests run a few hundred.
 */
export const SPILLWAY_CLI: readonly string[] = [join(root, 'apps/server/dist/cli.js')];
