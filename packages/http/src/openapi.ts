import type { RateCategory } from '@spillway/core';
import type { Handler, Hono, Env as HonoEnv, MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import { authenticate } from './auth.ts';
import type { Env } from './env.ts';
import { rateLimit } from './rate-limit.ts';

/**
 * How a route authenticates. `basic-or-key` is interface 5.1 (Basic login:password, Basic `@`:key,
 * `X-Authorization-Key`, and a client token as `Authorization: Bearer` when the app has a token
 * service); the token kinds are the chat hub's (company, operator) and
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
  /** An example answer, shown by `/docs` and checked against `schema` by the lint. */
  example?: unknown;
}

/** What {@link defineRoute} registers and documents. */
export interface RouteSpec {
  method: RouteMethod;
  /** Hono path, `:param` for path parameters (exactly the interface's paths). */
  path: string;
  /**
   * The operation's name as a method of a client (`sendMessages`, `getMessageStatus`). Without
   * one it is made from the method and path (`postApiItems`).
   */
  operationId?: string;
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
  /**
   * Request headers the route reads besides authentication (an object schema; its properties,
   * named as the header is spelled, become header parameters). Documentation only: the route parses them.
   */
  headers?: z.ZodObject;
  /** Request body (JSON). Documentation only: the engine validates bodies. */
  body?: z.ZodType;
  /**
   * Whether a request must have the body: false for a route that takes its input elsewhere too
   * (the classic gateway's query parameters), so that a typed client may leave it out.
   * @default true
   */
  bodyRequired?: boolean;
  /** The media types the body may come in, each with `body`'s schema. @default ['application/json'] */
  bodyMediaTypes?: readonly string[];
  /** An example request body, shown by `/docs` (and prefilled in its try-it). */
  bodyExample?: unknown;
  responses: Record<number, RouteResponse>;
  /**
   * Whether the route reads or writes the storage, and so may answer 503 when the database is
   * too busy (documented on every route that does). @default true
   */
  storage?: boolean;
}

/** A recorded route: its spec with the operationId it is documented under. */
export interface RouteRecord extends RouteSpec {
  operationId: string;
  /** True when the operationId was made from the method and path. */
  derivedOperationId: boolean;
}

// Route records by app; a WeakMap so that apps stay collectable and need no extra field.
const records = new WeakMap<object, RouteRecord[]>();

/** The recorded routes of an app, in registration order. */
export function routeRecords(app: Hono<any, any, any>): readonly RouteRecord[] {
  return records.get(app) ?? [];
}

/**
 * `post /api/CascadeMessage/send_message/async` → `postApiCascadeMessageSendMessageAsync`,
 * `get /bat/message/:messageId` → `getBatMessageByMessageId`: the fallback of routes that name
 * no operationId (the document makes repeated ones unique).
 */
function operationIdOf(method: string, path: string): string {
  const words = path
    .split('/')
    .flatMap((segment) =>
      segment.startsWith(':')
        ? [
            'by',
            ...segment
              .slice(1)
              .replace(/\{.*\}$/, '')
              .split(/[^A-Za-z0-9]+/),
          ]
        : segment.split(/[^A-Za-z0-9]+/),
    )
    .filter(Boolean);
  return method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
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
  list.push({ ...spec, operationId: spec.operationId ?? operationIdOf(spec.method, spec.path), derivedOperationId: !spec.operationId });
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
    list.push({ ...record, path, ...(record.derivedOperationId ? { operationId: operationIdOf(record.method, path) } : {}) });
  }
  records.set(app, list);
}

export { buildOpenApiDocument, jsonSchemaOf } from './openapi-document.ts';
export type { OpenApiBuildOptions, OpenApiInfo } from './openapi-document.ts';
