import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export { freePort, freePorts } from '../packages/channels/src/testing/free-ports.ts';

/**
 * The environment of a reference server under benchmark: a SQLite file, the simulator at zero
 * latency, rate limits raised, and a bootstrap account `bench` with the API key `key`, the
 * alpha-name `Bench` and `balance`.
 */
export function benchServerEnv(options: { db: string; port: number; key: string; balance: number }): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: '',
    SPILLWAY_DB: options.db,
    PORT: String(options.port),
    SPILLWAY_LOG_LEVEL: 'silent',
    SPILLWAY_SIMULATOR_LATENCY_MS: '0',
    SPILLWAY_RATE_MESSAGING: '1000000/1000000',
    SPILLWAY_RATE_DATA: '1000000/1000000',
    SPILLWAY_BOOTSTRAP_LOGIN: 'bench',
    SPILLWAY_BOOTSTRAP_PASSWORD: 'bench-password',
    SPILLWAY_BOOTSTRAP_API_KEY: options.key,
    SPILLWAY_BOOTSTRAP_ALPHA_NAMES: 'Bench',
    SPILLWAY_BOOTSTRAP_BALANCE: String(options.balance),
  };
}

const built = new Set<string>();

/**
 * The node arguments that run the reference server of the checkout at `root` as users run it in
 * production (`pnpm start`): its built JavaScript, brought up to date once per run
 * (`tsc -b tsconfig.build.json`), with the node options of the checkout's `start` script (the
 * young generation's size). A checkout without a build (older ones measured for before/after
 * figures) runs from its TypeScript sources through tsx.
 */
export function serverArgs(root: string): string[] {
  if (!existsSync(join(root, 'tsconfig.build.json'))) {
    return ['--conditions=@spillway/source', '--import', 'tsx', join(root, 'apps/server/src/cli.ts'), 'serve'];
  }
  if (!built.has(root)) {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'], {
      cwd: root,
      stdio: 'inherit',
    });
    built.add(root);
  }
  return [...startNodeOptions(root), join(root, 'apps/server/dist/cli.js'), 'serve'];
}

/** The options `pnpm start` gives node in the checkout at `root` (`node --a --b apps/server/dist/cli.js serve`). */
function startNodeOptions(root: string): string[] {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  const options = /\bnode((?:\s+--\S+)*)\s+apps\/server\/dist\/cli\.js serve/.exec(scripts?.start ?? '')?.[1];
  return options ? options.trim().split(/\s+/) : [];
}
