import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpApp } from './app.ts';
import { createChatHubRoutes } from './chat-hub/chat-hub-routes.ts';
import { buildOpenApiDocument, defineRoute, mountRoutes, routeRecords } from './openapi.ts';
import { registerRouteStatsApi } from './routes/route-stats-api.ts';
import { createFakeEngine } from './testing/fake-engine.ts';
import type { TokenService } from './chat-hub/token-service.ts';

type Operation = {
  operationId: string;
  security: unknown[];
  parameters?: Array<{ name: string; in: string; required: boolean }>;
  requestBody?: { content: Record<string, { schema: { $ref?: string }; example?: unknown }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: Record<string, unknown> }> }>;
};
type Doc = {
  openapi: string;
  info: { version: string };
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Record<string, unknown>>;
    responses: Record<string, unknown>;
    securitySchemes: Record<string, { type: string; scheme?: string; name?: string }>;
  };
};

/** The app as the reference server builds it: every built-in route, the chat hub and route stats. */
function fullApp() {
  const engine = createFakeEngine();
  const tokens = {} as TokenService;
  return createHttpApp({
    engine,
    defaultMetrics: false,
    tokens,
    extraRoutes: [
      (a) => mountRoutes(a, '/', createChatHubRoutes({ engine, tokens, clock: engine.clock })),
      (a) => registerRouteStatsApi(a, { routeStats: () => Promise.reject(new Error('unused')) } as never),
    ],
  });
}

async function documentOf(app: Hono<any, any, any>, path = '/openapi.json'): Promise<Doc> {
  const res = await app.request(path);
  expect(res.status).toBe(200);
  return (await res.json()) as Doc;
}

/** Every `$ref` anywhere under `node`. */
function refsIn(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refsIn(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refsIn(v, out);
    }
  }
  return out;
}

describe('OpenAPI document', () => {
  const app = fullApp();

  it('lists every route the app answers, under OpenAPI path syntax, and nothing else', async () => {
    const doc = await documentOf(app);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('v1');
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    // Hono's own list of handlers; middlewares are registered for ALL methods.
    const answered = new Set(
      app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)(?:\{[^}]*\})?/g, '{$1}')}`),
    );
    expect([...answered].sort()).toEqual([...documented].sort());
    expect(documented).toEqual(
      expect.arrayContaining(['POST /bat/messagelist', 'GET /bat/message/{messageId}', 'POST /api/company/operators']),
    );
  });

  it('names each operation as a client method, once', async () => {
    const doc = await documentOf(app);
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]+$/);
    expect(routeRecords(app).filter((r) => r.derivedOperationId)).toEqual([]);
    expect(doc.paths['/bat/messagelist']!['post']!.operationId).toBe('sendMessages');
    expect(doc.paths['/bat/message/{messageId}']!['get']!.operationId).toBe('getMessageStatus');
  });

  it('refers to named component schemas, keeps every operation small and every $ref resolvable', async () => {
    const doc = await documentOf(app);
    const send = doc.paths['/bat/messagelist']!['post']!;
    expect(send.requestBody!.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/SendMessagesRequest' });
    expect(send.requestBody!.content['application/json']!.example).toBeDefined();
    expect(send.responses['200']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/SendMessagesResponse' });
    expect(send.responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
    const item = doc.components.schemas['MessageItem']!;
    expect(refsIn(item)).toEqual(expect.arrayContaining(['#/components/schemas/SmsMessage', '#/components/schemas/ChatappPromoMessage']));
    expect(refsIn(doc.components.schemas['ChatappPromoMessage'])).toContain('#/components/schemas/ChatappPromoData');

    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) expect(JSON.stringify(op).length, `${method} ${path}`).toBeLessThan(4000);
    }
    const refs = new Set(refsIn(doc));
    for (const ref of refs) {
      const [, kind, name] = /^#\/components\/(schemas|responses)\/(.+)$/.exec(ref) ?? [];
      expect(kind && doc.components[kind as 'schemas' | 'responses'][name!], ref).toBeDefined();
    }
    // Nothing listed that nothing uses.
    for (const name of Object.keys(doc.components.schemas)) expect(refs.has(`#/components/schemas/${name}`), name).toBe(true);
  });

  it('gives each route its own security: Basic, key or client token; company and operator tokens; none on public routes', async () => {
    const doc = await documentOf(app);
    expect(doc.paths['/bat/message/{messageId}']!['get']!.security).toEqual([{ basicAuth: [] }, { apiKeyAuth: [] }, { clientToken: [] }]);
    expect(doc.paths['/api/company/operators']!['post']!.security).toEqual([{ companyToken: [] }, { companyTokenKey: [] }]);
    expect(doc.paths['/api/operator']!['get']!.security).toEqual([{ operatorToken: [] }]);
    expect(doc.paths['/admin/sender-applications']!['get']!.security).toEqual([{ adminKey: [] }]);
    expect(doc.paths['/health']!['get']!.security).toEqual([]);
    expect(doc.paths['/api/auth']!['post']!.security).toEqual([]);
    expect(doc.components.securitySchemes).toMatchObject({
      basicAuth: { type: 'http', scheme: 'basic' },
      apiKeyAuth: { type: 'apiKey', name: 'X-Authorization-Key' },
      clientToken: { type: 'http', scheme: 'bearer' },
    });

    // Without a token service the app takes no client token, and the document says so.
    const plain = await documentOf(createHttpApp({ engine: createFakeEngine(), defaultMetrics: false }));
    expect(plain.paths['/bat/balance']!['get']!.security).toEqual([{ basicAuth: [] }, { apiKeyAuth: [] }]);
    expect(Object.keys(plain.components.securitySchemes).sort()).toEqual(['adminKey', 'apiKeyAuth', 'basicAuth']);
  });

  it('lists the server under the prefix the app is mounted at', async () => {
    expect((await documentOf(app)).servers).toEqual([{ url: '/', description: 'This server' }]);
    const host = new Hono().route('/sms', createHttpApp({ engine: createFakeEngine(), defaultMetrics: false }));
    const doc = await documentOf(host, '/sms/openapi.json');
    expect(doc.servers.map((s) => s.url)).toEqual(['/sms']);
    expect(Object.keys(doc.paths)).toContain('/bat/messagelist');
    // A framework that strips its mount path before Spillway sees the request: the option says it.
    const stripped = createHttpApp({ engine: createFakeEngine(), defaultMetrics: false, openApiInfo: { basePath: '/messaging/' } });
    expect((await documentOf(stripped)).servers.map((s) => s.url)).toEqual(['/messaging']);
  });

  it('names the schemas of routes added by other modules after their operation', () => {
    const extra = createHttpApp({
      engine: createFakeEngine(),
      defaultMetrics: false,
      extraRoutes: [
        (a) =>
          defineRoute(
            a,
            {
              method: 'post',
              path: '/api/things',
              operationId: 'createThing',
              summary: 'Create a thing',
              tags: ['things'],
              auth: 'basic-or-key',
              body: z.object({ name: z.string() }),
              responses: { 200: { description: 'Thing', schema: z.object({ id: z.int(), name: z.string() }) } },
            },
            (c) => c.json({ id: 1, name: 'x' }),
          ),
      ],
    });
    const doc = buildOpenApiDocument(extra) as Doc;
    const op = doc.paths['/api/things']!['post']!;
    expect(op.requestBody!.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/CreateThingRequest' });
    expect(doc.components.schemas['CreateThingRequest']).toMatchObject({ properties: { name: { type: 'string' } }, required: ['name'] });
    expect(doc.components.schemas['CreateThingResponse']).toMatchObject({ properties: { id: { type: 'integer' } } });
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
    const withSub = createHttpApp({ engine: createFakeEngine(), defaultMetrics: false, extraRoutes: [(a) => mountRoutes(a, '/hub', sub)] });
    expect(await (await withSub.request('/hub/tokens/5')).json()).toEqual({ id: '5' });
    const doc = buildOpenApiDocument(withSub) as Doc;
    expect(doc.paths['/hub/tokens/{id}']!['get']).toMatchObject({ operationId: 'getHubTokensById', security: [{ operatorToken: [] }] });
  });

  it('refuses to define the same route twice', () => {
    const dup = createHttpApp({ engine: createFakeEngine(), defaultMetrics: false });
    expect(() =>
      defineRoute(dup, { method: 'get', path: '/health', summary: 'again', tags: [], auth: 'none', responses: {} }, (c) => c.json({})),
    ).toThrow(/defined twice/);
  });
});
