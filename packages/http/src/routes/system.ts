import type { Hono } from 'hono';
import type { Registry } from 'prom-client';
import { DOCS_CSP, DOCS_SCRIPT_PATH, docsScript, renderDocsPage } from '../docs-page.ts';
import type { Env } from '../env.ts';
import { buildOpenApiDocument, defineRoute } from '../openapi.ts';
import type { OpenApiInfo } from '../openapi.ts';
import { z } from 'zod';
import { healthSchema } from '../schemas.ts';

/** `GET /health`'s path and what it answers (the app's route and the direct one). */
export const HEALTH_ROUTE = '/health';
export const HEALTH_BODY = { status: 'ok' } as const;

/**
 * `GET /health`'s answer with the live workers `HttpOptions.liveWorkers` counted (none: not
 * counted, or not yet). Still `ok` without them: the process is up and accepts, and what it
 * accepts waits for a worker; `workers` and the metrics say whether one runs.
 */
export function healthBody(liveWorkers: number | undefined): { status: 'ok'; workers?: number } {
  return liveWorkers === undefined ? HEALTH_BODY : { status: 'ok', workers: liveWorkers };
}

/**
 * Registers `/health`, `/metrics` (with a registry), `/openapi.json` and `/docs` (unless `docs` is
 * false). None needs authentication: probes and scrapers carry no credentials (keep `/metrics` off
 * the public network).
 */
export function registerSystemRoutes(
  app: Hono<Env>,
  options: { registry?: Registry; docs?: boolean; openApiInfo?: OpenApiInfo; basePath?: string; liveWorkers?: () => number | undefined },
): void {
  const { liveWorkers } = options;
  defineRoute(
    app,
    {
      method: 'get',
      path: HEALTH_ROUTE,
      operationId: 'getHealth',
      summary: 'Liveness: 200 once the server accepts requests, with the live workers when they are counted',
      tags: ['system'],
      auth: 'none',
      storage: false,
      responses: { 200: { description: 'Up', schema: healthSchema } },
    },
    (c) => c.json(healthBody(liveWorkers?.())),
  );

  const registry = options.registry;
  if (registry) {
    defineRoute(
      app,
      {
        method: 'get',
        path: '/metrics',
        operationId: 'getMetrics',
        summary: 'Prometheus metrics (text exposition format)',
        tags: ['system'],
        auth: 'none',
        storage: false,
        responses: { 200: { description: 'Metrics', contentType: 'text/plain', schema: z.string() } },
      },
      async (c) => c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType }),
    );
  }
  if (options.docs === false) return;

  // Built on first request (every route, including those of extraRoutes, is registered by then),
  // once per prefix the app is reached under.
  const documents = new Map<string, Record<string, unknown>>();
  defineRoute(
    app,
    {
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'This API as an OpenAPI 3.1 document',
      tags: ['system'],
      auth: 'none',
      storage: false,
      responses: { 200: { description: 'OpenAPI document', schema: z.record(z.string(), z.unknown()) } },
    },
    (c) => {
      // Under a Hono parent (`parent.route('/sms', app)`) the path still holds the prefix; under
      // createSpillway's basePath the prefix was stripped before the app saw the request.
      const basePath = (options.basePath ?? '') + c.req.path.slice(0, c.req.path.length - '/openapi.json'.length);
      let document = documents.get(basePath);
      if (!document) {
        document = buildOpenApiDocument(app, options.openApiInfo, { basePath, clientTokens: c.var.tokens !== undefined });
        documents.set(basePath, document);
      }
      return c.json(document);
    },
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/docs',
      operationId: 'getDocs',
      summary: 'Browsable API reference: search, examples and a try-it client',
      tags: ['system'],
      auth: 'none',
      storage: false,
      responses: { 200: { description: 'HTML page', contentType: 'text/html', schema: z.string() } },
    },
    (c) =>
      // Relative, so that the page still works when the app is mounted under a prefix.
      c.html(renderDocsPage('openapi.json'), 200, { 'Content-Security-Policy': DOCS_CSP }),
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: DOCS_SCRIPT_PATH,
      operationId: 'getDocsScript',
      summary: 'The script of the API reference (Scalar, served from the package, no CDN)',
      tags: ['system'],
      auth: 'none',
      storage: false,
      responses: {
        200: { description: 'JavaScript', contentType: 'text/javascript', schema: z.string() },
        304: { description: 'Not modified (If-None-Match)' },
      },
    },
    async (c) => {
      const { body, gzip, etag } = await docsScript();
      const headers: Record<string, string> = { ETag: etag, 'Cache-Control': 'public, max-age=3600', Vary: 'Accept-Encoding' };
      if (c.req.header('if-none-match') === etag) return c.body(null, 304, headers);
      headers['Content-Type'] = 'text/javascript; charset=utf-8';
      if (/\bgzip\b/.test(c.req.header('accept-encoding') ?? '')) return c.body(gzip, 200, { ...headers, 'Content-Encoding': 'gzip' });
      return c.body(body, 200, headers);
    },
  );
}
