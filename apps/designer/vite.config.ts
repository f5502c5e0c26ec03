import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig } from 'vite';

// Served by the reference server under /designer/ (apps/server/src/designer-files.ts).
export default defineConfig({
  base: '/designer/',
  // @spillway/core from its TypeScript sources, no build first (docs/decisions.md).
  resolve: { conditions: ['@spillway/source', ...defaultClientConditions] },
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1500 },
  server: {
    // `pnpm --filter @spillway/designer dev` talks to a reference server on :8080.
    proxy: { '/api': 'http://127.0.0.1:8080' },
  },
});
