import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The workspace packages resolve to their TypeScript sources through the `@spillway/source`
// export condition (docs/decisions.md): tests never need a build first.
const SOURCE = '@spillway/source';
// Vite's own defaults (defaultServerConditions of 'vite', which is not a root dependency) after it.
const NODE_CONDITIONS = [SOURCE, 'module', 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions: NODE_CONDITIONS },
  ssr: { resolve: { conditions: NODE_CONDITIONS, externalConditions: [SOURCE] } },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'apps/*/src/**/*.test.ts',
      'apps/*/test/**/*.test.ts',
      'examples/*/test/**/*.test.ts',
      'tests/**/*.test.ts',
    ],
    // The packaging test builds, packs and installs the packages: a step of its own (`pnpm test:packaging`).
    exclude: ['**/node_modules/**', 'tests/packaging/pack.test.ts'],
    // Builds what the tests that start `spillway` in a child process run (tests/support/build.ts).
    globalSetup: ['tests/support/build.ts'],
    // Files that start servers and CLI processes from source run 15-20 s a test on a slow 2-core
    // machine with a file per core (four tests went over 20 s on such a day's CI runs).
    testTimeout: 40000,
    hookTimeout: 30000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one file at a time on CI's two. Most files
    // wait on servers, child processes and timers more than they compute, so every core gets one.
    maxWorkers: Math.max(2, availableParallelism()),
  },
});
