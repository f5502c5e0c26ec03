import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpApp } from './app.ts';
import { Hono } from 'hono';
import { buildOpenApiDocument, defineRoute, mountRoutes } from './openapi.ts';
import { createFakeEngine } from './testing/fake-engine.ts';

type Doc = {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      {
        security: unknown[];
        parameters?: Array<{ name: string; in: string; required: boolean }>;
        requestBody?: unknown;
        responses: Record<string, unknown>;
      }
    >
  >;
  components: { securitySchemes: Record<string, { type: string; scheme?: string; name?: string }> };
};

describe('OpenAPI document', () => {
  const app = createHttpApp({ engine: createFakeEngine(), defaultMetrics: false });

  it('lists every messaging and system route with OpenAPI path syntax', async () => {
    const doc = (await (await app.request('/openapi.json')).json()) as Doc;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/bat/messagelist',
        '/bat/message/{messageId}',
        '/bat/balance',
        '/api/AlphaName/wallet/info',
        '/api/AlphaName/callback',
        '/health',
        '/metrics',
        '/openapi.json',
        '/docs',
      ]),
    );
    expect(Object.keys(doc.paths['/bat/message/{messageId}']!).sort()).toEqual(['get', 'patch']);
  });

  it('documents parameters, bodies, responses and security', async () => {
    const doc = (await (await app.request('/openapi.json')).json()) as Doc;
    const get = doc.paths['/bat/message/{messageId}']!['get']!;
    expect(get.parameters).toEqual([expect.objectContaining({ name: 'messageId', in: 'path', required: true })]);
    expect(get.security).toEqual([{ basicAuth: [] }, { apiKeyAuth: [] }]);
    expect(Object.keys(get.responses)).toEqual(expect.arrayContaining(['200', '401', '404', '429']));

    const send = doc.paths['/bat/messagelist']!['post']!;
    expect(send.requestBody).toMatchObject({ content: { 'application/json': { schema: { type: 'object' } } } });
    expect(send.responses['200']).toMatchObject({
      content: { 'application/json': { schema: { properties: { messagelistId: { type: 'integer' } } } } },
    });

    const wallet = doc.paths['/api/AlphaName/wallet/info']!['get']!;
    expect(wallet.parameters!.map((p) => p.name)).toEqual(['ExternalAlphaName', 'TransactionTypes', 'Page', 'PageSize']);
    expect(doc.paths['/health']!['get']!.security).toEqual([]);
    expect(doc.components.securitySchemes).toMatchObject({
      basicAuth: { type: 'http', scheme: 'basic' },
      apiKeyAuth: { type: 'apiKey', name: 'X-Authorization-Key' },
      bearerAuth: { type: 'http', scheme: 'bearer' },
    });
  });

  it('records routes of other modules, with their own schemas', () => {
    const extra = createHttpApp({
      engine: createFakeEngine(),
      defaultMetrics: false,
      extraRoutes: [
        (a) =>
          defineRoute(
            a,
            {
              method: 'post',
              path: '/api/company/operators',
              summary: 'Create an operator',
              tags: ['chat hub'],
              auth: 'company-token',
              body: z.object({ name: z.string() }),
              responses: { 200: { description: 'Operator', schema: z.object({ id: z.int(), name: z.string() }) } },
            },
            (c) => c.json({ id: 1, name: 'x' }),
          ),
      ],
    });
    const doc = buildOpenApiDocument(extra) as Doc;
    const op = doc.paths['/api/company/operators']!['post']!;
    expect(op.security).toEqual([{ bearerAuth: [] }, { apiKeyAuth: [] }]);
    expect(op.requestBody).toMatchObject({
      content: { 'application/json': { schema: { properties: { name: { type: 'string' } }, required: ['name'] } } },
    });
  });

  it('carries the records of a mounted sub-app, which answers under its base path', async () => {
    const sub = new Hono<{ Variables: { who: string } }>();
    defineRoute(
      sub,
      {
        method: 'get',
        path: '/tokens/:id',
        summary: 'A token',
        tags: ['chat hub'],
        auth: 'operator-token',
        responses: { 200: { description: 'ok' } },
      },
      (c) => c.json({ id: c.req.param('id') }),
    );
    const app = createHttpApp({ engine: createFakeEngine(), defaultMetrics: false, extraRoutes: [(a) => mountRoutes(a, '/hub', sub)] });
    expect(await (await app.request('/hub/tokens/5')).json()).toEqual({ id: '5' });
    const doc = buildOpenApiDocument(app) as Doc;
    expect(doc.paths['/hub/tokens/{id}']!['get']!.security).toEqual([{ bearerAuth: [] }]);
  });

  it('refuses to define the same route twice', () => {
    const dup = createHttpApp({ engine: createFakeEngine(), defaultMetrics: false });
    expect(() =>
      defineRoute(dup, { method: 'get', path: '/health', summary: 'again', tags: [], auth: 'none', responses: {} }, (c) => c.json({})),
    ).toThrow(/defined twice/);
  });
});
