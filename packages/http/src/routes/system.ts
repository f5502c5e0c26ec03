import type { Hono } from 'hono';
import type { Registry } from 'prom-client';
import { renderDocsPage } from '../docs-page.ts';
import type { Env } from '../env.ts';
import { buildOpenApiDocument, defineRoute } from '../openapi.ts';
import type { OpenApiInfo } from '../openapi.ts';
import { healthSchema } from '../schemas.ts';

/**
 * Registers `/health`, `/metrics` (with a registry), `/openapi.json` and `/docs` (unless `docs` is
 * false). None needs authentication: probes and scrapers carry no credentials (keep `/metrics` off
 * the public network).
 */
export function registerSystemRoutes(
  app: Hono<Env>,
  options: { registry?: Registry; docs?: boolean; openApiInfo?: OpenApiInfo; basePath?: string },
): void {
  defineRoute(
    app,
    {
      method: 'get',
      path: '/health',
      summary: 'Liveness: 200 once the server accepts requests',
      tags: ['system'],
      auth: 'none',
      responses: { 200: { description: 'Up', schema: healthSchema } },
    },
    (c) => c.json({ status: 'ok' as const }),
  );

  const registry = options.registry;
  if (registry) {
    defineRoute(
      app,
      {
        method: 'get',
        path: '/metrics',
        summary: 'Prometheus metrics (text exposition format)',
        tags: ['system'],
        auth: 'none',
        responses: { 200: { description: 'Metrics', contentType: 'text/plain' } },
      },
      async (c) => c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType }),
    );
  }
  if (options.docs === false) return;

  // Built on first request: every route, including those of extraRoutes, is registered by then.
  let document: Record<string, unknown> | undefined;
  defineRoute(
    app,
    {
      method: 'get',
      path: '/openapi.json',
      summary: 'This API as an OpenAPI 3.1 document',
      tags: ['system'],
      auth: 'none',
      responses: { 200: { description: 'OpenAPI document' } },
    },
    (c) =>
      c.json(
        (document ??= {
          ...buildOpenApiDocument(app, options.openApiInfo),
          // Served under a prefix, the paths are relative to it.
          ...(options.basePath ? { servers: [{ url: options.basePath }] } : {}),
        }),
      ),
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/docs',
      summary: 'Browsable API reference',
      tags: ['system'],
      auth: 'none',
      responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
    },
    (c) =>
      // Relative, so that the page still works when the app is mounted under a prefix.
      c.html(renderDocsPage('openapi.json')),
  );
}
