// Builds the designer when its build is missing or older than its sources, so that
// `pnpm start` on a fresh clone serves /designer/ without a separate step.
import { existsSync, readdirSync, statSync } from 'node:fs';
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
export async function buildIfStale(): Promise<boolean> {
  const built = join(root, 'dist', 'index.html');
  const sources = Math.max(
    newest(join(root, 'src')),
    statSync(join(root, 'index.html')).mtimeMs,
    newest(join(root, '..', '..', 'packages', 'core', 'src')),
  );
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return false;
  const { build } = await import('vite');
  await build({ root, configFile: join(root, 'vite.config.ts'), logLevel: 'warn' });
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  if (await buildIfStale()) console.log(`designer built in ${Date.now() - started} ms`);
}
