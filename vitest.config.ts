import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The workspace packages resolve to their TypeScript sources through the `@spillway/source`
// export condition (docs/decisions.md): tests import them without a build.
const SOURCE = '@spillway/source';
// Vite's own defaults (defaultServerConditions of 'vite', which is not a root dependency) after it.
const NODE_CONDITIONS = [SOURCE, 'module', 'node', 'development|production'];

const INCLUDE = [
  'packages/*/src/**/*.test.ts',
  'apps/*/src/**/*.test.ts',
  'apps/*/test/**/*.test.ts',
  'examples/*/test/**/*.test.ts',
  'tests/**/*.test.ts',
];
// The packaging test builds, packs and installs the packages: a step of its own (`pnpm test:packaging`).
const EXCLUDE = ['**/node_modules/**', 'tests/packaging/pack.test.ts'];

// Files that replace a module with `vi.mock` need a module registry of their own; every other file
// shares its worker's (`isolate: false`): Vitest then imports the sources once a worker, not once a
// file, which took a third of the suite's time (294 of 775 s of import on a CI run).
const OWN_MODULES = ['tests/server/http-threads-fallback.test.ts', 'tests/server/workers-thread-failed.test.ts'];

export default defineConfig({
  resolve: { conditions: NODE_CONDITIONS },
  ssr: { resolve: { conditions: NODE_CONDITIONS, externalConditions: [SOURCE] } },
  test: {
    // Builds what the tests that start `spillway` in a child process run (tests/support/build.ts).
    globalSetup: ['tests/support/build.ts'],
    // Files that start servers and CLI processes run 15-20 s a test on a slow 2-core machine with a
    // file per core (four tests went over 20 s on such a day's CI runs).
    testTimeout: 40000,
    hookTimeout: 30000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one file at a time on CI's two. Most files
    // wait on servers, child processes and timers more than they compute, so every core gets one.
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      { extends: true, test: { name: 'shared', include: INCLUDE, exclude: [...EXCLUDE, ...OWN_MODULES], isolate: false } },
      { extends: true, test: { name: 'own-modules', include: OWN_MODULES, exclude: EXCLUDE } },
    ],
  },
});
