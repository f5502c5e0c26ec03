import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// `pnpm test:packaging`: builds, packs and installs the packages into an app outside the workspace.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['tests/packaging/pack.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 900_000,
  },
});
