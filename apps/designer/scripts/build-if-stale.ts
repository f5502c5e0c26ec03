// Builds the designer when its build is missing or older than its sources, so that
// `pnpm start` on a fresh clone serves /designer/ without a separate step.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/** Builds unless dist/index.html is newer than every source (the designer's and core's); answers whether it built. */
export function buildIfStale(): boolean {
  const built = join(root, 'dist', 'index.html');
  const sources = Math.max(
    newest(join(root, 'src')),
    statSync(join(root, 'index.html')).mtimeMs,
    newest(join(root, '..', '..', 'packages', 'core', 'src')),
  );
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return false;
  // A process of its own with NODE_ENV=production: inside a test runner (NODE_ENV=test, a Vite of
  // its own) an in-process build would come out as a development bundle.
  const vite = join(dirname(createRequire(join(root, 'package.json')).resolve('vite/package.json')), 'bin', 'vite.js');
  const run = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (run.status !== 0) throw new Error(`the designer's build failed (exit ${run.status ?? run.signal})`);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  if (buildIfStale()) console.log(`designer built in ${Date.now() - started} ms`);
}
