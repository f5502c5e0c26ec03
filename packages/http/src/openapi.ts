import type { RateCategory } from '@spillway/core';
import type { Handler, Hono, Env as HonoEnv, MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { authenticate } from './auth.ts';
import type { Env } from './env.ts';
import { rateLimit } from './rate-limit.ts';
import { errorBodySchema } from './schemas.ts';

/**
 * How a route authenticates. `basic-or-key` is interface 5.1 (Basic login:password, Basic `@`:key,
 * `X-Authorization-Key`); the token kinds are the chat hub's (company, operator) and
 * `client-token` an API key sent as `X-Authorization-Key` only; `admin-key` the operator's `X-Admin-Key`.
 */
export type RouteAuth = 'basic-or-key' | 'company-token' | 'operator-token' | 'client-token' | 'admin-key' | 'none';

/** The HTTP method of a route definition. */
export type RouteMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** One documented response of a route. */
export interface RouteResponse {
  description: string;
  schema?: z.ZodType;
  /** @default 'application/json' */
  contentType?: string;
}

/** What {@link defineRoute} registers and documents. */
export interface RouteSpec {
  method: RouteMethod;
  /** Hono path, `:param` for path parameters (exactly the interface's paths). */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: RouteAuth;
  /**
   * Rate-limit category. With `auth: 'basic-or-key'` defineRoute mounts `authenticate()` and
   * `rateLimit(category)` itself; other kinds bring their own middlewares.
   * @default 'data'
   */
  rateLimit?: RateCategory;
  /** Path parameter schemas by name; undocumented ones are strings. */
  params?: Record<string, z.ZodType>;
  /** Query parameters (an object schema; its properties become parameters). */
  query?: z.ZodObject;
  /** Request body (JSON). Documentation only: the engine validates bodies. */
  body?: z.ZodType;
  responses: Record<number, RouteResponse>;
}

interface RouteRecord extends RouteSpec {
  operationId: string;
}

// Route records by app; a WeakMap so that apps stay collectable and need no extra field.
const records = new WeakMap<object, RouteRecord[]>();

/** The recorded routes of an app, in registration order. */
export function routeRecords(app: Hono<any, any, any>): readonly RouteSpec[] {
  return records.get(app) ?? [];
}

/**
 * `post /api/CascadeMessage/send_message/async` → `postApiCascadeMessageSend_messageAsync`: path
 * segments are capitalised, and characters inside a segment other than letters and digits become
 * `_`, so that `send_message/async` and `send_message_async` stay two operations.
 */
function operationIdOf(method: string, path: string): string {
  const segments = path
    .split('/')
    .map((segment) =>
      segment
        .replace(/^:/, 'by_')
        .replace(/\{.*\}$/, '')
        .replace(/[^A-Za-z0-9]+/g, '_')
        .replace(/^_+|_+$/g, ''),
    )
    .filter(Boolean);
  return method + segments.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/**
 * Registers a Hono route and records it for the OpenAPI document. The route's handlers come
 * last; for `auth: 'basic-or-key'` authentication and rate limiting are mounted in front of them
 * (they need the variables the app sets, so use that kind on the main app or a sub-app mounted
 * on it). Works on any Hono app; records of a sub-app join the main app's with {@link mountRoutes}.
 *
 * @example
 * defineRoute(app, { method: 'get', path: '/bat/balance', summary: 'Balance', tags: ['messaging'],
 *   auth: 'basic-or-key', responses: { 200: { description: 'Balance', schema: balanceSchema } } },
 *   async (c) => c.json(await c.var.engine.accounts.balance(c.var.account.id)));
 */
export function defineRoute<E extends HonoEnv = Env>(
  app: Hono<E, any, any>,
  spec: RouteSpec,
  ...handlers: Array<MiddlewareHandler<E> | Handler<E>>
): void {
  const routeId = `${spec.method.toUpperCase()} ${spec.path}`;
  const list = records.get(app) ?? [];
  if (list.some((r) => `${r.method.toUpperCase()} ${r.path}` === routeId)) throw new Error(`Route defined twice: ${routeId}`);
  const tag: MiddlewareHandler<Env> = async (c, next) => {
    c.set('routeId', spec.path);
    await next();
  };
  const guards = spec.auth === 'basic-or-key' ? [authenticate(), rateLimit(spec.rateLimit ?? 'data')] : [];
  const on = app.on.bind(app) as unknown as (method: string, path: string, ...h: unknown[]) => void;
  on(spec.method.toUpperCase(), spec.path, tag, ...guards, ...handlers);
  list.push({ ...spec, operationId: operationIdOf(spec.method, spec.path) });
  records.set(app, list);
}

/**
 * Mounts a sub-app built with {@link defineRoute} (e.g. the chat hub's) under `basePath` of
 * `app`, carrying its route records into `app`'s OpenAPI document.
 *
 * @example
 * extraRoutes: [(app) => mountRoutes(app, '/', createChatHubRoutes(deps))]
 */
export function mountRoutes(app: Hono<any, any, any>, basePath: string, sub: Hono<any, any, any>): void {
  app.route(basePath, sub);
  const prefix = basePath.replace(/\/+$/, '');
  const list = records.get(app) ?? [];
  for (const record of records.get(sub) ?? []) {
    const path = `${prefix}${record.path}`;
    list.push({ ...record, path, operationId: operationIdOf(record.method, path) });
  }
  records.set(app, list);
}

/** JSON Schema (2020-12, as OpenAPI 3.1 uses) of a zod schema, without the `$schema` marker. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}

const SECURITY: Record<RouteAuth, Array<Record<string, string[]>>> = {
  'basic-or-key': [{ basicAuth: [] }, { apiKeyAuth: [] }],
  'company-token': [{ bearerAuth: [] }, { apiKeyAuth: [] }],
  'operator-token': [{ bearerAuth: [] }],
  'client-token': [{ apiKeyAuth: [] }],
  'admin-key': [{ adminKeyAuth: [] }],
  none: [],
};

function errorResponse(description: string): Record<string, unknown> {
  return { description, content: { 'application/json': { schema: jsonSchemaOf(errorBodySchema, 'output') } } };
}

function operationOf(record: RouteRecord): Record<string, unknown> {
  const parameters: Array<Record<string, unknown>> = [];
  for (const match of record.path.matchAll(/:([A-Za-z0-9_]+)(?:\{[^}]*\})?/g)) {
    const name = match[1]!;
    const schema = record.params?.[name];
    parameters.push({ name, in: 'path', required: true, schema: schema ? jsonSchemaOf(schema, 'input') : { type: 'string' } });
  }
  if (record.query) {
    const json = jsonSchemaOf(record.query, 'input') as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, schema] of Object.entries(json.properties ?? {})) {
      const isArray = (schema as { type?: unknown }).type === 'array';
      parameters.push({
        name,
        in: 'query',
        required: json.required?.includes(name) ?? false,
        schema,
        ...(isArray ? { style: 'form', explode: true } : {}),
      });
    }
  }

  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(record.responses)) {
    // An error status without a schema answers the common error body.
    const schema = response.schema ?? (Number(status) >= 400 ? errorBodySchema : undefined);
    responses[status] = {
      description: response.description,
      ...(schema ? { content: { [response.contentType ?? 'application/json']: { schema: jsonSchemaOf(schema, 'output') } } } : {}),
    };
  }
  // The answers every route of a kind can give, so that each operation lists them.
  if (record.body && !responses['400']) responses['400'] = errorResponse('Invalid request (every bad path listed in details)');
  if (record.body && !responses['415']) responses['415'] = errorResponse('Unsupported content type');
  if (record.auth !== 'none') {
    responses['401'] ??= errorResponse('Missing or wrong credentials');
    if (record.auth !== 'admin-key') responses['429'] ??= errorResponse('Rate limit exceeded (see Retry-After and RateLimit-* headers)');
  }

  return {
    operationId: record.operationId,
    summary: record.summary,
    ...(record.description ? { description: record.description } : {}),
    tags: record.tags,
    security: SECURITY[record.auth],
    ...(parameters.length ? { parameters } : {}),
    ...(record.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchemaOf(record.body, 'input') } } } }
      : {}),
    responses,
  };
}

/** Title and version of the generated document. */
export interface OpenApiInfo {
  /** @default 'Spillway' */
  title?: string;
  /** The API's version label (interface 9), not the package version. @default 'v1' */
  version?: string;
  description?: string;
}

/**
 * Builds the OpenAPI 3.1 document of every route recorded by {@link defineRoute} on `app`,
 * with schemas from the same zod schemas the code uses.
 */
export function buildOpenApiDocument(app: Hono<any, any, any>, info: OpenApiInfo = {}): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const record of records.get(app) ?? []) {
    const path = record.path.replace(/:([A-Za-z0-9_]+)(?:\{[^}]*\})?/g, '{$1}');
    (paths[path] ??= {})[record.method] = operationOf(record);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: info.title ?? 'Spillway',
      version: info.version ?? 'v1',
      description: info.description ?? 'Multi-channel messaging engine: messaging, cascade, chat hub and client-management APIs.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    components: {
      securitySchemes: {
        basicAuth: { type: 'http', scheme: 'basic', description: 'login:password, or @:<API key>' },
        apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-Authorization-Key' },
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        adminKeyAuth: { type: 'apiKey', in: 'header', name: 'X-Admin-Key', description: 'Operator key (SPILLWAY_ADMIN_KEY)' },
      },
    },
    paths,
  };
}
