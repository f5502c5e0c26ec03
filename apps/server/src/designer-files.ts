import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Env } from '@spillway/http';
import type { Hono, MiddlewareHandler } from 'hono';

/** Where `apps/designer` writes its build (`vite build`). */
export const DESIGNER_DIST = fileURLToPath(new URL('../../designer/dist', import.meta.url));

/**
 * Serves the designer's built files under `/designer/`. The build is looked up per request, so a
 * build made after the start is served at once; without one the page says how to build it.
 */
export function mountDesigner(app: Hono<Env>, dir: string = DESIGNER_DIST): void {
  app.get('/designer', (c) => c.redirect('/designer/', 301));
  // Hono's serveStatic prints a non-JSON line on stderr when made over a missing folder: it is
  // made at the first request that finds the build, not at the start of every server and command.
  let files: MiddlewareHandler | undefined;
  app.use('/designer/*', async (c, next) => {
    if (!existsSync(`${dir}/index.html`)) {
      return c.html(
        '<!doctype html><title>Spillway designer</title><p>The designer is not built. Run <code>npx -y pnpm@10 --filter @spillway/designer build</code> (or <code>npx -y pnpm@10 start</code>, which builds it when missing).</p>',
        503,
      );
    }
    files ??= serveStatic({
      root: dir,
      rewriteRequestPath: (path) => path.slice('/designer'.length) || '/',
      // Hashed assets never change; the page itself is revalidated.
      onFound: (path, c) => {
        c.header('Cache-Control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
    return files(c, next);
  });
}
